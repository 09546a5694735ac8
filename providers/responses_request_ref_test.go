package providers

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// The gjson-based view ParseResponsesRequest replaced, kept as the
// reference the one-pass view must agree with exactly (values, errors,
// oddities).

// refParseResponsesRequest is the former ParseResponsesRequest: it reads a Responses request. It fails with
// ErrInvalidJSON for a body that is not a JSON object, repeats a key, or
// has an input that is neither a string nor an array.
func refParseResponsesRequest(body []byte) (*ResponsesRequest, error) {
	root, err := parseBody(body, "responses request")
	if err != nil {
		return nil, err
	}
	r := &ResponsesRequest{
		Model:              root.Get("model").String(),
		Stream:             root.Get("stream").Bool(),
		Background:         root.Get("background").Bool(),
		User:               root.Get("user").String(),
		PreviousResponseID: root.Get("previous_response_id").String(),
	}
	if r.User == "" {
		r.User = root.Get("safety_identifier").String()
	}
	if c := root.Get("conversation"); c.Type == gjson.String {
		r.Conversation = c.Str
	} else if c.IsObject() {
		r.Conversation = c.Get("id").String()
	}
	switch ins := root.Get("instructions"); {
	case !ins.Exists():
		r.InstructionsState = FieldAbsent
	case ins.Type == gjson.Null:
		r.InstructionsState = FieldNull
	case ins.Type == gjson.String:
		r.Instructions, r.InstructionsState = ins.Str, FieldString
		if ins.Str == "" {
			r.InstructionsState = FieldEmpty
		}
	default:
		r.InstructionsState = FieldOther
	}
	switch in := root.Get("input"); {
	case in.Type == gjson.String:
		r.InputString = true
		r.Input = []ResponsesInputItem{{Pos: InputStringPos, Type: "message", Role: "user", Text: in.Str}}
	case in.IsArray():
		pos := 0
		in.ForEach(func(_, v gjson.Result) bool {
			r.Input = append(r.Input, refReadInputItem(pos, v))
			pos++
			return true
		})
	case in.Exists() && in.Type != gjson.Null:
		return nil, fmt.Errorf("responses request: input is %s, neither a string nor an array: %w", in.Type, ErrInvalidJSON)
	}
	root.Get("tools").ForEach(func(_, t gjson.Result) bool {
		r.ToolTypes = append(r.ToolTypes, t.Get("type").String())
		return true
	})
	return r, nil
}

func refReadInputItem(pos int, v gjson.Result) ResponsesInputItem {
	it := ResponsesInputItem{Pos: pos, Type: v.Get("type").String(), Role: v.Get("role").String()}
	if it.Type == "" && it.Role != "" {
		it.Type = "message"
	}
	switch it.Type {
	case "message":
		it.Text, _ = refInputText(v.Get("content"))
	case "function_call", "custom_tool_call":
		it.Kind = ResponsesCallKindOf([]byte(it.Type))
		it.CallID, it.Name = v.Get("call_id").String(), v.Get("name").String()
		if in := v.Get(it.Kind.Member()); in.Type == gjson.String {
			it.Input = in.Str
		} else if in.Exists() && in.Type != gjson.Null {
			it.Input = in.Raw
		}
	case "function_call_output", "custom_tool_call_output":
		it.OutputKind = FunctionCall
		if it.Type == "custom_tool_call_output" {
			it.OutputKind = CustomToolCall
		}
		it.CallID = v.Get("call_id").String()
		it.Output, _ = refInputText(v.Get("output"))
	}
	return it
}

// refInputText is the former inputText: it reads a content or output member: a string, or an array of
// parts whose text parts (input_text, output_text, text) are joined with
// "\n". ok is false for other forms.
func refInputText(v gjson.Result) (string, bool) {
	switch {
	case v.Type == gjson.String:
		return v.Str, true
	case v.IsArray():
		var parts []string
		v.ForEach(func(_, p gjson.Result) bool {
			switch p.Get("type").Str {
			case "input_text", "output_text", "text":
				parts = append(parts, p.Get("text").Str)
			}
			return true
		})
		return strings.Join(parts, "\n"), true
	}
	return "", false
}

// responsesRequestSeeds are the recorded plain answers' output items sent
// back as a request's input (each call answered by an output), the
// package's sample requests, and a few odd ones.
func responsesRequestSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	for _, fx := range fixtures.List(tb, fixtures.APIResponses, fixtures.KindJSON) {
		output := gjson.GetBytes(fx.Read(tb), "output")
		if !output.IsArray() {
			continue
		}
		var b strings.Builder
		b.WriteString(`{"model":"gpt-4o","stream":true,"user":"u1","conversation":{"id":"conv_1"},"instructions":"be careful","input":[{"role":"user","content":"go"}`)
		output.ForEach(func(_, item gjson.Result) bool {
			b.WriteString("," + item.Raw)
			if id := item.Get("call_id"); id.Exists() {
				b.WriteString(`,{"type":"function_call_output","call_id":` + id.Raw + `,"output":[{"type":"input_text","text":"ok"}]}`)
			}
			return true
		})
		b.WriteString(`],"tools":[{"type":"function","name":"exec","parameters":{"type":"object"}},{"type":"custom","name":"apply_patch"}]}`)
		out = append(out, []byte(b.String()))
	}
	for _, s := range append([]string{respLoopRequest, benchResponsesRequest}, oddResponsesRequestSeeds...) {
		out = append(out, []byte(s))
	}
	return out
}

