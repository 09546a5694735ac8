package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/fixtures"
)

func TestSSEFixturesSplitInvariant(t *testing.T) {
	all := fixtures.List(t, fixtures.APIUnknown, fixtures.KindSSE)
	if len(all) < 39 {
		t.Fatalf("found %d .sse fixtures, SOURCES.md lists 39", len(all))
	}
	r := rand.New(rand.NewSource(1))
	for _, fx := range all {
		t.Run(fx.Rel, func(t *testing.T) {
			in := fx.Read(t)
			whole, err := parseSplit(in, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := concatRaw(whole); !bytes.Equal(got, in) {
				t.Fatalf("concatenated Raw differs from input (%d vs %d bytes)", len(got), len(in))
			}
			if whole.Trailing != "" {
				t.Errorf("unexpected trailing bytes %q", whole.Trailing)
			}
			if d := diffResults(refParseSSE(in, DefaultMaxSSEEvent), whole); d != "" {
				t.Fatalf("reference vs parser: %s", d)
			}
			byByte, err := parseSplit(in, everyByte(len(in)), 0)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffResults(whole, byByte); d != "" {
				t.Fatalf("whole vs byte-at-a-time: %s", d)
			}
			for k := 0; k < 20; k++ {
				split, err := parseSplit(in, randomCuts(r, len(in)), 0)
				if err != nil {
					t.Fatal(err)
				}
				if d := diffResults(whole, split); d != "" {
					t.Fatalf("whole vs random split: %s", d)
				}
			}
		})
	}
}

// The CRLF recordings re-encoded with bare CR must parse to the same events.
func TestSSELineEndingsEquivalent(t *testing.T) {
	for _, fx := range fixtures.List(t, fixtures.APIGeminiNative, fixtures.KindSSE) {
		crlf := fx.Read(t)
		if !bytes.Contains(crlf, []byte("\r\n")) {
			t.Fatalf("%s: expected CRLF line endings", fx.Rel)
		}
		lf := bytes.ReplaceAll(crlf, []byte("\r\n"), []byte("\n"))
		cr := bytes.ReplaceAll(crlf, []byte("\r\n"), []byte("\r"))
		want, _ := parseSplit(lf, nil, 0)
		for name, in := range map[string][]byte{"crlf": crlf, "cr": cr} {
			for _, cuts := range [][]int{nil, everyByte(len(in))} {
				got, err := parseSplit(in, cuts, 0)
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Frames) != len(want.Frames) || len(got.Frames) == 0 {
					t.Fatalf("%s %s: %d frames, want %d", fx.Rel, name, len(got.Frames), len(want.Frames))
				}
				for i := range got.Frames {
					if got.Frames[i].Data != want.Frames[i].Data || got.Frames[i].DataLines != 1 {
						t.Fatalf("%s %s frame %d: data %q", fx.Rel, name, i, got.Frames[i].Data)
					}
				}
			}
		}
	}
}

