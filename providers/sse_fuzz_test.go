package providers

import (
	"testing"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// sseFuzzSeeds are the line forms the relay parser treats apart, as seeds
// for the SSE fuzzers.
var sseFuzzSeeds = []string{
	"data: a\r\n\r\n", "data: a\r\rdata:b\n\r\n", ": ping\n\n", "event: x\ndata\n\n",
	"\r\n\r\n", "data: [DONE]\n\n", "id: 1\nretry: 5\n\n", " data: x\n\n", "data: a\r",
	"\uFEFFdata: {}\n\n", "\uFEFF\uFEFFdata: {}\n\n", "data: {}\n\n\uFEFFdata: {}\n\n",
	"\u00a0data: {}\n\n", "\u3000event: e\n\n", "data: {}\ndata: {}\n\n", "data: {}\v\n\n",
	"data:\f{}\n\n", "data: {} \t\n\n", "foo: bar\ndata: {}\n\n", "data: {}\r\nfoo: x\r\n\r\n",
	"data: [DONE]\n", "\xef\xbb", "\uFEFF\n\n", "data: [DONE]\u2028\n\n",
}

// FuzzSSEParser checks SSEParser against refParseSSE, and a relay parser
// against refRelaySSE, for any input, fed whole, one byte at a time, and at
// split points derived from the fuzzer's seed byte, with a small size
// limit so the error path is exercised too.
func FuzzSSEParser(f *testing.F) {
	for _, fx := range fixtures.List(f, fixtures.APIUnknown, fixtures.KindSSE) {
		in := fx.Read(f)
		if len(in) > 4096 {
			in = in[:4096]
		}
		f.Add(in, uint8(7), uint16(0))
	}
	for _, s := range sseFuzzSeeds {
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

		relayWant := refRelaySSE(in, max)
		for _, c := range [][]int{nil, everyByte(len(in)), cuts} {
			got, err := parseRelaySplit(in, c, max)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffRelayResults(relayWant, got); d != "" {
				t.Fatalf("relay, %d cuts: %s", len(c), d)
			}
		}
	})
}

// FuzzSSERelayClientReadings holds the relay parser's promise with the
// clients' own readers as oracles: from what a relay passes on, go-openai,
// openai-go, anthropic-sdk-go and the JS SDKs' decoders read no payload
// that the parser did not read the same way (checkClientsReadAsRelay).
// Seeds are the recordings and the line forms above; the fuzzer mutates
// them into BOMs, white space, split or extra lines and CRs.
func FuzzSSERelayClientReadings(f *testing.F) {
	for _, fx := range fixtures.List(f, fixtures.APIUnknown, fixtures.KindSSE) {
		in := fx.Read(f)
		if len(in) > 4096 {
			in = in[:4096]
		}
		f.Add(in)
	}
	for _, s := range sseFuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkClientsReadAsRelay(t, in)
	})
}
