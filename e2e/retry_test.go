package e2e

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

const retryPolicy = `interception:
  max_retries: 2
hooks:
  - id: no-destructive-exec
    event: pre_tool_use
    on_block: retry
    handler: {type: builtin, name: deny_patterns, with: {defaults: [shell]}}
`

var (
	wipeAnswer = mockupstream.StreamSpec{ID: "chatcmpl-first", Usage: true, Texts: []string{"Wiping."}, Calls: []mockupstream.ToolCall{
		{ID: "call_wipe", Name: "exec", Arguments: `{"command":"rm -rf /"}`},
	}}
	saferAnswer = mockupstream.StreamSpec{ID: "chatcmpl-second", Usage: true, Texts: []string{"That was refused; ", "listing instead."}, Calls: []mockupstream.ToolCall{
		{ID: "call_ls", Name: "exec", Arguments: `{"command":"ls"}`},
	}}
)

func TestRetryTellsTheModelAndContinuesTheSameStream(t *testing.T) {
	s := startStack(t, retryPolicy)
	s.mock.Enqueue(
		mockupstream.Stream(wipeAnswer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}),
		mockupstream.Stream(saferAnswer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}),
	)
	_, _, raw := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"clean up"}]}`), nil)
	if strings.Contains(string(raw), "chatcmpl-second") || strings.Count(string(raw), "[DONE]") != 1 {
		t.Fatalf("the continuation is not one response with one id and one [DONE]:\n%s", raw)
	}
	if strings.Contains(string(raw), "rm -rf") || strings.Contains(string(raw), "[hookgate]") {
		t.Fatalf("the blocked call or its note reached the client:\n%s", raw)
	}
	// Usage: 120+120 prompt tokens over both attempts.
	if !strings.Contains(string(raw), `"prompt_tokens":240`) {
		t.Errorf("usage not summed:\n%s", raw)
	}
	reqs := s.mock.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d upstream requests, want 2", len(reqs))
	}
	msgs := gjson.GetBytes(reqs[1].Body, "messages").Array()
	last, prev := msgs[len(msgs)-1], msgs[len(msgs)-2]
	if prev.Get("role").String() != "assistant" || prev.Get("tool_calls.0.id").String() != "call_wipe" || prev.Get("content").String() != "Wiping." {
		t.Errorf("the retry does not carry the assistant's blocked round: %s", prev.Raw)
	}
	if last.Get("role").String() != "tool" || last.Get("tool_call_id").String() != "call_wipe" || !strings.HasPrefix(last.Get("content").String(), "blocked by no-destructive-exec: ") {
		t.Errorf("the retry does not tell the model why: %s", last.Raw)
	}
	if gjson.GetBytes(reqs[1].Body, "stream").Bool() != true || gjson.GetBytes(reqs[1].Body, "model").String() != "m" {
		t.Errorf("the retry changed the request's parameters: %s", reqs[1].Body)
	}

	s.mock.Enqueue(
		mockupstream.Stream(wipeAnswer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}),
		mockupstream.Stream(saferAnswer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}),
	)
	got := goOpenAIStream(t, s.app.URL())
	if got.Err != "" || got.Content != "Wiping.That was refused; listing instead." || len(got.ToolCalls) != 1 || got.ToolCalls[0].ID != "call_ls" {
		t.Fatalf("go-openai assembled %s", got)
	}
}

func TestRetryInPlainResponses(t *testing.T) {
	s := startStack(t, retryPolicy)
	s.mock.Enqueue(mockupstream.JSON(200, wipeAnswer.Completion()), mockupstream.JSON(200, saferAnswer.Completion()))
	status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"clean up"}]}`), nil)
	if status != 200 || gjson.GetBytes(body, "id").String() != "chatcmpl-first" {
		t.Fatalf("%d %s", status, body)
	}
	if c := gjson.GetBytes(body, "choices.0.message.tool_calls.0.function.arguments").String(); c != `{"command":"ls"}` {
		t.Fatalf("tool calls after the retry: %s", body)
	}
	if gjson.GetBytes(body, "usage.prompt_tokens").Int() != 240 {
		t.Errorf("usage not summed: %s", body)
	}
}

func TestRetriesAreBoundedThenTheBlockIsShown(t *testing.T) {
	s := startStack(t, retryPolicy)
	s.mock.Handle(mockupstream.Always(mockupstream.Stream(wipeAnswer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})))
	got := goOpenAIStream(t, s.app.URL())
	if got.Err != "" || len(got.ToolCalls) != 0 || !strings.Contains(got.Content, "[hookgate] tool call exec blocked by no-destructive-exec") {
		t.Fatalf("after the last retry the block must be shown: %s", got)
	}
	if n := len(s.mock.Requests()); n != 3 {
		t.Fatalf("%d upstream requests, want 1 + max_retries (2)", n)
	}
	if len(got.Finish) == 0 || got.Finish[len(got.Finish)-1] != "stop" {
		t.Errorf("finish %v", got.Finish)
	}
}
