package mockupstream

import (
	"context"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

func agentScript() *AgentScript {
	return &AgentScript{Allowed: "touch ok", Destructive: "rm -r precious", Final: "All done."}
}

// The SDKs' own stream readers assemble the scripted Messages answers:
// a call to the allowed command, then the destructive one, then the final
// text, as tool results arrive.
func TestAgentScriptMessagesThroughTheSDK(t *testing.T) {
	srv := Start(t)
	srv.Handle(agentScript().Handler())
	client := anthropic.NewClient(aoption.WithBaseURL(srv.URL()), aoption.WithAPIKey("test"), aoption.WithMaxRetries(0))
	tools := []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "Bash", InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"command": map[string]any{"type": "string"}}}}}}
	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("tidy up"))}
	want := []string{`{"command":"touch ok"}`, `{"command":"rm -r precious"}`, ""}
	for step, args := range want {
		stream := client.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 100, Messages: msgs, Tools: tools})
		var msg anthropic.Message
		for stream.Next() {
			if err := msg.Accumulate(stream.Current()); err != nil {
				t.Fatalf("step %d: accumulate: %v", step, err)
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatalf("step %d: stream: %v", step, err)
		}
		var call *anthropic.ToolUseBlock
		for i := range msg.Content {
			if tu, ok := msg.Content[i].AsAny().(anthropic.ToolUseBlock); ok {
				call = &tu
			}
		}
		if args == "" {
			if call != nil || msg.Content[len(msg.Content)-1].Text != "All done." || msg.StopReason != anthropic.StopReasonEndTurn {
				t.Fatalf("step %d: want the final answer, got %+v", step, msg.Content)
			}
			continue
		}
		if call == nil || call.Name != "Bash" || string(call.Input) != args || msg.StopReason != anthropic.StopReasonToolUse {
			t.Fatalf("step %d: want Bash %s, got %+v", step, args, msg.Content)
		}
		msgs = append(msgs, msg.ToParam(), anthropic.NewUserMessage(anthropic.NewToolResultBlock(call.ID, "done", false)))
	}
}

// The Responses answers follow previous_response_id: a continuation that
// carries only the newest tool result still moves the script on.
func TestAgentScriptResponsesFollowsPreviousResponse(t *testing.T) {
	srv := Start(t)
	srv.Handle(agentScript().Handler())
	client := openai.NewClient(ooption.WithBaseURL(srv.URL()+"/v1"), ooption.WithAPIKey("test"), ooption.WithMaxRetries(0))
	tools := []responses.ToolUnionParam{responses.ToolParamOfFunction("exec_command", map[string]any{"type": "object"}, false)}
	params := responses.ResponseNewParams{Model: "gpt-test", Tools: tools, Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("tidy up")}}
	want := []string{`{"cmd":"touch ok"}`, `{"cmd":"rm -r precious"}`, ""}
	for step, args := range want {
		stream := client.Responses.NewStreaming(context.Background(), params)
		var done *responses.Response
		for stream.Next() {
			if ev := stream.Current(); ev.Type == "response.completed" {
				r := ev.Response
				done = &r
			}
		}
		if err := stream.Err(); err != nil || done == nil {
			t.Fatalf("step %d: stream: %v (completed: %v)", step, err, done != nil)
		}
		var call *responses.ResponseFunctionToolCall
		for _, item := range done.Output {
			if item.Type == "function_call" {
				fc := item.AsFunctionCall()
				call = &fc
			}
		}
		if args == "" {
			if call != nil || done.OutputText() != "All done." {
				t.Fatalf("step %d: want the final answer, got %q and call %v", step, done.OutputText(), call)
			}
			continue
		}
		if call == nil || call.Arguments != args {
			t.Fatalf("step %d: want exec_command %s, got %+v", step, args, call)
		}
		params.PreviousResponseID = openai.String(done.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
				CallID: openai.String(call.CallID),
				Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String("done")},
			}},
		}}
	}
}

// Chat completions count tool messages; a request without a known shell
// tool gets a short answer and no call.
func TestAgentScriptChatSteps(t *testing.T) {
	h := agentScript().Handler()
	post := func(body string) gjson.Result {
		t.Helper()
		r := h(&Request{Method: "POST", Path: "/v1/chat/completions", Body: []byte(body)})
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		return gjson.ParseBytes(r.Body)
	}
	tools := `"tools":[{"type":"function","function":{"name":"bash","parameters":{}}}]`
	first := post(`{"model":"m",` + tools + `,"messages":[{"role":"user","content":"go"}]}`)
	if got := first.Get("choices.0.message.tool_calls.0.function.arguments").String(); got != `{"command":"touch ok"}` {
		t.Fatalf("first call arguments %q", got)
	}
	second := post(`{"model":"m",` + tools + `,"messages":[{"role":"user","content":"go"},{"role":"tool","tool_call_id":"a","content":"x"}]}`)
	if got := second.Get("choices.0.message.tool_calls.0.function.arguments").String(); got != `{"command":"rm -r precious"}` {
		t.Fatalf("second call arguments %q", got)
	}
	side := post(`{"model":"m","messages":[{"role":"user","content":"title this"}]}`)
	if side.Get("choices.0.message.tool_calls").Exists() || side.Get("choices.0.message.content").String() != "OK." {
		t.Fatalf("side request answered %s", side.Raw)
	}
}
