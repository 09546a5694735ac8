package providers

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// TestRelaySSELineForms: for each line form, what a relay parser passes on
// (the frames' Raw, concatenated), or that it refuses the stream and with
// which form, after passing on the events before it. Every input is also
// fed one byte at a time, and what is passed on is handed to the clients'
// readers (checkClientsReadAsRelay).
func TestRelaySSELineForms(t *testing.T) {
	const call = `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"exec","arguments":"{\"cmd\":\"rm -rf /\"}"}}]}}]}`
	cases := []struct {
		name     string
		in       string
		out      string // passed on before the end or the refusal
		refused  string // the form refused, "" for none
		trailing string
	}{
		{name: "LF", in: "data: {}\n\ndata: [DONE]\n\n", out: "data: {}\n\ndata: [DONE]\n\n"},
		{name: "CRLF kept as it came", in: "data: {}\r\n\r\n: c\r\n\r\n", out: "data: {}\r\n\r\n: c\r\n\r\n"},
		{name: "comment, event, id, retry kept", in: ": ping\nevent: e\nid: 1\nretry: 5\ndata: {}\n\n", out: ": ping\nevent: e\nid: 1\nretry: 5\ndata: {}\n\n"},
		{name: "data without colon kept", in: "data\n\n", out: "data\n\n"},
		{name: "BOM at the start dropped", in: "\uFEFFdata: {}\n\n", out: "data: {}\n\n"},
		{name: "BOM at the start before a blank line", in: "\uFEFF\ndata: {}\n\n", out: "\ndata: {}\n\n"},
		{name: "BOM at the start of a CRLF stream", in: "\uFEFFdata: {}\r\n\r\n", out: "data: {}\r\n\r\n"},
		{name: "two BOMs at the start", in: "\uFEFF\uFEFFdata: " + call + "\n\n", refused: formLenientField},
		{name: "BOM on a later line before data", in: "data: {}\n\n\uFEFFdata: " + call + "\n\n", out: "data: {}\n\n", refused: formLenientField},
		{name: "BOM on a later line before event", in: "data: {}\n\n\uFEFFevent: x\ndata: {}\n\n", out: "data: {}\n\n", refused: formLenientField},
		{name: "lone BOM line dropped", in: "data: {}\n\uFEFF\n\n", out: "data: {}\n\n"},
		{name: "unknown field dropped", in: "data: {}\nfoo: bar\n\n", out: "data: {}\n\n"},
		{name: "unknown field dropped, CRLF", in: "foo: bar\r\ndata: {}\r\n\r\n", out: "data: {}\r\n\r\n"},
		{name: "event of unknown fields only", in: "foo: 1\nbar\n\ndata: {}\n\n", out: "\ndata: {}\n\n"},
		{name: "unknown field after comment keeps a comment event", in: ": c\nx: y\n\n", out: ": c\n\n"},
		{name: "case variant is unknown, dropped", in: "DATA: " + call + "\nData: {}\n\n", out: "\n"},
		{name: "space before the colon is unknown, dropped", in: "data : " + call + "\n\n", out: "\n"},
		{name: "white space only line dropped", in: "data: {}\n \t\n\n", out: "data: {}\n\n"},
		{name: "leading space before data (Novita)", in: " data: " + call + "\n\n", refused: formLenientField},
		{name: "leading tab before data", in: "\tdata: " + call + "\n\n", refused: formLenientField},
		{name: "leading space before event", in: " event: x\ndata: {}\n\n", refused: formLenientField},
		{name: "leading space before id", in: "  id: 1\n\n", refused: formLenientField},
		{name: "BOM then space before data", in: "data: {}\n\n\uFEFF data: {}\n\n", out: "data: {}\n\n", refused: formLenientField},
		{name: "leading space before a colonless data", in: " data\n\n", refused: formLenientField},
		{name: "several data lines", in: "data: " + call + "\ndata: {}\n\n", refused: formSeveralData},
		{name: "several empty data lines", in: "data\ndata\n\n", refused: formSeveralData},
		{name: "data lines of one pretty-printed payload", in: "data: {\ndata: \"a\": 1\ndata: }\n\n", refused: formSeveralData},
		{name: "bare CR ends an event", in: "data: {}\r\rdata: {}\n\n", refused: formBareCR},
		{name: "bare CR inside a line", in: ": c\rdata: " + call + "\n\n", refused: formBareCR},
		{name: "bare CR between data lines", in: "data: {}\rdata: " + call + "\n\n", refused: formBareCR},
		{name: "bare CR as the last byte", in: "data: {}\n\n\r", out: "data: {}\n\n", refused: formBareCR},
		{name: "CR CR LF", in: "data: {}\r\r\n\n", refused: formBareCR},
		{name: "space and tab edges are JSON white space", in: "data:  {} \t\ndata:\t[DONE]\n\n", refused: formSeveralData},
		{name: "space and tab edges relayed", in: "data:  {} \t\n\ndata:\t{}\n\n", out: "data:  {} \t\n\ndata:\t{}\n\n"},
		{name: "trailing vertical tab", in: "data: " + call + "\v\n\n", refused: formDataSpace},
		{name: "trailing form feed", in: "data: " + call + "\f\n\n", refused: formDataSpace},
		{name: "trailing NBSP", in: "data: " + call + "\u00a0\n\n", refused: formDataSpace},
		{name: "trailing NEL", in: "data: " + call + "\u0085\n\n", refused: formDataSpace},
		{name: "trailing ideographic space after a space", in: "data: " + call + " \u3000\n\n", refused: formDataSpace},
		{name: "leading form feed (go-openai's \\s strips it)", in: "data:\f" + call + "\n\n", refused: formDataSpace},
		{name: "leading NBSP", in: "data: \u00a0" + call + "\n\n", refused: formDataSpace},
		{name: "DONE with a trailing line separator", in: "data: [DONE]\u2028\n\n", refused: formDataSpace},
		{name: "unterminated event at EOF", in: "data: {}\n\ndata: [DONE]\n", out: "data: {}\n\n", trailing: "data: [DONE]\n"},
		{name: "unterminated line at EOF", in: "data: {}\n\ndata: [DO", out: "data: {}\n\n", trailing: "data: [DO"},
		{name: "part of a BOM only", in: "\xef\xbb", trailing: "\xef\xbb"},
	}
	for _, r := range []rune{'\t', '\v', '\f', ' ', 0x85, 0xA0, 0x1680, 0x2000, 0x2005, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF} {
		cases = append(cases, struct {
			name     string
			in       string
			out      string
			refused  string
			trailing string
		}{name: fmt.Sprintf("leading %U before data", r), in: "data: {}\n\n" + string(r) + "data: " + call + "\n\n", out: "data: {}\n\n", refused: formLenientField})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := []byte(c.in)
			for _, cuts := range [][]int{nil, everyByte(len(in))} {
				p := NewRelaySSEParser(0)
				var out []byte
				var err error
				drain := func() bool {
					for {
						var f *SSEFrame
						f, err = p.Next()
						if f == nil || err != nil {
							return err == nil
						}
						out = append(out, f.Raw...)
					}
				}
				prev, ok := 0, true
				for _, cut := range append(cuts, len(in)) {
					p.Feed(in[prev:cut])
					if ok = drain(); !ok {
						break
					}
					prev = cut
				}
				if ok {
					p.End()
					drain()
				}
				if string(out) != c.out {
					t.Errorf("cuts %d: passed on %q, want %q", len(cuts), out, c.out)
				}
				var form *SSELineFormError
				switch {
				case c.refused == "" && err != nil:
					t.Errorf("cuts %d: unexpected error %v", len(cuts), err)
				case c.refused != "" && (!errors.As(err, &form) || form.Form != c.refused || !errors.Is(err, ErrSSEAmbiguous)):
					t.Errorf("cuts %d: error %v, want the form %q", len(cuts), err, c.refused)
				case c.refused == "" && string(p.Trailing()) != c.trailing:
					t.Errorf("cuts %d: trailing %q, want %q", len(cuts), p.Trailing(), c.trailing)
				}
			}
			checkClientsReadAsRelay(t, in)
		})
	}
}

