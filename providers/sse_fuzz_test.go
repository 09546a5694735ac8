package providers

import (
	"testing"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// FuzzSSEParser checks SSEParser against refParseSSE for any input, fed
// whole, one byte at a time, and at split points derived from the fuzzer's
// seed byte, with a small size limit so the error path is exercised too.
func FuzzSSEParser(f *testing.F) {
	for _, fx := range fixtures.List(f, fixtures.APIUnknown, fixtures.KindSSE) {
		in := fx.Read(f)
		if len(in) > 4096 {
			in = in[:4096]
		}
		f.Add(in, uint8(7), uint16(0))
	}
	for _, s := range []string{
		"data: a\r\n\r\n", "data: a\r\rdata:b\n\r\n", ": ping\n\n", "event: x\ndata\n\n",
		"\r\n\r\n", "data: [DONE]\n\n", "id: 1\nretry: 5\n\n", " data: x\n\n", "data: a\r",
	} {
		f.Add([]byte(s), uint8(1), uint16(32))
	}
	f.Fuzz(func(t *testing.T, in []byte, step uint8, limit uint16) {
		max := int(limit)
		if max == 0 {
			max = DefaultMaxSSEEvent
		}
		want := refParseSSE(in, max)
		whole, err := parseSplit(in, nil, max)
		if err != nil {
			t.Fatal(err)
		}
		if d := diffResults(want, whole); d != "" {
			t.Fatalf("whole: %s", d)
		}
		if !want.TooLarge {
			if got := concatRaw(whole); string(got) != string(in) {
				t.Fatalf("Raw concatenation differs")
			}
		}
		byByte, err := parseSplit(in, everyByte(len(in)), max)
		if err != nil {
			t.Fatal(err)
		}
		if d := diffResults(want, byByte); d != "" {
			t.Fatalf("byte at a time: %s", d)
		}
		var cuts []int
		s := int(step%13) + 1
		for c := s; c < len(in); c += s + c%5 {
			cuts = append(cuts, c)
		}
		split, err := parseSplit(in, cuts, max)
		if err != nil {
			t.Fatal(err)
		}
		if d := diffResults(want, split); d != "" {
			t.Fatalf("split %v: %s", cuts, d)
		}
	})
}
