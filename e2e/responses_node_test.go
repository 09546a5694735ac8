package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/providers"
)

// The Responses half of the Node suite: the npm openai package on POST
// /v1/responses (e2e/node/openai-responses.test.mjs), read three ways:
// iterating create({stream: true}), the responses.stream() helper, and a
// plain create().

const responsesNodeFile = "openai-responses.test.mjs"

var (
	responsesStreamed = []string{"stream", "helper"}
	responsesPlainly  = []string{"plain"}
)

func runResponsesNode(t *testing.T, s *stack, cases []nodeCase) {
	t.Helper()
	for i := range cases {
		cases[i].SDK = "openai-responses"
	}
	runNode(t, s, responsesNodeFile, cases)
}

// respRecording is what a recorded Responses body says the agent should
// end up with when no hook changes it: the final response's calls, status
// and usage.
type respRecording struct {
	calls  []expectedCall
	status string
	usage  json.RawMessage
}

func readRespRecording(t *testing.T, f respFixture) respRecording {
	t.Helper()
	final := f.body
	if f.sse {
		final = nil
		p := providers.NewSSEParser(0)
		p.Feed(f.body)
		p.End()
		for fr, _ := p.Next(); fr != nil; fr, _ = p.Next() {
			if k := providers.ResponsesEventKindOf(providers.ResponsesEventType(fr.Data)); k.HasResponse() {
				final = []byte(gjson.GetBytes(fr.Data, "response").Raw)
			}
		}
	}
	r := respRecording{usage: json.RawMessage("null")}
	doc := gjson.ParseBytes(final)
	r.status = doc.Get("status").Str
	if u := doc.Get("usage"); u.IsObject() {
		r.usage = json.RawMessage(u.Raw)
	}
	for _, it := range doc.Get("output").Array() {
		if it.Get("type").Str == "function_call" {
			r.calls = append(r.calls, expectedCall{ID: it.Get("call_id").Str, Name: it.Get("name").Str, Args: argsOf(t, it.Get("arguments").Str)})
		}
	}
	return r
}

// TestNodeResponsesRecorded replays every recorded Responses stream and
// body under an allowing, a blocking and a rewriting hook, each first read
// directly from the mock.
func TestNodeResponsesRecorded(t *testing.T) {
	policies := []struct {
		name, policy string
		adjust       func(c *nodeCase, r respRecording)
	}{
		{"allow", allowEveryTool, func(c *nodeCase, r respRecording) {
			c.Expect = nodeExpect{SameAsDirect: true, ToolCalls: nodeCalls(r.calls), Finish: r.status, Usage: r.usage}
		}},
		{"block", blockEveryTool, func(c *nodeCase, r respRecording) {
			c.DirectGate = "error"
			c.Expect = nodeExpect{ToolCalls: []nodeCall{}, Finish: r.status, Usage: r.usage}
			for _, call := range r.calls {
				note := fmt.Sprintf("[hookgate] tool call %s blocked by block-all: no tools today", call.Name)
				c.Expect.ContentIncludes = append(c.Expect.ContentIncludes, note)
				c.Expect.LastTextIncludes = append(c.Expect.LastTextIncludes, note)
			}
		}},
		{"rewrite", rewriteEveryTool, func(c *nodeCase, r respRecording) {
			c.DirectGate = "error"
			c.Expect = nodeExpect{ToolCalls: nodeCalls(r.calls), Finish: r.status, Usage: r.usage}
			for i, call := range r.calls {
				args := map[string]any{"audited": true}
				for k, v := range call.Args {
					args[k] = v
				}
				c.Expect.ToolCalls[i].Args = args
			}
		}},
	}
	all := responsesFixtures(t)
	for _, p := range policies {
		t.Run(p.name, func(t *testing.T) {
			s := startStack(t, p.policy)
			var cases []nodeCase
			for i, f := range all {
				r := readRespRecording(t, f)
				c := nodeCase{Name: f.rel, Readers: responsesPlainly, Direct: true, Recorded: nodeCalls(r.calls),
					Response: f.response(mockupstream.Chunking{Mode: mockupstream.Random, Size: 61, Seed: uint64(i + 1)})}
				if f.sse {
					c.Readers = responsesStreamed
				}
				if f.framed {
					c.Name += " (payloads framed by the test)"
				}
				if strings.Contains(f.rel, "error-event") {
					// The upstream fails mid-stream: the SDK must raise.
					c.Direct, c.Expect = false, nodeExpect{Error: true}
				} else {
					p.adjust(&c, r)
				}
				cases = append(cases, c)
			}
			runResponsesNode(t, s, cases)
		})
	}
}

