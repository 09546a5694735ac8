package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// The policy of the mixed-batch tests: destructive shell commands are
// blocked, every other exec gets a dry-run flag.
const shellPolicy = `hooks:
  - id: no-destructive-exec
    event: pre_tool_use
    matcher: "^exec$"
    priority: 1
    handler:
      type: builtin
      name: deny_patterns
      with: {defaults: [shell]}
  - id: dry-run
    event: pre_tool_use
    matcher: "^exec$"
    priority: 2
    allow_mutation: [toolInput.dry_run]
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "rewrite", updatedInput: { dry_run: true } }; }
`

var mixedBatch = mockupstream.StreamSpec{TextDeltas: 3, ArgFragments: 5, Calls: []mockupstream.ToolCall{
	{ID: "call_rm", Name: "exec", Arguments: `{"command":"rm -rf / --no-preserve-root"}`},
	{ID: "call_ls", Name: "exec", Arguments: `{"command":"ls -la","cwd":"/srv"}`},
	{ID: "call_read", Name: "read_file", Arguments: `{"path":"README.md"}`},
}}

func TestMixedBatchOneBlockedOneRewrittenOneUntouched(t *testing.T) {
	s := startStack(t, shellPolicy)
	check := func(t *testing.T, got assembled) {
		t.Helper()
		if got.Err != "" || len(got.ToolCalls) != 2 {
			t.Fatalf("want 2 calls: %s", got)
		}
		ls, read := got.ToolCalls[0], got.ToolCalls[1]
		if ls.ID != "call_ls" || ls.Index != "0" || !reflect.DeepEqual(argsOf(t, ls.Arguments), map[string]any{"command": "ls -la", "cwd": "/srv", "dry_run": true}) {
			t.Errorf("rewritten call: %+v", ls)
		}
		if read.ID != "call_read" || read.Index != "1" || read.Arguments != `{"path":"README.md"}` {
			t.Errorf("untouched call: %+v", read)
		}
		if !strings.Contains(got.Content, "[hookgate] tool call exec blocked by no-destructive-exec") {
			t.Errorf("no block note in %q", got.Content)
		}
		if !strings.HasPrefix(got.Content, mixedBatch.Text()) {
			t.Errorf("text lost: %q", got.Content)
		}
		if len(got.Finish) != 1 || got.Finish[0] != "tool_calls" {
			t.Errorf("finish %v; calls survive, so tool_calls stays", got.Finish)
		}
	}
	t.Run("stream", func(t *testing.T) {
		s.mock.Enqueue(mockupstream.Stream(mixedBatch.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
		check(t, goOpenAIStream(t, s.app.URL()))
	})
	t.Run("plain", func(t *testing.T) {
		s.mock.Enqueue(mockupstream.JSON(200, mixedBatch.Completion()))
		check(t, goOpenAIPlain(t, s.app.URL()))
	})
}

func TestRecordedPlainResponsesUnderBlockingAndRewritingHooks(t *testing.T) {
	for _, f := range fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindJSON) {
		body := f.Read(t)
		calls := gjson.GetBytes(body, "choices.0.message.tool_calls").Array()
		if len(calls) == 0 {
			continue
		}
		t.Run(f.Rel, func(t *testing.T) {
			blocked := startStack(t, blockEveryTool)
			blocked.mock.Enqueue(mockupstream.JSON(200, body))
			got := goOpenAIPlain(t, blocked.app.URL())
			if got.Err != "" || len(got.ToolCalls) != 0 || got.Finish[0] != "stop" {
				t.Fatalf("blocked: %s", got)
			}
			for _, c := range calls {
				if !strings.Contains(got.Content, "tool call "+c.Get("function.name").String()+" blocked by block-all") {
					t.Errorf("no note for %s in %q", c.Get("function.name"), got.Content)
				}
			}

			rewritten := startStack(t, rewriteEveryTool)
			rewritten.mock.Enqueue(mockupstream.JSON(200, body))
			got = goOpenAIPlain(t, rewritten.app.URL())
			if got.Err != "" || len(got.ToolCalls) != len(calls) {
				t.Fatalf("rewritten: %s", got)
			}
			for i, c := range calls {
				want := argsOf(t, c.Get("function.arguments").String())
				want["audited"] = true
				if !reflect.DeepEqual(argsOf(t, got.ToolCalls[i].Arguments), want) || got.ToolCalls[i].ID != c.Get("id").String() {
					t.Errorf("call %d: %+v", i, got.ToolCalls[i])
				}
			}
		})
	}
}

func TestSessionContextIsInEveryRequestOfTheSession(t *testing.T) {
	s := startStack(t, `hooks:
  - id: house-rules
    event: session_start
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "allow", additionalContext: "House rules for " + e.sessionId + ": never touch production." }; }
`)
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, mockupstream.StreamSpec{TextDeltas: 2}.Completion())))
	turns := []string{
		`{"model":"m","messages":[{"role":"system","content":"You are a coding agent."},{"role":"user","content":"fix the bug"}]}`,
		`{"model":"m","messages":[{"role":"system","content":"You are a coding agent."},{"role":"user","content":"fix the bug"},{"role":"assistant","content":"done"},{"role":"user","content":"thanks"}]}`,
		`{"model":"m","messages":[{"role":"system","content":"You are a coding agent."},{"role":"user","content":"fix the bug"},{"role":"assistant","content":"done"},{"role":"user","content":"thanks"},{"role":"assistant","content":"ok"},{"role":"user","content":"bye"}]}`,
	}
	for _, body := range turns {
		if status, _, got := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(body), map[string]string{"X-Session-Id": "sess-42"}); status != 200 {
			t.Fatalf("status %d: %s", status, got)
		}
	}
	reqs := s.mock.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d upstream requests", len(reqs))
	}
	first := gjson.GetBytes(reqs[0].Body, "messages.0").Raw
	for i, r := range reqs {
		msgs := gjson.GetBytes(r.Body, "messages").Array()
		if msgs[0].Get("role").String() != "system" || msgs[0].Get("content").String() != "House rules for sess-42: never touch production." {
			t.Fatalf("request %d: no session context first: %s", i, r.Body)
		}
		if msgs[0].Raw != first {
			t.Errorf("request %d: the injected context changed between requests: %s vs %s", i, msgs[0].Raw, first)
		}
		if msgs[1].Get("content").String() != "You are a coding agent." {
			t.Errorf("request %d: the agent's system prompt moved: %s", i, r.Body)
		}
	}
}

