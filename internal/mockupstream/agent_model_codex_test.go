package mockupstream

import (
	"context"
	"slices"
	"testing"

	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// The terminal script, read by the SDK's stream reader as Codex sends its
// conversation (whole, store: false): the allowed command, a shell with a
// terminal, the parts typed into that terminal's session, the final text.
func TestTerminalScriptSteps(t *testing.T) {
	srv := Start(t)
	s := &TerminalScript{Allowed: "touch ok", Shell: "bash", Typed: []string{"rm -", "r precious\n"}, Final: "All done."}
	srv.Handle(s.Handler())
	client := openai.NewClient(ooption.WithBaseURL(srv.URL()+"/v1"), ooption.WithAPIKey("test"), ooption.WithMaxRetries(0))
	tools := []responses.ToolUnionParam{
		responses.ToolParamOfFunction("exec_command", map[string]any{"type": "object"}, false),
		responses.ToolParamOfFunction("write_stdin", map[string]any{"type": "object"}, false),
	}
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("tidy up", responses.EasyInputMessageRoleUser)}
	// What Codex answers each call with: the shell and the typing leave
	// session 4242 running.
	outputs := []string{
		"Chunk ID: a\nProcess exited with code 0\nOutput:\n",
		"Chunk ID: b\nProcess running with session ID 4242\nOutput:\n$ ",
		"Chunk ID: c\nProcess running with session ID 4242\nOutput:\nrm -",
		"Chunk ID: d\nProcess running with session ID 4242\nOutput:\nr precious\r\n$ ",
	}
	want := []struct{ name, args string }{
		{"exec_command", `{"cmd":"touch ok"}`},
		{"exec_command", `{"cmd":"bash","tty":true,"yield_time_ms":700}`},
		{"write_stdin", `{"chars":"rm -","session_id":4242,"yield_time_ms":700}`},
		{"write_stdin", `{"chars":"r precious\n","session_id":4242,"yield_time_ms":700}`},
		{"", ""},
	}
	for step, w := range want {
		done := terminalStep(t, client, responses.ResponseNewParams{Model: "gpt-test", Tools: tools, Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}})
		var call *responses.ResponseFunctionToolCall
		for _, item := range done.Output {
			if item.Type == "function_call" {
				fc := item.AsFunctionCall()
				call = &fc
			}
		}
		if w.name == "" {
			if call != nil || done.OutputText() != "All done." {
				t.Fatalf("step %d: want the final answer, got %q and call %+v", step, done.OutputText(), call)
			}
			break
		}
		if call == nil || call.Name != w.name || call.Arguments != w.args {
			t.Fatalf("step %d: want %s %s, got %+v", step, w.name, w.args, call)
		}
		input = append(input,
			responses.ResponseInputItemParamOfFunctionCall(call.Arguments, call.CallID, call.Name),
			callOutput(call.CallID, outputs[step]))
	}
	if got, wantServed := s.Served(), []string{"allowed", "shell", "typed 0", "typed 1", "final"}; !slices.Equal(got, wantServed) {
		t.Errorf("served %v, want %v", got, wantServed)
	}
	if errs := s.Errors(); len(errs) > 0 {
		t.Errorf("errors: %v", errs)
	}
}

// When the shell is gone (its output names no running session), the
// script cannot type: it says so in Errors and ends with text, so that a
// test sees that the command was never typed.
func TestTerminalScriptWithoutSession(t *testing.T) {
	srv := Start(t)
	s := &TerminalScript{Allowed: "touch ok", Shell: "bash", Typed: []string{"rm -r precious\n"}, Final: "All done."}
	srv.Handle(s.Handler())
	client := openai.NewClient(ooption.WithBaseURL(srv.URL()+"/v1"), ooption.WithAPIKey("test"), ooption.WithMaxRetries(0))
	tools := []responses.ToolUnionParam{responses.ToolParamOfFunction("exec_command", map[string]any{"type": "object"}, false)}
	input := responses.ResponseInputParam{
		responses.ResponseInputItemParamOfMessage("tidy up", responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfFunctionCall(`{"cmd":"touch ok"}`, "c1", "exec_command"),
		callOutput("c1", "Process exited with code 0"),
		responses.ResponseInputItemParamOfFunctionCall(`{"cmd":"bash","tty":true}`, "c2", "exec_command"),
		callOutput("c2", "Process exited with code 127"),
	}
	done := terminalStep(t, client, responses.ResponseNewParams{Model: "gpt-test", Tools: tools, Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}})
	for _, item := range done.Output {
		if item.Type == "function_call" {
			t.Fatalf("typed without a session: %+v", item)
		}
	}
	if len(s.Errors()) != 1 || !slices.Equal(s.Served(), []string{"final"}) {
		t.Errorf("errors %v, served %v", s.Errors(), s.Served())
	}
	// A request without the shell tool (a title, a summary) gets text.
	done = terminalStep(t, client, responses.ResponseNewParams{Model: "gpt-test", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("a title")}})
	if done.OutputText() != "OK." {
		t.Errorf("side request: %q", done.OutputText())
	}
}

// terminalStep streams one request and returns the completed response.
func terminalStep(t *testing.T, client openai.Client, params responses.ResponseNewParams) *responses.Response {
	t.Helper()
	stream := client.Responses.NewStreaming(context.Background(), params)
	var done *responses.Response
	for stream.Next() {
		if ev := stream.Current(); ev.Type == "response.completed" {
			r := ev.Response
			done = &r
		}
	}
	if err := stream.Err(); err != nil || done == nil {
		t.Fatalf("stream: %v (completed: %v)", err, done != nil)
	}
	return done
}

// callOutput is a function_call_output item with text, as Codex sends it.
func callOutput(callID, text string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: openai.String(callID),
		Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String(text)},
	}}
}
