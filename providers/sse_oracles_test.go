package providers

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	anthropicsse "github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"
	openaisse "github.com/openai/openai-go/v3/packages/ssestream"
	goopenai "github.com/sashabaranov/go-openai"
)

// The SSE readers of real clients, run in process over a body: what each of
// them takes out of a stream hookgate relays. They are the oracles of the
// relay parser's tests and fuzzers.

// sseReading is one event with data, as a client reads it.
type sseReading struct {
	Event, Data string
}

// namedOnly marks, in a relay parser's reading, an event with a name but
// no data line: anthropic-sdk-go yields it (with empty data), the others
// do not.
const namedOnly = "\x00named only"

// bodyDoer answers every request with body as a 200 event stream.
type bodyDoer []byte

func (b bodyDoer) Do(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(b))}, nil
}

func goOpenAIStream(t testing.TB, body []byte) *goopenai.ChatCompletionStream {
	t.Helper()
	cfg := goopenai.DefaultConfig("test")
	cfg.HTTPClient = bodyDoer(body)
	cfg.EmptyMessagesLimit = 1 << 20
	s, err := goopenai.NewClientWithConfig(cfg).CreateChatCompletionStream(context.Background(), goopenai.ChatCompletionRequest{Model: "m"})
	if err != nil {
		t.Fatalf("go-openai: %v", err)
	}
	return s
}

// goOpenAIPayloads is every payload go-openai's stream reader returns
// (RecvRaw), up to its end or first error.
func goOpenAIPayloads(t testing.TB, body []byte) []string {
	s := goOpenAIStream(t, body)
	defer s.Close()
	var out []string
	for {
		raw, err := s.RecvRaw()
		if err != nil {
			return out
		}
		out = append(out, string(raw))
	}
}

// goOpenAIToolCalls is the names and arguments of every tool-call delta
// go-openai decodes, up to its end or first error.
func goOpenAIToolCalls(t testing.TB, body []byte) []string {
	s := goOpenAIStream(t, body)
	defer s.Close()
	var out []string
	for {
		chunk, err := s.Recv()
		if err != nil {
			return out
		}
		for _, c := range chunk.Choices {
			for _, tc := range c.Delta.ToolCalls {
				out = append(out, tc.Function.Name+tc.Function.Arguments)
			}
		}
	}
}

// goSDKEvents is what the ssestream decoder of openai-go (or, with
// anthropic set, of anthropic-sdk-go) yields: each event's type and data,
// without the line feed the decoder ends data with.
func goSDKEvents(body []byte, anthropic bool) []sseReading {
	res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(body))}
	var out []sseReading
	if anthropic {
		d := anthropicsse.NewDecoder(res)
		for d.Next() {
			e := d.Event()
			out = append(out, sseReading{e.Type, strings.TrimSuffix(string(e.Data), "\n")})
		}
		return out
	}
	d := openaisse.NewDecoder(res)
	for d.Next() {
		e := d.Event()
		out = append(out, sseReading{e.Type, strings.TrimSuffix(string(e.Data), "\n")})
	}
	return out
}

// jsSDKEvents models the decoders of the JS SDKs (openai, @anthropic-ai/sdk):
// lines split at CR, LF or CRLF; each line decoded alone by a TextDecoder,
// which drops one byte-order mark at its start; then the SSE rules, an
// event dispatched at a blank line when it has data or an event name. A
// last line without its line ending is still read. Events without data
// are left out (every SDK then fails on JSON.parse("")).
func jsSDKEvents(body []byte) []sseReading {
	var out []sseReading
	var event string
	var data []string
	s := string(body)
	for s != "" {
		i := strings.IndexAny(s, "\r\n")
		line := s
		if i < 0 {
			s = ""
		} else {
			line = s[:i]
			s = s[i+1:]
			if strings.HasPrefix(s, "\n") && body[len(body)-len(s)-1] == '\r' {
				s = s[1:]
			}
		}
		line = strings.TrimPrefix(line, "\uFEFF")
		if line == "" {
			if len(data) > 0 {
				out = append(out, sseReading{event, strings.Join(data, "\n")})
			}
			event, data = "", nil
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "event":
			event = value
		case "data":
			data = append(data, value)
		}
	}
	return out
}

// relayReading is what a relay parser makes of in, fed whole: the frames'
// bytes as a relay passes them on, and each data-carrying event. refused
// reports the parser stopped at a line form; complete that the stream
// ended with nothing after its last event.
func relayReading(t testing.TB, in []byte) (out []byte, read []sseReading, refused, complete bool) {
	t.Helper()
	p := NewRelaySSEParser(0)
	p.Feed(in)
	p.End()
	for {
		f, err := p.Next()
		if err != nil {
			if !errors.Is(err, ErrSSEAmbiguous) {
				t.Fatalf("relay parser: %v", err)
			}
			return out, read, true, false
		}
		if f == nil {
			return out, read, false, len(p.Trailing()) == 0
		}
		out = append(out, f.Raw...)
		switch {
		case f.DataLines > 0:
			read = append(read, sseReading{string(f.Event), string(f.Data)})
		case len(f.Event) > 0:
			read = append(read, sseReading{string(f.Event), namedOnly})
		}
	}
}

// checkClientsReadAsRelay holds the relay parser's promise for one input:
// from what a relay passes on, no client reads a payload the parser did
// not read, in the same place (what a relay passes on always ends at an
// event's blank line: an unfinished event is never written). go-openai, which ignores events, must read
// the data in the parser's order (a prefix: it stops at [DONE] or at an
// error line); the Go SDKs and the JS model read the same events.
func checkClientsReadAsRelay(t *testing.T, in []byte) {
	t.Helper()
	out, all, _, _ := relayReading(t, in)
	var want []string
	var read, named []sseReading
	for _, r := range all {
		if r.Data == namedOnly {
			named = append(named, sseReading{r.Event, ""})
			continue
		}
		read = append(read, r)
		named = append(named, r)
		if d := strings.Trim(r.Data, " \t"); d != "" {
			want = append(want, d)
		}
	}
	var got []string
	for _, p := range goOpenAIPayloads(t, out) {
		if p != "" {
			got = append(got, p)
		}
	}
	if len(got) > len(want) {
		t.Fatalf("go-openai read %d payloads, the relay parser %d\nin:  %q\nout: %q\ngo-openai: %q\nrelay: %q", len(got), len(want), in, out, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("go-openai payload %d = %q, relay parser read %q\nin:  %q\nout: %q", i, got[i], want[i], in, out)
		}
	}
	for name, events := range map[string][]sseReading{
		"openai-go":        goSDKEvents(out, false),
		"anthropic-sdk-go": goSDKEvents(out, true),
		"js sdks (model)":  jsSDKEvents(out),
	} {
		want := read
		if name == "anthropic-sdk-go" {
			want = named
		}
		if !equalReadings(events, want) {
			t.Fatalf("%s read %q, the relay parser %q\nin:  %q\nout: %q", name, events, want, in, out)
		}
	}
}

func equalReadings(a, b []sseReading) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
