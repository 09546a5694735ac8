package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/tidwall/gjson"
)

// TestPostToolUseSeesWhenEachCallReachedTheAgent runs every format,
// streamed and plain, with only a post_tool_use hook: the response that
// carries a tool call is still read, each call is stamped as it reaches
// the agent, and the post_tool_use event of its result carries that time
// as metadata.toolCallAt.
func TestPostToolUseSeesWhenEachCallReachedTheAgent(t *testing.T) {
	cases := []struct {
		name, fixture, path, first, second string
		callID, tool                       string
		messages                           bool
	}{
		{
			name: "chat streamed", fixture: "openai/chat-gpt4o-parallel-tools-small.sse", path: "/v1/chat/completions",
			callID: "call_q2UyBRP7eXNTzAoR8lEhjc9Z", tool: "get_country",
			first:  `{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"where?"}]}`,
			second: `{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"where?"},{"role":"assistant","content":null,"tool_calls":[{"id":"%[1]s","type":"function","function":{"name":"%[2]s","arguments":"{}"}}]},{"role":"tool","tool_call_id":"%[1]s","content":"France"}]}`,
		},
		{
			name: "chat plain", fixture: "openai/chat-gpt4o-parallel-tool-calls.json", path: "/v1/chat/completions",
			first:  `{"model":"gpt-4o","messages":[{"role":"user","content":"where?"}]}`,
			second: `{"model":"gpt-4o","messages":[{"role":"user","content":"where?"},{"role":"assistant","content":null,"tool_calls":[{"id":"%[1]s","type":"function","function":{"name":"%[2]s","arguments":"{}"}}]},{"role":"tool","tool_call_id":"%[1]s","content":"France"}]}`,
		},
		{
			name: "messages streamed", fixture: "anthropic/messages-text-then-two-tool-use-ping-padding.sse", path: "/v1/messages", messages: true,
			callID: "toolu_01UYxUYC2zRPY8wiutnF48eP", tool: "add",
			first:  `{"model":"claude","max_tokens":99,"stream":true,"messages":[{"role":"user","content":"add"}]}`,
			second: `{"model":"claude","max_tokens":99,"stream":true,"messages":[{"role":"user","content":"add"},{"role":"assistant","content":[{"type":"tool_use","id":"%[1]s","name":"%[2]s","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"%[1]s","content":"3"}]}]}`,
		},
		{
			name: "messages plain", fixture: "anthropic/messages-two-tool-use.json", path: "/v1/messages", messages: true,
			callID: "toolu_01StBeRxDEwsqcc3arbDgpS9", tool: "add",
			first:  `{"model":"claude","max_tokens":99,"messages":[{"role":"user","content":"add"}]}`,
			second: `{"model":"claude","max_tokens":99,"messages":[{"role":"user","content":"add"},{"role":"assistant","content":[{"type":"tool_use","id":"%[1]s","name":"%[2]s","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"%[1]s","content":"3"}]}]}`,
		},
		{
			name: "responses streamed", fixture: "openai-responses/gpt4o-function-call-args-8-deltas.sse", path: "/v1/responses",
			callID: "call_PRiJm2RVAvt7IoRvjxIXxFVF", tool: "weather",
			first:  `{"model":"gpt-4o","stream":true,"input":"weather?"}`,
			second: `{"model":"gpt-4o","stream":true,"input":[{"role":"user","content":"weather?"},{"type":"function_call","call_id":"%[1]s","name":"%[2]s","arguments":"{}"},{"type":"function_call_output","call_id":"%[1]s","output":"sunny"}]}`,
		},
		{
			name: "responses plain", fixture: "openai-responses/gpt4o-two-function-calls.json", path: "/v1/responses",
			callID: "call_IAQ7c0mnAiAE89MUQa42HQy4", tool: "add",
			first:  `{"model":"gpt-4o","input":"add"}`,
			second: `{"model":"gpt-4o","input":[{"role":"user","content":"add"},{"type":"function_call","call_id":"%[1]s","name":"%[2]s","arguments":"{}"},{"type":"function_call_output","call_id":"%[1]s","output":"3"}]}`,
		},
	}
	cases[1].callID, cases[1].tool = chatPlainFirstCall(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var seen counter
			doc := "hooks:\n  - id: result-log\n    event: post_tool_use\n    handler:\n      type: http\n      url: " + seen.serve(t) + "\n"
			var s *stack
			if tc.messages {
				s = startMessagesStack(t, doc)
			} else {
				s = startStack(t, doc)
			}
			s.mock.Handle(mockupstream.Always(mockupstream.MustFixture(t, tc.fixture, mockupstream.Chunking{Mode: mockupstream.PerEvent})))
			header := map[string]string{"X-Session-Id": "s-clock-" + tc.name}
			if tc.messages {
				header["anthropic-version"] = "2023-06-01"
			}
			before := time.Now()
			if status, _, got := rawPost(t, s.app.URL(), tc.path, []byte(tc.first), header); status != 200 {
				t.Fatalf("turn 1: %d %s", status, got)
			}
			reached := time.Now()
			if status, _, got := rawPost(t, s.app.URL(), tc.path, fmt.Appendf(nil, tc.second, tc.callID, tc.tool), header); status != 200 {
				t.Fatalf("turn 2: %d %s", status, got)
			}
			deadline := time.Now().Add(5 * time.Second)
			for seen.count("toolCallId", tc.callID) < 1 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			seen.mu.Lock()
			defer seen.mu.Unlock()
			if len(seen.events) != 1 {
				t.Fatalf("%d post_tool_use events, want 1: %v", len(seen.events), seen.events)
			}
			md, _ := seen.events[0]["metadata"].(map[string]any)
			at, ok := md["toolCallAt"].(string)
			if !ok {
				t.Fatalf("the result's post_tool_use event has no metadata.toolCallAt: %v", seen.events[0])
			}
			when, err := time.Parse(time.RFC3339Nano, at)
			if err != nil || when.Before(before.Add(-time.Second)) || when.After(reached.Add(time.Second)) {
				t.Fatalf("toolCallAt %q (%v) is not the time of turn 1 (%v to %v)", at, err, before, reached)
			}
		})
	}
}

// chatPlainFirstCall is the id and name of the first tool call of the
// plain chat recording.
func chatPlainFirstCall(t *testing.T) (id, name string) {
	t.Helper()
	r := mockupstream.MustFixture(t, "openai/chat-gpt4o-parallel-tool-calls.json", mockupstream.Chunking{})
	first := gjson.GetBytes(r.Body, "choices.0.message.tool_calls.0")
	return first.Get("id").String(), first.Get("function.name").String()
}