// TestNodeResponsesTruncatedStream: an upstream that dies mid-stream is an
// error for the SDK, never a clean end, whether hookgate was relaying text
// or holding a call when it died.
func TestNodeResponsesTruncatedStream(t *testing.T) {
	calls, _ := fixtureBody(t, "openai-responses/gpt4o-function-call-args-8-deltas.sse")
	text := providers.SynthesizeResponseStream("resp_t", "m", 1, "a long answer")
	cut := func(body []byte, at int) mockupstream.Response {
		r := mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 9})
		r.Fault, r.FaultAt = mockupstream.Cut, at
		return r
	}
	cases := []nodeCase{
		{Name: "cut mid text", Readers: responsesStreamed, Expect: nodeExpect{Error: true},
			Response: cut(text, bytes.Index(text, []byte("response.output_text.done")))},
		{Name: "cut mid call", Readers: responsesStreamed, Expect: nodeExpect{Error: true},
			Response: cut(calls, bytes.Index(calls, []byte(`"delta":"Flor`)))},
		{Name: "cut before the completion", Readers: responsesStreamed, Expect: nodeExpect{Error: true},
			Response: cut(calls, bytes.Index(calls, []byte("event: response.completed")))},
	}
	for _, p := range []struct{ name, policy string }{{"no hooks", ""}, {"a tool hook holding calls", allowEveryTool}} {
		t.Run(p.name, func(t *testing.T) {
			runResponsesNode(t, startStack(t, p.policy), append([]nodeCase(nil), cases...))
		})
	}
}

// TestNodeResponsesAnswerHooks: pre_response's text is a message item
// after a final answer, streamed and plain; a prompt a hook blocks is
// answered with a completed response carrying the reason.
func TestNodeResponsesAnswerHooks(t *testing.T) {
	s := startStack(t, disclaimerPolicy+`  - id: no-secrets-talk
    event: user_prompt_submit
    if_expr: "prompt.contains('password')"
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "prompts about passwords are not allowed" }; }
`)
	answer := providers.SynthesizeResponseStream("resp_a", "m", 1, "Buy low.")
	final := nodeExpect{Content: ptr("Buy low.\n\nThis is not financial advice."), LastText: ptr("Buy low.\n\nThis is not financial advice."), ToolCalls: []nodeCall{}, Finish: "completed"}
	blocked := nodeExpect{Content: ptr("prompts about passwords are not allowed"), ToolCalls: []nodeCall{}, Finish: "completed"}
	runResponsesNode(t, s, []nodeCase{
		{Name: "final answer, streamed", Readers: responsesStreamed, Expect: final,
			Response: mockupstream.Stream(answer, mockupstream.Chunking{Mode: mockupstream.PerEvent})},
		{Name: "final answer, 3-byte writes", Readers: responsesStreamed, Expect: final,
			Response: mockupstream.Stream(answer, mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 3})},
		{Name: "final answer, plain", Readers: responsesPlainly, Expect: final,
			Response: mockupstream.JSON(200, providers.SynthesizeResponse("resp_a", "m", 1, "Buy low."))},
		{Name: "blocked prompt, streamed", Prompt: "the admin password?", Readers: responsesStreamed, Expect: blocked,
			Response: mockupstream.Stream(answer, mockupstream.Chunking{Mode: mockupstream.PerEvent})},
		{Name: "blocked prompt, plain", Prompt: "the admin password?", Readers: responsesPlainly, Expect: blocked,
			Response: mockupstream.JSON(200, providers.SynthesizeResponse("resp_a", "m", 1, "Buy low."))},
	})
	for _, r := range s.mock.Requests() {
		if strings.Contains(string(r.Body), "password") {
			t.Errorf("the upstream saw the blocked prompt: %s", r.Body)
		}
	}
}