// oddResponsesRequestSeeds are requests with the members' unusual shapes.
var oddResponsesRequestSeeds = []string{
	`{"model":1.50,"stream":"true","background":1,"user":"","safety_identifier":7,"conversation":"c","instructions":"","input":""}`,
	`{"user":null,"safety_identifier":"s","conversation":{"id":3},"instructions":[{"role":"developer","content":"x"}],"input":null}`,
	`{"conversation":["c"],"instructions":null,"input":[1,"s",null,[],{},{"role":"user"},{"type":"message","content":[{"type":"input_text","text":1},{"type":"text","text":"a"},{"type":"output_text","text":"b"},{"type":"image"},"x",{"text":"c"}]}]}`,
	`{"input":[{"type":"function_call","call_id":1,"name":null,"arguments":{"a":1}},{"type":"custom_tool_call","input":"patch","arguments":"x"},{"type":"function_call","arguments":null},{"type":"custom_tool_call","input":null}]}`,
	`{"input":[{"type":"function_call_output","call_id":"c","output":{"a":1}},{"type":"custom_tool_call_output","output":[{"type":"input_text","text":"t"}]},{"type":"function_call_output"}]}`,
	`{"\u0069nput":[{"t\u0079pe":"m\u0065ssage","role":"user","content":"\ud800\u0041 \ud83d\ude00"},{"type":"message","role":"system","content":[{"type":"input_\u0074ext","text":"s"}]}]}`,
	`{"tools":null}`, `{"tools":"x"}`, `{"tools":{"a":{"type":"function"},"b":{}}}`, `{"tools":[{"type":1},{},[],"s"]}`,
	`{"input":{}}`, `{"input":3}`, `{"input":true}`, `{"conversation":{"id":{"x":1}}}`, ` {"input":[ ] , "tools":[]} `,
}

func FuzzParseResponsesRequestMatchesReference(f *testing.F) {
	for _, s := range responsesRequestSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkResponsesRequest(t, body)
	})
}

// TestResponsesRequestMatchesReference runs the seeds without fuzzing.
func TestResponsesRequestMatchesReference(t *testing.T) {
	for _, body := range responsesRequestSeeds(t) {
		checkResponsesRequest(t, body)
	}
}

func checkResponsesRequest(t *testing.T, body []byte) {
	t.Helper()
	got, err := ParseResponsesRequest(body)
	want, wantErr := refParseResponsesRequest(body)
	if (err == nil) != (wantErr == nil) || errors.Is(err, ErrDuplicateKey) != errors.Is(wantErr, ErrDuplicateKey) ||
		(err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("%q: error %v, reference %v", body, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", body, got, want)
	}
}

// benchResponsesRequest is the representative agent request (see
// benchChatRequest) as a Responses request.
const benchResponsesRequest = `{"model":"gpt-4o","temperature":0.2,` +
	`"instructions":"You are a coding agent working in the repository at /home/agent/project. Use the tools to inspect files and run commands. Prefer small, reversible steps; explain what you are about to do before calling a tool; never run destructive commands without being asked.",` +
	`"input":[` +
	`{"type":"message","role":"user","content":"The build fails on CI with a missing module error. Find out why and fix it."},` +
	`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"I will look at the module file first."}]},` +
	`{"type":"function_call","call_id":"call_hist_0","name":"read_file","arguments":"{\"path\":\"go.mod\"}"},` +
	`{"type":"function_call_output","call_id":"call_hist_0","output":"module github.com/example/project\n\ngo 1.22\n\nrequire (\n\tgithub.com/example/lib v1.4.0\n)\n"},` +
	`{"type":"message","role":"user","content":[{"type":"input_text","text":"Also check the vendor directory and list what is there."}]}],` +
	`"tools":[` +
	`{"type":"function","name":"exec","description":"Run a shell command in the project directory and return its output.","parameters":{"type":"object","properties":{"command":{"type":"string","description":"The command line to run."},"cwd":{"type":"string"},"timeout_ms":{"type":"integer"}},"required":["command"]}},` +
	`{"type":"function","name":"read_file","description":"Read a file of the project.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}`

// BenchmarkParseResponsesRequest reads the representative request into its
// view, and with the former gjson-based view for comparison.
func BenchmarkParseResponsesRequest(b *testing.B) {
	benchParse(b, []byte(benchResponsesRequest), ParseResponsesRequest, refParseResponsesRequest)
}
