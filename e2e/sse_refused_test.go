package e2e

import (
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/fixtures"
	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/tidwall/gjson"
)

// refusedRecordings are the recorded streams that hookgate does not relay,
// each with the reason. Every other recording passes byte for byte.
var refusedRecordings = map[string]string{
	// Novita, through OpenRouter, begins its stream with " data:": a
	// leading space makes an unknown field to the SSE rules (the JS SDKs
	// ignore the line), which go-openai trims and reads as data. hookgate
	// refuses a line that clients read in different ways.
	"openrouter/chat-novita-kimi-name-without-arguments-key.sse": `begins with " data:"`,
}

// expectRefusedRecording replays body on every chunking: the client gets
// one event, the route's error (code ambiguous_stream), and nothing of the
// recording; go-openai and openai-go report an error and read no call.
func expectRefusedRecording(t *testing.T, s *stack, body []byte) {
	t.Helper()
	for _, c := range chunkings {
		s.mock.Handle(mockupstream.Always(mockupstream.Stream(body, c)))
		status, _, got := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[]}`), nil)
		data, ok := strings.CutPrefix(string(got), "data: ")
		data, end := strings.CutSuffix(data, "\n\n")
		if status != 200 || !ok || !end || strings.Contains(data, "\n") || gjson.Get(data, "error.code").String() != "ambiguous_stream" {
			t.Fatalf("%s: status %d; want only the error event (ambiguous_stream), got %q", c.Mode, status, got)
		}
	}
	s.mock.Handle(mockupstream.Always(mockupstream.Stream(body, chunkings[0])))
	for name, read := range map[string]func(*testing.T, string) assembled{"go-openai": goOpenAIStream, "openai-go": openaiGoStream} {
		if got := read(t, s.app.URL()); got.Err == "" || len(got.ToolCalls) != 0 || got.Content != "" {
			t.Errorf("%s read %s, want an error and nothing else", name, got)
		}
	}
}

// The refused recordings are refused under every policy: no hook, a hook
// that allows every call, one that blocks them.
func TestRefusedRecordingsEndWithTheRouteErrorEvent(t *testing.T) {
	for _, policy := range []struct{ name, doc string }{{"no hook", ""}, {"allow", allowEveryTool}, {"block", blockEveryTool}} {
		t.Run(policy.name, func(t *testing.T) {
			s := startStack(t, policy.doc)
			n := 0
			for _, f := range fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindSSE) {
				if refusedRecordings[f.Rel] != "" {
					n++
					t.Run(f.Rel, func(t *testing.T) { expectRefusedRecording(t, s, f.Read(t)) })
				}
			}
			if n != len(refusedRecordings) {
				t.Fatalf("found %d of the %d refused recordings among the fixtures", n, len(refusedRecordings))
			}
		})
	}
}
