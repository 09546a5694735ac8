package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// The Anthropic half of the Node suite: the npm @anthropic-ai/sdk as the
// agent (e2e/node/anthropic-messages.test.mjs), read three ways: iterating
// create({stream: true}), the messages.stream() helper, and a plain
// create().

const anthropicNodeFile = "anthropic-messages.test.mjs"

// Readers of the anthropic test file.
var (
	anthropicStreamed = []string{"stream", "helper"}
	anthropicPlainly  = []string{"plain"}
)

// runAnthropicNode runs the anthropic test file, after checking that the
// package is installed (nodeDir checks the openai one).
func runAnthropicNode(t *testing.T, s *stack, cases []nodeCase) {
	t.Helper()
	_, dir := nodeDir(t)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@anthropic-ai", "sdk", "package.json")); err != nil {
		t.Fatalf("e2e/node/node_modules has no @anthropic-ai/sdk: run the README's test command (./scripts/test), which installs e2e/node's packages, or set %s=1", skipNodeEnv)
	}
	for i := range cases {
		cases[i].SDK = "anthropic"
	}
	runNode(t, s, anthropicNodeFile, cases)
}

func nodeToolUses(calls []msgToolUse) []nodeCall {
	out := make([]nodeCall, 0, len(calls))
	for _, c := range calls {
		out = append(out, nodeCall{ID: c.ID, Name: c.Name, Args: c.Input})
	}
	return out
}

// TestNodeAnthropicRecordedToolUses replays every recorded Anthropic stream
// and message under an allowing, a blocking and a rewriting hook, each
// first read directly from the mock, so that what the SDK cannot read even
// there is told apart from what hookgate broke.
func TestNodeAnthropicRecordedToolUses(t *testing.T) {
	type recorded struct {
		name     string
		readers  []string
		calls    []msgToolUse
		response func(i int) mockupstream.Response
	}
	var all []recorded
	for _, f := range messagesStreams(t) {
		body := f.Read(t)
		all = append(all, recorded{f.Rel, anthropicStreamed, recordedToolUses(t, body), func(i int) mockupstream.Response {
			return mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.Random, Size: 61, Seed: uint64(i + 1)})
		}})
	}
	for _, f := range messagesPlainFixtures(t) {
		body := f.Read(t)
		all = append(all, recorded{f.Rel, anthropicPlainly, recordedPlainToolUses(t, body), func(int) mockupstream.Response { return mockupstream.JSON(200, body) }})
	}
	policies := []struct {
		name, policy string
		adjust       func(c *nodeCase, calls []msgToolUse)
	}{
		{"allow", allowEveryTool, func(c *nodeCase, calls []msgToolUse) {
			c.Expect = nodeExpect{SameAsDirect: true, ToolCalls: nodeToolUses(calls), Finish: "tool_use"}
		}},
		{"block", blockEveryTool, func(c *nodeCase, calls []msgToolUse) {
			c.DirectGate = "error"
			c.Expect = nodeExpect{ToolCalls: []nodeCall{}, Finish: "end_turn"}
			for _, call := range calls {
				note := fmt.Sprintf("[hookgate] tool call %s blocked by block-all: no tools today", call.Name)
				c.Expect.ContentIncludes = append(c.Expect.ContentIncludes, note)
				c.Expect.LastTextIncludes = append(c.Expect.LastTextIncludes, note)
			}
		}},
		{"rewrite", rewriteEveryTool, func(c *nodeCase, calls []msgToolUse) {
			c.DirectGate = "error"
			c.Expect = nodeExpect{ToolCalls: nodeToolUses(stamped(calls)), Finish: "tool_use"}
		}},
	}
	for _, p := range policies {
		t.Run(p.name, func(t *testing.T) {
			s := startMessagesStack(t, p.policy)
			var cases []nodeCase
			for i, rec := range all {
				c := nodeCase{Name: rec.name, Readers: rec.readers, Direct: true, Recorded: nodeToolUses(rec.calls), Response: rec.response(i)}
				p.adjust(&c, rec.calls)
				cases = append(cases, c)
			}
			runAnthropicNode(t, s, cases)
		})
	}
}

