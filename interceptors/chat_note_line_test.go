package interceptors

import (
	"strings"
	"testing"
)

// A block note starts on a line of its own after text that did not end
// one, also when no hook needs the answer's text kept (only pre_tool_use
// here), and directly after text that did.
func TestBlockNoteStartsOnItsOwnLine(t *testing.T) {
	e := engineFor(t, `
- id: block-all
  event: pre_tool_use
  handler: {type: script, source: 'function handle(e) { return {decision: "block", reason: "no tools"}; }'}
`)
	call := chunkLine(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"exec","arguments":"{}"}}]}`, "null") +
		chunkLine(`{}`, `"tool_calls"`) + "data: [DONE]\n\n"
	for _, c := range []struct{ text, want string }{
		{`"Let me look"`, "Let me look\n[hookgate] tool call exec blocked by block-all: no tools"},
		{`"Let me look\n"`, "Let me look\n[hookgate] tool call exec blocked by block-all: no tools"},
		{`"a backslash \\n"`, "a backslash \\n\n[hookgate]"},
		{`null`, "[hookgate] tool call exec"},
	} {
		out := relay(t, e, chunkLine(`{"role":"assistant","content":`+c.text+`}`, "null")+call)
		_, text := callsOf(t, out)
		if !strings.HasPrefix(text, c.want) {
			t.Errorf("content %s: the client read %q, want it to start %q", c.text, text, c.want)
		}
	}
}
