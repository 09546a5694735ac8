package mockupstream

import (
	"context"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// The instructed model, read by openai-go: `call` lines become tool calls,
// a tool result gets a final answer, streamed or not.
func TestInstructedModelThroughTheSDK(t *testing.T) {
	srv := Start(t)
	srv.Handle(Instructed)
	client := openai.NewClient(option.WithBaseURL(srv.URL()+"/v1/"), option.WithAPIKey("sk-mock"), option.WithMaxRetries(0))
	ctx := context.Background()
	params := openai.ChatCompletionNewParams{
		Model:    "gpt-mock",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("call exec {\"command\":\"ls\"}\ncall deploy {\"env\":\"staging\"}")},
	}
	res, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	calls := res.Choices[0].Message.ToolCalls
	if len(calls) != 2 || calls[0].Function.Name != "exec" || calls[0].Function.Arguments != `{"command":"ls"}` || calls[1].Function.Name != "deploy" {
		t.Fatalf("tool calls: %+v", calls)
	}
	if res.Model != "gpt-mock" || res.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("model %q finish %q", res.Model, res.Choices[0].FinishReason)
	}

	params.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi"), openai.ToolMessage("total 0", "call_1")}
	stream := client.Chat.Completions.NewStreaming(ctx, params)
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if got := acc.Choices[0].Message.Content; got != "The tool returned: total 0" {
		t.Fatalf("streamed answer %q", got)
	}
}

func TestInstructedModelRefusesOtherRoutesAndLogsNoHeaders(t *testing.T) {
	if r := Instructed(&Request{Method: "POST", Path: "/v1/responses"}); r.Status != 404 {
		t.Fatalf("status %d for an unserved route", r.Status)
	}
	req := &Request{Method: "POST", Path: "/v1/chat/completions", Header: map[string][]string{"Authorization": {"Bearer sk-secretCANARY"}},
		Body: []byte(`{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"call exec {}"}]}`)}
	line := Describe(req)
	if strings.Contains(line, "CANARY") || !strings.Contains(line, "system: be brief") || !strings.Contains(line, "last user: call exec {}") {
		t.Fatalf("log line: %s", line)
	}
}
