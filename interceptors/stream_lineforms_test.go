package interceptors

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// A chat stream with a line form that clients read in different ways ends
// with the route's error event (ambiguous_stream) under a blocking hook,
// and with none: the call in the offending line never reaches the client,
// nor does anything after it. A stream that stops inside an event, even
// after [DONE], is a truncation.
func TestChatStreamLineFormsAreRefused(t *testing.T) {
	blocking := engineFor(t, `
- id: no-exec
  event: pre_tool_use
  matcher: exec
  handler: {type: script, source: 'function handle(e) { return {decision: "block", reason: "no exec"}; }'}
`)
	call := `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}}]},"finish_reason":null}]}`
	head := chunkLine(`{"role":"assistant","content":"hi"}`, "null")
	tail := chunkLine(`{}`, `"tool_calls"`) + "data: [DONE]\n\n"
	cases := []struct {
		name, stream, code string
	}{
		{"leading space before data", head + " data: " + call + "\n\n" + tail, "ambiguous_stream"},
		{"BOM before data", head + "\uFEFFdata: " + call + "\n\n" + tail, "ambiguous_stream"},
		{"NBSP before data", head + "\u00a0data: " + call + "\n\n" + tail, "ambiguous_stream"},
		{"call then an empty object", head + "data: " + call + "\ndata: {}\n\n" + tail, "ambiguous_stream"},
		{"bare CR", head + "data: {}\rdata: " + call + "\n\n" + tail, "ambiguous_stream"},
		{"trailing vertical tab", head + "data: " + call + "\v\n\n" + tail, "ambiguous_stream"},
		{"unterminated after DONE", head + tail + "data: " + call + "\n", "stream_truncated"},
	}
	for _, c := range cases {
		for _, policy := range []struct {
			name string
			opts Options
		}{{"blocking hook", Options{Engine: blocking}}, {"no hook", Options{}}} {
			t.Run(c.name+"/"+policy.name, func(t *testing.T) {
				ex, err := NewChat(policy.opts).Begin(context.Background(), &Request{Route: "/v1/chat/completions",
					Body: []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`)})
				if err != nil {
					t.Fatal(err)
				}
				var out bufferSink
				err = ex.RelayStream(context.Background(), strings.NewReader(c.stream), &out)
				if err == nil || (c.code == "stream_truncated") != errors.Is(err, ErrTruncated) {
					t.Fatalf("relay error %v\n%s", err, out.String())
				}
				got := out.String()
				if !strings.HasSuffix(got, "\n\n") || !strings.Contains(got[strings.LastIndex(got[:len(got)-2], "\n\n")+2:], `"code":"`+c.code+`"`) {
					t.Fatalf("the stream does not end with the %s error event:\n%s", c.code, got)
				}
				if strings.Contains(got, "rm -rf") || strings.Contains(got, `"exec"`) {
					t.Fatalf("the call reached the client:\n%s", got)
				}
			})
		}
	}
}