func TestSSEFrames(t *testing.T) {
	cases := []struct {
		name     string
		in       string
		want     []refFrame // Raw, Event, Data, ID, DataLines, Comment, Done are checked
		trailing string
	}{
		{
			name: "data with and without space, multi-line joined",
			in:   "data: a\ndata:b\ndata:  c\n\n",
			want: []refFrame{{Raw: "data: a\ndata:b\ndata:  c\n\n", Data: "a\nb\n c", DataLines: 3}},
		},
		{
			name: "comment only, then done",
			in:   ": OPENROUTER PROCESSING\n\ndata: [DONE]\n\n",
			want: []refFrame{
				{Raw: ": OPENROUTER PROCESSING\n\n", Comment: true},
				{Raw: "data: [DONE]\n\n", Data: "[DONE]", DataLines: 1, Done: true},
			},
		},
		{
			name: "data before event (Bedrock), id",
			in:   "data: {}\nevent: response.created\nid: 7\n\n",
			want: []refFrame{{Raw: "data: {}\nevent: response.created\nid: 7\n\n", Data: "{}", DataLines: 1,
				Event: "response.created", HasEvent: true, ID: "7", HasID: true}},
		},
		{
			name: "event error (Groq)",
			in:   "event: error\ndata: {\"error\":{}}\n\n",
			want: []refFrame{{Raw: "event: error\ndata: {\"error\":{}}\n\n", Event: "error", HasEvent: true,
				Data: "{\"error\":{}}", DataLines: 1}},
		},
		{
			name: "CRLF and CR",
			in:   "data: x\r\n\r\ndata: y\r\rdata: z\r\n\r",
			want: []refFrame{
				{Raw: "data: x\r\n\r\n", Data: "x", DataLines: 1},
				{Raw: "data: y\r\r", Data: "y", DataLines: 1},
				{Raw: "data: z\r\n\r", Data: "z", DataLines: 1},
			},
		},
		{
			name: "leading space makes an unknown field (Novita artifact)",
			in:   " data: {}\n\n",
			want: []refFrame{{Raw: " data: {}\n\n"}},
		},
		{
			name: "stray blank line is its own frame",
			in:   "\ndata: 1\n\n\n",
			want: []refFrame{{Raw: "\n"}, {Raw: "data: 1\n\n", Data: "1", DataLines: 1}, {Raw: "\n"}},
		},
		{
			name: "field without colon, empty data",
			in:   "data\n\n",
			want: []refFrame{{Raw: "data\n\n", Data: "", DataLines: 1}},
		},
		{
			name:     "unterminated tail",
			in:       "data: 1\n\ndata: {\"choices\":[",
			want:     []refFrame{{Raw: "data: 1\n\n", Data: "1", DataLines: 1}},
			trailing: "data: {\"choices\":[",
		},
		{
			name:     "unterminated after a complete line",
			in:       "data: 1\n",
			trailing: "data: 1\n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, cuts := range [][]int{nil, everyByte(len(c.in))} {
				got, err := parseSplit([]byte(c.in), cuts, 0)
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Frames) != len(c.want) {
					t.Fatalf("got %d frames %v, want %d", len(got.Frames), got.Frames, len(c.want))
				}
				var off int64
				for i, w := range c.want {
					w.Seq, w.Offset = uint64(i), off
					off += int64(len(w.Raw))
					if got.Frames[i] != w {
						t.Errorf("frame %d:\n got %v\nwant %v", i, got.Frames[i], w)
					}
				}
				if got.Trailing != c.trailing {
					t.Errorf("trailing %q, want %q", got.Trailing, c.trailing)
				}
			}
		})
	}
}

func TestSSECRHeldUntilNextByte(t *testing.T) {
	p := NewSSEParser(0)
	p.Feed([]byte("data: a\r\n\r"))
	if f, err := p.Next(); f != nil || err != nil {
		t.Fatalf("frame before the byte after CR was known: %v %v", f, err)
	}
	p.Feed([]byte("\ndata: b\r\n\r"))
	f, err := p.Next()
	if err != nil || f == nil || string(f.Raw) != "data: a\r\n\r\n" {
		t.Fatalf("got %v %v", f, err)
	}
	if f, _ := p.Next(); f != nil {
		t.Fatalf("second frame too early: %q", f.Raw)
	}
	p.End()
	f, err = p.Next()
	if err != nil || f == nil || string(f.Raw) != "data: b\r\n\r" || string(f.Data) != "b" {
		t.Fatalf("at End got %v %v", f, err)
	}
	if len(p.Trailing()) != 0 {
		t.Fatalf("trailing %q", p.Trailing())
	}
}

