package providers

import (
	"errors"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
)

// An agent loop on the Responses API, as the Agents SDK sends it: an
// instruction, a user message with parts, a call and its output, a custom
// tool call and its output.
const respLoopRequest = `{"model":"gpt-5","stream":true,"instructions":"Be brief.","previous_response_id":"resp_1","user":"u-7",` +
	`"input":[{"role":"developer","content":"Use metric units."},` +
	`{"type":"message","role":"user","content":[{"type":"input_text","text":"Weather in Paris?"},{"type":"input_image","image_url":"x"}]},` +
	`{"type":"function_call","call_id":"call_a","name":"weather","arguments":"{\"city\":\"Paris\"}"},` +
	`{"type":"function_call_output","call_id":"call_a","output":"18C"},` +
	`{"type":"custom_tool_call","call_id":"call_p","name":"apply_patch","input":"*** Begin Patch"},` +
	`{"type":"custom_tool_call_output","call_id":"call_p","output":[{"type":"input_text","text":"done"}]}],` +
	`"tools":[{"type":"function","name":"weather"},{"type":"custom","name":"apply_patch"},{"type":"web_search"}]}`

func TestParseResponsesRequest(t *testing.T) {
	r, err := ParseResponsesRequest([]byte(respLoopRequest))
	if err != nil {
		t.Fatal(err)
	}
	want := &ResponsesRequest{
		Model: "gpt-5", Stream: true, User: "u-7", PreviousResponseID: "resp_1",
		Instructions: "Be brief.", InstructionsState: FieldString,
		Input: []ResponsesInputItem{
			{Pos: 0, Type: "message", Role: "developer", Text: "Use metric units."},
			{Pos: 1, Type: "message", Role: "user", Text: "Weather in Paris?"},
			{Pos: 2, Type: "function_call", Kind: FunctionCall, CallID: "call_a", Name: "weather", Input: `{"city":"Paris"}`},
			{Pos: 3, Type: "function_call_output", CallID: "call_a", Output: "18C", OutputKind: FunctionCall},
			{Pos: 4, Type: "custom_tool_call", Kind: CustomToolCall, CallID: "call_p", Name: "apply_patch", Input: "*** Begin Patch"},
			{Pos: 5, Type: "custom_tool_call_output", CallID: "call_p", Output: "done", OutputKind: CustomToolCall},
		},
		ToolTypes: []string{"function", "custom", "web_search"},
	}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got  %+v\nwant %+v", r, want)
	}
	if got := r.SystemText(); got != "Be brief.\n\nUse metric units." {
		t.Fatalf("system text %q", got)
	}

	s, err := ParseResponsesRequest([]byte(`{"model":"m","input":"hi","safety_identifier":"s-1"}`))
	if err != nil || !s.InputString || len(s.Input) != 1 || s.Input[0] != (ResponsesInputItem{Pos: InputStringPos, Type: "message", Role: "user", Text: "hi"}) || s.User != "s-1" {
		t.Fatalf("string input: %+v %v", s, err)
	}
	for body, want := range map[string]string{`{"conversation":"conv_1"}`: "conv_1", `{"conversation":{"id":"conv_2"}}`: "conv_2"} {
		if c, err := ParseResponsesRequest([]byte(body)); err != nil || c.Conversation != want {
			t.Errorf("%s: conversation %+v %v", body, c, err)
		}
	}
	for _, bad := range []string{`[]`, `{"input":3}`, `{"input":"a","input":"b"}`, `{"model":`} {
		if _, err := ParseResponsesRequest([]byte(bad)); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("%s: err %v, want ErrInvalidJSON", bad, err)
		}
	}
}

func TestResponsesRequestEdits(t *testing.T) {
	body := []byte(respLoopRequest)
	tests := []struct {
		name  string
		edit  func([]byte) ([]byte, error)
		check map[string]string // gjson path -> raw value
	}{
		{"instructions before", func(b []byte) ([]byte, error) { return InjectInstructions(b, "CTX", false) },
			map[string]string{"instructions": `"CTX\n\nBe brief."`}},
		{"instructions after", func(b []byte) ([]byte, error) { return InjectInstructions(b, "CTX", true) },
			map[string]string{"instructions": `"Be brief.\n\nCTX"`}},
		{"instructions set", func([]byte) ([]byte, error) {
			return InjectInstructions([]byte(`{"input":"x","instructions":null}`), "CTX", false)
		},
			map[string]string{"instructions": `"CTX"`}},
		{"instructions as items", func([]byte) ([]byte, error) {
			return InjectInstructions([]byte(`{"instructions":[{"role":"developer","content":"A"}]}`), "CTX", false)
		}, map[string]string{"instructions.0.content": `"CTX"`, "instructions.1.content": `"A"`}},
		{"tool output", func(b []byte) ([]byte, error) { return ReplaceToolOutput(b, "call_a", "redacted") },
			map[string]string{"input.3.output": `"redacted"`, "input.5.output.0.text": `"done"`}},
		{"custom tool output", func(b []byte) ([]byte, error) { return ReplaceToolOutput(b, "call_p", "ok") },
			map[string]string{"input.5.output": `"ok"`, "input.3.output": `"18C"`}},
		{"user parts", func(b []byte) ([]byte, error) { return AppendToInputMessage(b, 1, "\n\nmore") },
			map[string]string{"input.1.content.2": `{"type":"input_text","text":"\n\nmore"}`}},
		{"user string", func([]byte) ([]byte, error) {
			return AppendToInputMessage([]byte(`{"input":"hi"}`), InputStringPos, "!")
		},
			map[string]string{"input": `"hi!"`}},
		{"outputs before a string", func([]byte) ([]byte, error) {
			return AddToolOutputs([]byte(`{"previous_response_id":"r","input":"next"}`), []ToolOutput{{Kind: FunctionCall, CallID: "c1", Output: "blocked by h: no"}})
		}, map[string]string{"input": `[{"type":"function_call_output","call_id":"c1","output":"blocked by h: no"},{"role":"user","content":"next"}]`}},
		{"outputs before items", func(b []byte) ([]byte, error) {
			return AddToolOutputs(b, []ToolOutput{{Kind: CustomToolCall, CallID: "c2", Output: "x"}})
		}, map[string]string{"input.0": `{"type":"custom_tool_call_output","call_id":"c2","output":"x"}`, "input.1.role": `"developer"`, "input.#": `7`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.edit(body)
			if err != nil {
				t.Fatal(err)
			}
			if !gjson.ValidBytes(out) {
				t.Fatalf("invalid JSON: %s", out)
			}
			for p, want := range tt.check {
				if got := gjson.GetBytes(out, p).Raw; got != want {
					t.Errorf("%s = %s, want %s\n%s", p, got, want, out)
				}
			}
		})
	}
	if string(body) != respLoopRequest {
		t.Fatal("an edit wrote to its input")
	}
	if _, err := ReplaceToolOutput(body, "nope", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing output: %v", err)
	}
	if _, err := AppendToInputMessage(body, 2+10, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing message: %v", err)
	}
}