// TestNodeAnthropicAgentLoop: text before the calls, the disclaimer on
// final answers only, a blocked prompt answered by hookgate, and a
// truncated upstream raised by the SDK, with and without a hook holding
// calls.
func TestNodeAnthropicAgentLoop(t *testing.T) {
	answer := "Buy low, sell high."
	withCalls := fixtureBytes(t, "anthropic/messages-text-then-two-tool-use-ping-padding.sse")
	calls := recordedToolUses(t, withCalls)
	final := nodeExpect{Content: ptr(answer + "\n\nThis is not financial advice."), LastText: ptr(answer + "\n\nThis is not financial advice."), ToolCalls: []nodeCall{}, Finish: "end_turn"}
	t.Run("disclaimer and prompts", func(t *testing.T) {
		s := startMessagesStack(t, disclaimerPolicy+`  - id: no-secrets-talk
    event: user_prompt_submit
    if_expr: "prompt.contains('password')"
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "prompts about passwords are not allowed" }; }
`)
		runAnthropicNode(t, s, []nodeCase{
			{Name: "final answer, streamed", Readers: anthropicStreamed, Expect: final,
				Response: mockupstream.Stream(answerStream(answer), mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 3})},
			{Name: "final answer, plain", Readers: anthropicPlainly, Expect: final,
				Response: mockupstream.JSON(200, answerMessage(answer))},
			{Name: "tool uses, streamed: text first, no disclaimer", Readers: anthropicStreamed,
				Expect:   nodeExpect{ContentExcludes: []string{"financial"}, ToolCalls: nodeToolUses(calls), Finish: "tool_use", TextBeforeCalls: true},
				Response: mockupstream.Stream(withCalls, mockupstream.Chunking{Mode: mockupstream.PerEvent})},
			{Name: "blocked prompt, streamed", Prompt: "what is the admin password?", Readers: anthropicStreamed,
				Expect:   nodeExpect{Content: ptr("prompts about passwords are not allowed"), ToolCalls: []nodeCall{}, Finish: "end_turn"},
				Response: mockupstream.Stream(answerStream(answer), mockupstream.Chunking{Mode: mockupstream.PerEvent})},
			{Name: "blocked prompt, plain", Prompt: "what is the admin password?", Readers: anthropicPlainly,
				Expect:   nodeExpect{Content: ptr("prompts about passwords are not allowed"), ToolCalls: []nodeCall{}, Finish: "end_turn"},
				Response: mockupstream.JSON(200, answerMessage(answer))},
		})
	})
	cut := func(at int, c mockupstream.Chunking) mockupstream.Response {
		r := mockupstream.Stream(withCalls, c)
		r.Fault, r.FaultAt = mockupstream.Cut, at
		return r
	}
	plain := fixtureBytes(t, "anthropic/messages-two-tool-use.json")
	plainCut := mockupstream.JSON(200, plain)
	plainCut.Fault, plainCut.FaultAt = mockupstream.Cut, len(plain)/2
	truncated := []nodeCase{
		{Name: "cut mid text", Readers: anthropicStreamed, Expect: nodeExpect{Error: true},
			Response: cut(indexOf(t, withCalls, `" multiply the numbers"`), mockupstream.Chunking{Mode: mockupstream.PerEvent})},
		{Name: "cut mid tool block", Readers: anthropicStreamed, Expect: nodeExpect{Error: true},
			Response: cut(indexOf(t, withCalls, `, \"b\"`), mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 9})},
		{Name: "cut before message_stop", Readers: anthropicStreamed, Expect: nodeExpect{Error: true},
			Response: cut(indexOf(t, withCalls, "event: message_stop"), mockupstream.Chunking{Mode: mockupstream.PerEvent})},
		{Name: "cut mid plain body", Readers: anthropicPlainly, Expect: nodeExpect{Error: true}, Response: plainCut},
	}
	for _, p := range []struct{ name, policy string }{{"truncated, no hooks", ""}, {"truncated, a tool hook holding calls", allowEveryTool}} {
		t.Run(p.name, func(t *testing.T) {
			runAnthropicNode(t, startMessagesStack(t, p.policy), append([]nodeCase(nil), truncated...))
		})
	}
}

func indexOf(t *testing.T, body []byte, s string) int {
	t.Helper()
	for i := 0; i+len(s) <= len(body); i++ {
		if string(body[i:i+len(s)]) == s {
			return i
		}
	}
	t.Fatalf("%q is not in the recording", s)
	return -1
}