func TestSSEMaxEvent(t *testing.T) {
	big := "data: " + strings.Repeat("x", 100) + "\n\n"
	in := []byte("data: ok\n\n" + big + "data: after\n\n")
	for _, cuts := range [][]int{nil, everyByte(len(in))} {
		got, err := parseSplit(in, cuts, 64)
		if err != nil {
			t.Fatal(err)
		}
		if !got.TooLarge || len(got.Frames) != 1 {
			t.Fatalf("want 1 frame then ErrEventTooLarge, got %d frames, tooLarge=%v", len(got.Frames), got.TooLarge)
		}
	}
	// An unterminated event is refused as soon as it passes the limit, so
	// a stream without blank lines cannot grow the buffer without bound.
	p := NewSSEParser(64)
	for i := 0; i < 10; i++ {
		p.Feed([]byte(strings.Repeat("y", 10)))
		if _, err := p.Next(); err != nil {
			if !errors.Is(err, ErrEventTooLarge) {
				t.Fatalf("wrong error %v", err)
			}
			if i < 6 {
				t.Fatalf("failed after only %d bytes", (i+1)*10)
			}
			if len(p.buf) > 128 {
				t.Fatalf("buffer grew to %d", len(p.buf))
			}
			p.Feed([]byte("\n\n"))
			if _, err2 := p.Next(); !errors.Is(err2, ErrEventTooLarge) {
				t.Fatalf("error is not sticky: %v", err2)
			}
			p.Reset()
			p.Feed([]byte("data: 1\n\n"))
			if f, err := p.Next(); err != nil || f == nil || string(f.Data) != "1" || f.Seq != 0 {
				t.Fatalf("after Reset: %v %v", f, err)
			}
			return
		}
	}
	t.Fatal("no error for an oversized unterminated event")
}

func TestSSEFeedAfterEnd(t *testing.T) {
	p := NewSSEParser(0)
	p.End()
	p.Feed([]byte("data: 1\n\n"))
	if _, err := p.Next(); !errors.Is(err, ErrFeedAfterEnd) {
		t.Fatalf("got %v", err)
	}
}

// AppendSSEData writes one data line whatever the payload: its line breaks,
// white space between JSON tokens, become spaces, so a relay parser takes
// the event back with the same JSON reading.
func TestAppendSSEData(t *testing.T) {
	cases := map[string]string{
		`{"a":1}`:             "data: {\"a\":1}\n\n",
		"{\n  \"a\": 1\n}":    "data: {   \"a\": 1 }\n\n",
		"{\r\n\"a\":\r[1]\n}": "data: {  \"a\": [1] }\n\n",
		"":                    "data: \n\n",
	}
	for in, want := range cases {
		got := FrameSSEData([]byte(in))
		if string(got) != want {
			t.Errorf("FrameSSEData(%q) = %q, want %q", in, got, want)
		}
		p := NewRelaySSEParser(0)
		p.Feed(got)
		f, err := p.Next()
		if err != nil || f == nil || f.DataLines != 1 || string(f.Raw) != want {
			t.Fatalf("relay parser on %q: %v %v", got, f, err)
		}
		if in != "" && !jsonEqual(t, f.Data, []byte(in)) {
			t.Errorf("payload %q reads as other JSON than %q", f.Data, in)
		}
	}
	if got := AppendSSEComment(nil, "held\nfor approval"); string(got) != ": held for approval\n\n" {
		t.Errorf("comment %q", got)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%q: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%q: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// A stray blank line is a frame of its own, with nothing in it but its
// line end, so that a relay passes it on and the stream stays byte exact.
func TestSSEStrayBlankLineIsAFrame(t *testing.T) {
	p := NewSSEParser(0)
	if p.max != DefaultMaxSSEEvent {
		t.Fatalf("limit %d, want the default %d", p.max, DefaultMaxSSEEvent)
	}
	p.Feed([]byte("\r\n: c\n\nretry: 5\n\n"))
	var raws []string
	for {
		f, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		if f == nil {
			break
		}
		bare := f.DataLines == 0 && !f.Comment && f.Event == nil && f.ID == nil
		if (len(raws) == 0) != (bare && string(f.Raw) == "\r\n") {
			t.Fatalf("frame %d: %+v", len(raws), f)
		}
		raws = append(raws, string(f.Raw))
	}
	if want := []string{"\r\n", ": c\n\n", "retry: 5\n\n"}; !reflect.DeepEqual(raws, want) {
		t.Fatalf("frames %q, want %q", raws, want)
	}
}