// counter is a policy server on loopback that counts the events it gets.
type counter struct {
	mu     sync.Mutex
	events []map[string]any
}

func (c *counter) serve(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev map[string]any
		json.NewDecoder(r.Body).Decode(&ev)
		c.mu.Lock()
		c.events = append(c.events, ev)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"decision":"allow"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (c *counter) count(field, value string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, ev := range c.events {
		if ev[field] == value {
			n++
		}
	}
	return n
}

func TestToolResultFiresOnceAcrossResentHistory(t *testing.T) {
	var seen counter
	url := seen.serve(t)
	s := startStack(t, `hooks:
  - id: result-log
    event: post_tool_use
    handler:
      type: http
      url: `+url+`
`)
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, mockupstream.StreamSpec{TextDeltas: 2}.Completion())))
	history := `{"role":"user","content":"list files"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"exec","arguments":"{\"command\":\"ls\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"a.txt b.txt"}`
	for i, extra := range []string{"", `,{"role":"assistant","content":"two files"},{"role":"user","content":"and now?"}`, `,{"role":"assistant","content":"two files"},{"role":"user","content":"and now?"},{"role":"assistant","content":"still two"},{"role":"user","content":"ok"}`} {
		body := `{"model":"m","messages":[` + history + extra + `]}`
		if status, _, got := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(body), map[string]string{"X-Session-Id": "s-tools"}); status != 200 {
			t.Fatalf("turn %d: %d %s", i, status, got)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for seen.count("toolCallId", "call_1") < 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // room for a wrong second delivery to arrive
	if n := seen.count("toolCallId", "call_1"); n != 1 {
		t.Fatalf("post_tool_use for call_1 fired %d times across three turns, want 1", n)
	}
	seen.mu.Lock()
	ev := seen.events[0]
	seen.mu.Unlock()
	if ev["toolName"] != "exec" || ev["toolResult"] != "a.txt b.txt" || ev["event"] != "post_tool_use" {
		t.Fatalf("event: %v", ev)
	}
}

