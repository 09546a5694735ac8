package providers

import (
	"bytes"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// FuzzResponsesEvent feeds arbitrary payloads to the event view, the
// output reader and the edits hookgate makes to events: nothing panics, and
// every edit that succeeds returns valid JSON that reads back as edited.
func FuzzResponsesEvent(f *testing.F) {
	for _, fx := range fixtures.List(f, fixtures.APIResponses, fixtures.KindChunks) {
		for _, line := range bytes.Split(fx.Read(f), []byte("\n")) {
			if len(line) < 2048 {
				f.Add(line)
			}
		}
	}
	for _, fx := range fixtures.List(f, fixtures.APIResponses, fixtures.KindSSE) {
		for _, line := range bytes.Split(fx.Read(f), []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok && len(d) < 2048 {
				f.Add(d)
			}
		}
	}
	f.Add([]byte(`{"type":"response\u002ecompleted","response":{"output":[{"type":"function_call","arguments":{"a":1}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var ev ResponsesEvent
		if err := ev.Decode(data); err != nil {
			return
		}
		_ = ev.Final().Text()
		_ = ev.ResponseID().Text()
		_ = ResponsesEventType(data)
		if ev.Kind.HasResponse() {
			if r, err := ReadResponsesOutput(data, EventOutput); err == nil {
				for _, c := range r.Calls() {
					out, err := SetResponsesOutputInput(data, EventOutput, c.Pos, c.Kind, "{}")
					if err == nil && (!gjson.ValidBytes(out) || gjson.GetBytes(out, "response.output."+itoa(c.Pos)+"."+c.Kind.Member()).Str != "{}") {
						t.Fatalf("set input: %s", out)
					}
					if out, err := replaceResponsesOutputItem(data, EventOutput, c.Pos, MessageItem("m", "n")); err == nil && !gjson.ValidBytes(out) {
						t.Fatalf("replace item: %s", out)
					}
				}
			}
		}
		if out, err := SetSequenceNumber(data, 5); err == nil {
			var back ResponsesEvent
			if back.Decode(out) != nil || !back.HasSequence || back.Sequence != 5 {
				t.Fatalf("renumbered: %s", out)
			}
		}
		if k := ev.Item.CallKind(); k != NotACall {
			if out, err := SetItemCallInput(data, k, `{"x":1}`); err == nil && !gjson.ValidBytes(out) {
				t.Fatalf("item input: %s", out)
			}
		}
	})
}

// FuzzResponsesRequest feeds arbitrary bodies to the request view and its
// edits: nothing panics, and every edit that succeeds is valid JSON.
func FuzzResponsesRequest(f *testing.F) {
	f.Add([]byte(respLoopRequest))
	f.Add([]byte(`{"input":"hi","instructions":null}`))
	f.Add([]byte(`{"input":[{"role":"user","content":null}],"instructions":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseResponsesRequest(body)
		if err != nil {
			return
		}
		check := func(out []byte, err error) {
			if err == nil && !gjson.ValidBytes(out) {
				t.Fatalf("invalid JSON from an edit: %s", out)
			}
		}
		check(InjectInstructions(body, "ctx", false))
		check(InjectInstructions(body, "ctx", true))
		check(AddToolOutputs(body, []ToolOutput{{Kind: FunctionCall, CallID: "c", Output: "blocked"}}))
		for _, it := range r.Input {
			if it.Type == "message" {
				check(AppendToInputMessage(body, it.Pos, "\n\nmore"))
			}
			if it.IsOutput() {
				check(ReplaceToolOutput(body, it.CallID, "x"))
			}
		}
	})
}