// Each form the relay parser refuses lets a client read the call that a
// reader following the SSE rules (hookgate's) does not, or reads it
// otherwise: a real difference, so refusing it is needed. What is passed
// on before the refusal carries no call for go-openai.
func TestRelaySSERefusedFormsHideACallFromSpecReaders(t *testing.T) {
	const call = `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"exec","arguments":"{}"}}]}}]}`
	forms := map[string]string{
		"leading space":                 "data: {}\n\n data: " + call + "\n\n",
		"leading NBSP":                  "data: {}\n\n\u00a0data: " + call + "\n\n",
		"leading U+3000":                "data: {}\n\n\u3000data: " + call + "\n\n",
		"trailing vertical tab":         "data: {}\n\ndata: " + call + "\v\n\n",
		"leading form feed after colon": "data: {}\n\ndata:\f" + call + "\n\n",
		"call then empty object":        "data: {}\n\ndata: " + call + "\ndata: {}\n\n",
	}
	for name, in := range forms {
		t.Run(name, func(t *testing.T) {
			if got := goOpenAIToolCalls(t, []byte(in)); len(got) == 0 {
				t.Fatalf("go-openai reads no call from the raw input; the case shows nothing")
			}
			spec := false
			for _, f := range mustParse(t, NewSSEParser(0), in) {
				if strings.Contains(f, `"tool_calls"`) && strings.HasPrefix(f, "{") && strings.HasSuffix(f, "}") {
					spec = true
				}
			}
			if spec && !strings.Contains(name, "empty object") {
				t.Fatalf("a spec reader reads the call's JSON as it is; the case is no difference")
			}
			out, _, refused, _ := relayReading(t, []byte(in))
			if !refused {
				t.Fatalf("not refused; passed on %q", out)
			}
			if got := goOpenAIToolCalls(t, out); len(got) != 0 {
				t.Fatalf("go-openai reads %q from what was passed on", got)
			}
		})
	}
}