func TestTruncatedToolResultIsReappliedOnEveryResend(t *testing.T) {
	s := startStack(t, `hooks:
  - id: shorten
    event: post_tool_use
    allow_mutation: [toolResult]
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "rewrite", updatedResult: e.toolResult.slice(0, 5) + "...[cut]" }; }
`)
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, mockupstream.StreamSpec{TextDeltas: 1}.Completion())))
	history := `{"role":"user","content":"cat"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_big","type":"function","function":{"name":"exec","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_big","content":"0123456789abcdef"}`
	for _, extra := range []string{"", `,{"role":"assistant","content":"ok"},{"role":"user","content":"more"}`} {
		rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[`+history+extra+`]}`), map[string]string{"X-Session-Id": "s-cut"})
	}
	for i, r := range s.mock.Requests() {
		if got := gjson.GetBytes(r.Body, "messages.2.content").String(); got != "01234...[cut]" {
			t.Errorf("request %d: tool result %q", i, got)
		}
	}
}

const disclaimerPolicy = `hooks:
  - id: disclaimer
    event: pre_response
    mode: append
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "allow", additionalContext: "This is not financial advice." }; }
`

func TestDisclaimerIsAppendedToFinalAnswers(t *testing.T) {
	s := startStack(t, disclaimerPolicy)
	answer := mockupstream.StreamSpec{TextDeltas: 4}
	want := answer.Text() + "\n\nThis is not financial advice."
	s.mock.Enqueue(mockupstream.Stream(answer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	if got := goOpenAIStream(t, s.app.URL()); got.Content != want || got.Err != "" {
		t.Errorf("stream: %s", got)
	}
	s.mock.Enqueue(mockupstream.JSON(200, answer.Completion()))
	if got := goOpenAIPlain(t, s.app.URL()); got.Content != want {
		t.Errorf("plain: %s", got)
	}
	s.mock.Enqueue(mockupstream.Stream(answer.SSE(), mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 3}))
	if got := openaiGoStream(t, s.app.URL()); got.Content != want {
		t.Errorf("openai-go stream: %s", got)
	}
	// A response that still carries a tool call is not a final answer.
	s.mock.Enqueue(mockupstream.Stream(mockupstream.StreamSpec{TextDeltas: 2, ToolCalls: 1}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	if got := goOpenAIStream(t, s.app.URL()); strings.Contains(got.Content, "financial") || len(got.ToolCalls) != 1 {
		t.Errorf("tool-call response: %s", got)
	}
}

func TestBlockedPromptGetsANormalCompletion(t *testing.T) {
	s := startStack(t, `hooks:
  - id: no-secrets-talk
    event: user_prompt_submit
    if_expr: "prompt.contains('password')"
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "prompts about passwords are not allowed" }; }
`)
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, mockupstream.StreamSpec{TextDeltas: 1}.Completion())))
	client := goOpenAIClient(s.app.URL())
	req := chatRequest(false)
	req.Messages[0].Content = "what is the admin password?"
	resp, err := client.CreateChatCompletion(t.Context(), req)
	if err != nil || resp.Choices[0].Message.Content != "prompts about passwords are not allowed" || resp.Choices[0].FinishReason != "stop" {
		t.Fatalf("plain: %v %+v", err, resp)
	}
	req.Stream = true
	stream, err := client.CreateChatCompletionStream(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	var content string
	for {
		chunk, err := stream.Recv()
		if err != nil {
			break
		}
		content += chunk.Choices[0].Delta.Content
	}
	if content != "prompts about passwords are not allowed" {
		t.Fatalf("stream content %q", content)
	}
	if n := len(s.mock.Requests()); n != 0 {
		t.Fatalf("a blocked prompt reached the upstream %d times", n)
	}
	// An unrelated prompt goes through.
	if a := goOpenAIPlain(t, s.app.URL()); a.Err != "" || a.Content == "" {
		t.Fatalf("allowed prompt: %s", a)
	}
}

func TestHeldCallKeepsTheStreamAliveWithHeartbeats(t *testing.T) {
	dir := t.TempDir()
	script := dir + "/slow-allow.sh"
	writeExecutable(t, script, "#!/bin/sh\ncat >/dev/null\nsleep 0.6\necho '{\"decision\":\"allow\"}'\n")
	s := startStack(t, "timeouts:\n  heartbeat: 100ms\nhooks:\n  - id: slow\n    event: pre_tool_use\n    timeout_ms: 5000\n    handler:\n      type: command\n      command: ["+script+"]\n")
	spec := mockupstream.StreamSpec{TextDeltas: 2, ToolCalls: 1}
	s.mock.Enqueue(mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	_, _, got := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`), nil)
	if n := strings.Count(string(got), ": hookgate: holding a tool call"); n < 3 {
		t.Fatalf("%d heartbeats during a 600ms hold at 100ms:\n%s", n, got)
	}
	s.mock.Enqueue(mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	if a := goOpenAIStream(t, s.app.URL()); a.Err != "" || len(a.ToolCalls) != 1 {
		t.Fatalf("go-openai through heartbeats: %s", a)
	}
}

func TestSubagentIsPolicedLikeItsParent(t *testing.T) {
	var seen counter
	url := seen.serve(t)
	s := startStack(t, `hooks:
  - id: subagents
    event: subagent_start
    handler: {type: http, url: `+url+`}
  - id: subagent-done
    event: subagent_stop
    handler: {type: http, url: `+url+`}
  - id: no-destructive-exec
    event: pre_tool_use
    handler: {type: builtin, name: deny_patterns, with: {defaults: [shell]}}
`)
	s.mock.Enqueue(mockupstream.Stream(mixedBatch.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	s.mock.Enqueue(mockupstream.JSON(200, mockupstream.StreamSpec{TextDeltas: 2}.Completion()))
	hdr := map[string]string{"X-Session-Id": "child-1", "X-Parent-Session-Id": "parent-1"}
	_, _, got := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`), hdr)
	if strings.Contains(string(got), "rm -rf") {
		t.Fatalf("a subagent's destructive call escaped: %s", got)
	}
	rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","content":"y"},{"role":"user","content":"z"}]}`), hdr)
	deadline := time.Now().Add(10 * time.Second)
	for seen.count("event", "subagent_stop") < 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if seen.count("event", "subagent_start") != 1 || seen.count("event", "subagent_stop") != 1 || seen.count("parentSessionId", "parent-1") != 2 {
		seen.mu.Lock()
		t.Fatalf("subagent events: %v", seen.events)
	}
}