func mustParse(t *testing.T, p *SSEParser, in string) []string {
	t.Helper()
	p.Feed([]byte(in))
	p.End()
	var data []string
	for {
		f, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		if f == nil {
			return data
		}
		data = append(data, string(f.Data))
	}
}

// Recorded traffic passes a relay parser untouched: every frame's Raw is
// the input's bytes (CRLF kept), and the frames are the spec parser's. One
// recording is refused at its first line: Novita's stream, relayed by
// OpenRouter, begins with " data:" (a leading space), an unknown field to
// the SSE rules that go-openai reads as data.
func TestRelaySSEFixturesUnchanged(t *testing.T) {
	const refusedRecording = "openrouter/chat-novita-kimi-name-without-arguments-key.sse"
	seen := false
	for _, fx := range fixtures.List(t, fixtures.APIUnknown, fixtures.KindSSE) {
		t.Run(fx.Rel, func(t *testing.T) {
			in := fx.Read(t)
			got, err := parseRelaySplit(in, everyByte(len(in)), 0)
			if err != nil {
				t.Fatal(err)
			}
			if fx.Rel == refusedRecording {
				seen = true
				if !got.Refused || len(got.Frames) != 0 {
					t.Fatalf("want a refusal before any frame, got %d frames, refused=%v", len(got.Frames), got.Refused)
				}
				return
			}
			if got.Refused || got.TooLarge || string(concatRaw(got)) != string(in) {
				t.Fatalf("refused=%v tooLarge=%v, or passed on other bytes than the recording", got.Refused, got.TooLarge)
			}
			spec, _ := parseSplit(in, nil, 0)
			if d := diffResults(spec, got); d != "" {
				t.Fatalf("relay vs spec parser: %s", d)
			}
			checkClientsReadAsRelay(t, in)
		})
	}
	if !seen {
		t.Fatalf("%s is not among the fixtures", refusedRecording)
	}
}
