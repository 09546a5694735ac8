package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/providers"
)

// The Node suite runs the agent side of a scenario in the official npm SDKs
// (e2e/node, installed by the README's test command), since most agents are
// written against them. Go starts the stack and scripts the mock; each case
// tells Node what the agent must end up with. e2e/node/lib/harness.mjs
// describes the protocol; a new SDK is one more test file there plus cases
// here naming it.

// skipNodeEnv opts out of the Node suite on a machine without Node.
const skipNodeEnv = "HOOKGATE_SKIP_NODE"

// nodeCase is one response the agent reads, and what it must assemble.
type nodeCase struct {
	Name    string   `json:"name"`
	SDK     string   `json:"sdk"`
	Model   string   `json:"model"` // the mock answers by it; set by runNode
	Prompt  string   `json:"prompt,omitempty"`
	Readers []string `json:"readers"`
	Direct  bool     `json:"direct,omitempty"`
	// DirectGate "error" skips a reader only when the direct read raised,
	// not when it assembled other calls than the recording's.
	DirectGate string     `json:"directGate,omitempty"`
	Recorded   []nodeCall `json:"recorded,omitempty"`
	Expect     nodeExpect `json:"expect"`
	// Todo names a known hookgate bug the case shows: it runs and reports
	// as a node:test todo instead of failing the suite.
	Todo string `json:"todo,omitempty"`

	// Response is what the mock answers to every request for this case.
	Response mockupstream.Response `json:"-"`
}

type nodeExpect struct {
	Error           bool       `json:"error,omitempty"`
	SameAsDirect    bool       `json:"sameAsDirect,omitempty"`
	Content         *string    `json:"content,omitempty"`
	ContentPrefix   string     `json:"contentPrefix,omitempty"`
	ContentIncludes []string   `json:"contentIncludes,omitempty"`
	ContentExcludes []string   `json:"contentExcludes,omitempty"`
	ToolCalls       []nodeCall `json:"toolCalls"` // nil: not checked
	ContiguousIndex bool       `json:"contiguousIndex,omitempty"`
	Finish          string     `json:"finish,omitempty"`
	// Usage is the last usage object the agent must have seen; nil is not
	// checked, the JSON null is "none".
	Usage           json.RawMessage `json:"usage,omitempty"`
	TextBeforeCalls bool            `json:"textBeforeCalls,omitempty"`
	// LastText and LastTextIncludes check the last text block or message
	// item alone: all that agents such as Claude Code -p and codex exec
	// show.
	LastText         *string  `json:"lastText,omitempty"`
	LastTextIncludes []string `json:"lastTextIncludes,omitempty"`
}

type nodeCall struct {
	ID            string         `json:"id"`
	Name          string         `json:"name"`
	Args          map[string]any `json:"args"`
	ArgumentsText *string        `json:"argumentsText,omitempty"`
}

// Readers of the openai test file.
var (
	streamed = []string{"stream", "helper"}
	plainly  = []string{"plain"}
)

func nodeCalls(calls []expectedCall) []nodeCall {
	out := make([]nodeCall, 0, len(calls))
	for _, c := range calls {
		out = append(out, nodeCall{ID: c.ID, Name: c.Name, Args: c.Args})
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// nodeDir is e2e/node, checked for an installed SDK: a missing Node or a
// missing install fails the test (CI installs both), unless opted out.
func nodeDir(t *testing.T) (node, dir string) {
	t.Helper()
	if os.Getenv(skipNodeEnv) == "1" {
		t.Skipf("%s=1: the Node SDK suite is skipped", skipNodeEnv)
	}
	const hint = "run the README's test command (./scripts/test), which installs e2e/node's packages, or set " + skipNodeEnv + "=1 to skip the Node suite"
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH: install Node.js 20 or later with npm, then %s", hint)
	}
	dir, err = filepath.Abs("node")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "openai", "package.json")); err != nil {
		t.Fatalf("e2e/node/node_modules has no openai package: %s", hint)
	}
	return node, dir
}

var nodeTestCount = regexp.MustCompile(`(?m)^(?:ℹ|#) tests (\d+)$`)

// runNode serves the cases from s's mock, keyed by model, and runs one test
// file of e2e/node against s; node's whole output is the failure message.
func runNode(t *testing.T, s *stack, file string, cases []nodeCase) {
	t.Helper()
	node, dir := nodeDir(t)
	byModel := map[string]mockupstream.Response{}
	for i := range cases {
		cases[i].Model = "case-" + strconv.Itoa(i)
		byModel[cases[i].Model] = cases[i].Response
	}
	s.mock.Handle(func(r *mockupstream.Request) mockupstream.Response {
		model := gjson.GetBytes(r.Body, "model").String()
		if resp, ok := byModel[model]; ok {
			return resp
		}
		return mockupstream.Error(404, "model_not_found", "no case for model "+strconv.Quote(model))
	})
	doc, err := json.MarshalIndent(cases, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	casesFile := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(casesFile, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", file)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"HOOKGATE_BASE_URL="+s.app.URL(),
		"HOOKGATE_MOCK_URL="+s.mock.URL(),
		"HOOKGATE_CASES="+casesFile,
		"NO_COLOR=1",
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	if err != nil {
		t.Fatalf("node --test %s failed (%v) after %s:\n%s", file, err, time.Since(start).Round(time.Millisecond), out.String())
	}
	// A file that defined no test passes too: make sure every case ran.
	m := nodeTestCount.FindSubmatch(out.Bytes())
	if m == nil {
		t.Fatalf("node --test %s printed no test count:\n%s", file, out.String())
	}
	if n, _ := strconv.Atoi(string(m[1])); n < len(cases) {
		t.Fatalf("node ran %d tests for %d cases:\n%s", n, len(cases), out.String())
	}
	t.Logf("node --test %s: %d cases in %s\n%s", file, len(cases), time.Since(start).Round(time.Millisecond), out.String())
}

// recording is what a recorded response carries, as the agent should see it
// when no hook changes it.
type recording struct {
	calls    []expectedCall
	finishes []string        // every finish_reason, in order
	usage    json.RawMessage // the last non-null usage object, or null
	// finishWithCalls: some chunk carries both tool calls and a
	// finish_reason.
	finishWithCalls bool
}

func readRecordedStream(t *testing.T, body []byte) recording {
	t.Helper()
	r := recording{calls: recordedCalls(t, body), usage: json.RawMessage("null")}
	p := providers.NewSSEParser(0)
	p.Feed(body)
	p.End()
	for {
		f, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		if f == nil {
			break
		}
		if !f.HasData() || f.Done || !gjson.ValidBytes(f.Data) {
			continue
		}
		r.note(gjson.ParseBytes(f.Data), "delta")
	}
	return r
}

func readRecordedPlain(t *testing.T, body []byte) recording {
	t.Helper()
	r := recording{usage: json.RawMessage("null")}
	doc := gjson.ParseBytes(body)
	for _, c := range doc.Get("choices.0.message.tool_calls").Array() {
		r.calls = append(r.calls, expectedCall{ID: c.Get("id").String(), Name: c.Get("function.name").String(), Args: argsOf(t, c.Get("function.arguments").String())})
	}
	r.note(doc, "message")
	return r
}

// note adds what one chunk (part "delta") or a whole response (part
// "message") carries.
func (r *recording) note(doc gjson.Result, part string) {
	if u := doc.Get("usage"); u.IsObject() {
		r.usage = json.RawMessage(u.Raw)
	}
	for _, ch := range doc.Get("choices").Array() {
		if fr := ch.Get("finish_reason"); fr.Type == gjson.String && fr.Str != "" {
			r.finishes = append(r.finishes, fr.Str)
			if calls := ch.Get(part + ".tool_calls"); calls.IsArray() && len(calls.Array()) > 0 {
				r.finishWithCalls = true
			}
		}
	}
}

// onlyFinish is the finish reason every choice ends with, or "" when the
// recording has none or several different ones.
func (r recording) onlyFinish() string {
	if len(r.finishes) == 0 {
		return ""
	}
	for _, f := range r.finishes[1:] {
		if f != r.finishes[0] {
			return ""
		}
	}
	return r.finishes[0]
}

// TestNodeRecordedToolCalls replays every recorded chat-completions stream
// and plain response with tool calls under an allowing, a blocking and a
// rewriting hook. Streams are read by iterating the chunks of
// create({stream: true}) and by the SDK's stream().finalChatCompletion(),
// plain responses by create(); each first directly from the mock, so that
// what the SDK cannot read even there is told apart from what hookgate
// broke.
func TestNodeRecordedToolCalls(t *testing.T) {
	policies := []struct {
		name   string
		policy string
		adjust func(c *nodeCase, r recording)
	}{
		{"allow", allowEveryTool, func(c *nodeCase, r recording) {
			c.Expect = nodeExpect{SameAsDirect: true, ToolCalls: nodeCalls(r.calls), Usage: r.usage}
		}},
		{"block", blockEveryTool, func(c *nodeCase, r recording) {
			// Nothing of the recorded calls is left to read, so a direct
			// read only gates on the SDK raising.
			c.DirectGate = "error"
			c.Expect = nodeExpect{ToolCalls: []nodeCall{}, Usage: r.usage}
			if len(r.finishes) > 0 {
				c.Expect.Finish = "stop"
			}
			for _, call := range r.calls {
				c.Expect.ContentIncludes = append(c.Expect.ContentIncludes, fmt.Sprintf("[hookgate] tool call %s blocked by block-all: no tools today", call.Name))
			}
		}},
		{"rewrite", rewriteEveryTool, func(c *nodeCase, r recording) {
			// hookgate re-encodes every call, so a reader that cannot
			// assemble the recording's own deltas may still read these.
			c.DirectGate = "error"
			c.Expect = nodeExpect{ToolCalls: nodeCalls(r.calls), ContiguousIndex: true, Finish: r.onlyFinish(), Usage: r.usage}
			for i, call := range r.calls {
				args := map[string]any{"audited": true}
				for k, v := range call.Args {
					args[k] = v
				}
				c.Expect.ToolCalls[i].Args = args
			}
		}},
	}
	type recorded struct {
		name     string
		body     []byte
		readers  []string
		response func(i int) mockupstream.Response
		read     func(*testing.T, []byte) recording
	}
	var all []recorded
	for _, f := range toolFixtures(t) {
		body := f.Read(t)
		all = append(all, recorded{f.Rel, body, streamed, func(i int) mockupstream.Response {
			return mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.Random, Size: 61, Seed: uint64(i + 1)})
		}, readRecordedStream})
	}
	for _, f := range fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindJSON) {
		body := f.Read(t)
		if len(gjson.GetBytes(body, "choices.0.message.tool_calls").Array()) == 0 {
			continue
		}
		all = append(all, recorded{f.Rel, body, plainly, func(int) mockupstream.Response { return mockupstream.JSON(200, body) }, readRecordedPlain})
	}
	for _, p := range policies {
		t.Run(p.name, func(t *testing.T) {
			s := startStack(t, p.policy)
			var cases []nodeCase
			for i, rec := range all {
				r := rec.read(t, rec.body)
				c := nodeCase{Name: rec.name, SDK: "openai", Readers: rec.readers, Direct: true, Recorded: nodeCalls(r.calls), Response: rec.response(i)}
				p.adjust(&c, r)
				cases = append(cases, c)
			}
			runNode(t, s, "openai-chat.test.mjs", cases)
		})
	}
}

// TestNodeMixedBatch: one call blocked, one rewritten, one untouched, in a
// stream and in a plain response.
func TestNodeMixedBatch(t *testing.T) {
	s := startStack(t, shellPolicy)
	expect := nodeExpect{
		ContentPrefix:   mixedBatch.Text(),
		ContentIncludes: []string{"[hookgate] tool call exec blocked by no-destructive-exec"},
		ContentExcludes: []string{"rm -rf"},
		ToolCalls: []nodeCall{
			{ID: "call_ls", Name: "exec", Args: map[string]any{"command": "ls -la", "cwd": "/srv", "dry_run": true}},
			{ID: "call_read", Name: "read_file", Args: map[string]any{"path": "README.md"}, ArgumentsText: ptr(`{"path":"README.md"}`)},
		},
		ContiguousIndex: true,
		Finish:          "tool_calls",
	}
	inStream := expect
	inStream.TextBeforeCalls = true
	// Both calls and the finish in one chunk, the blocked call last, as
	// providers that send whole calls do (see mistral's recording).
	oneChunk := []byte(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"On it."},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_ls","type":"function","function":{"name":"exec","arguments":"{\"command\":\"ls -la\",\"cwd\":\"/srv\"}"}},{"index":1,"id":"call_rm","type":"function","function":{"name":"exec","arguments":"{\"command\":\"rm -rf / --no-preserve-root\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":9,"completion_tokens":8,"total_tokens":17}}

data: [DONE]

`)
	oneChunkExpect := nodeExpect{
		ContentPrefix:   "On it.",
		ContentIncludes: expect.ContentIncludes,
		ContentExcludes: expect.ContentExcludes,
		ToolCalls:       expect.ToolCalls[:1],
		ContiguousIndex: true,
		Finish:          "tool_calls",
		Usage:           json.RawMessage(`{"prompt_tokens":9,"completion_tokens":8,"total_tokens":17}`),
	}
	runNode(t, s, "openai-chat.test.mjs", []nodeCase{
		{Name: "stream, one chunk with the finish, blocked call last", SDK: "openai", Readers: streamed, Expect: oneChunkExpect,
			Response: mockupstream.Stream(oneChunk, mockupstream.Chunking{Mode: mockupstream.PerEvent})},
		{Name: "stream, per event", SDK: "openai", Readers: streamed, Expect: inStream,
			Response: mockupstream.Stream(mixedBatch.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})},
		{Name: "stream, 5-byte writes", SDK: "openai", Readers: streamed, Expect: inStream,
			Response: mockupstream.Stream(mixedBatch.SSE(), mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 5})},
		{Name: "plain", SDK: "openai", Readers: plainly, Expect: expect,
			Response: mockupstream.JSON(200, mixedBatch.Completion())},
	})
}

// TestNodeDisclaimer: the pre_response text is appended to final answers,
// streamed and plain, and not to a response that carries a tool call.
func TestNodeDisclaimer(t *testing.T) {
	s := startStack(t, disclaimerPolicy)
	answer := mockupstream.StreamSpec{TextDeltas: 4}
	withCall := mockupstream.StreamSpec{TextDeltas: 2, ToolCalls: 1}
	final := nodeExpect{Content: ptr(answer.Text() + "\n\nThis is not financial advice."), ToolCalls: []nodeCall{}, Finish: "stop"}
	runNode(t, s, "openai-chat.test.mjs", []nodeCase{
		{Name: "final answer, streamed", SDK: "openai", Readers: streamed, Expect: final,
			Response: mockupstream.Stream(answer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})},
		{Name: "final answer, 3-byte writes", SDK: "openai", Readers: streamed, Expect: final,
			Response: mockupstream.Stream(answer.SSE(), mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 3})},
		{Name: "final answer, plain", SDK: "openai", Readers: plainly, Expect: final,
			Response: mockupstream.JSON(200, answer.Completion())},
		{Name: "tool-call response, streamed", SDK: "openai", Readers: streamed,
			Expect:   nodeExpect{Content: ptr(withCall.Text()), ContentExcludes: []string{"financial"}, ToolCalls: nodeCalls(specCalls(t, withCall)), Finish: "tool_calls"},
			Response: mockupstream.Stream(withCall.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})},
		{Name: "tool-call response, plain", SDK: "openai", Readers: plainly,
			Expect:   nodeExpect{Content: ptr(withCall.Text()), ContentExcludes: []string{"financial"}, ToolCalls: nodeCalls(specCalls(t, withCall)), Finish: "tool_calls"},
			Response: mockupstream.JSON(200, withCall.Completion())},
	})
}

// TestNodeTruncatedStream: an upstream that dies mid-stream is an error for
// the SDK, never a clean end, whether hookgate was relaying text or holding
// a tool call when it died.
func TestNodeTruncatedStream(t *testing.T) {
	spec := mockupstream.StreamSpec{TextDeltas: 5, ToolCalls: 1, ArgFragments: 3}
	body := spec.SSE()
	cut := func(at int, c mockupstream.Chunking) mockupstream.Response {
		r := mockupstream.Stream(body, c)
		r.Fault, r.FaultAt = mockupstream.Cut, at
		return r
	}
	midText := bytes.Index(body, []byte(`"content":"me "`))
	midCall := bytes.Index(body, []byte(`"arguments":"`)) + 20
	plainBody := spec.Completion()
	plainCut := mockupstream.JSON(200, plainBody)
	plainCut.Fault, plainCut.FaultAt = mockupstream.Cut, len(plainBody)/2
	cases := []nodeCase{
		{Name: "cut mid text", SDK: "openai", Readers: streamed, Expect: nodeExpect{Error: true},
			Response: cut(midText, mockupstream.Chunking{Mode: mockupstream.PerEvent})},
		{Name: "cut mid tool call", SDK: "openai", Readers: streamed, Expect: nodeExpect{Error: true},
			Response: cut(midCall, mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 9})},
		{Name: "cut mid plain body", SDK: "openai", Readers: plainly, Expect: nodeExpect{Error: true},
			Response: plainCut},
	}
	for _, p := range []struct{ name, policy string }{{"no hooks", ""}, {"a tool hook holding calls", allowEveryTool}} {
		t.Run(p.name, func(t *testing.T) {
			runNode(t, startStack(t, p.policy), "openai-chat.test.mjs", append([]nodeCase(nil), cases...))
		})
	}
}

// TestNodeBlockedPrompt: a prompt a hook blocks is answered with a normal
// completion carrying the reason, streamed or not, and never reaches the
// upstream; another prompt goes through.
func TestNodeBlockedPrompt(t *testing.T) {
	s := startStack(t, `hooks:
  - id: no-secrets-talk
    event: user_prompt_submit
    if_expr: "prompt.contains('password')"
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "prompts about passwords are not allowed" }; }
`)
	answer := mockupstream.StreamSpec{TextDeltas: 3}
	blocked := nodeExpect{Content: ptr("prompts about passwords are not allowed"), ToolCalls: []nodeCall{}, Finish: "stop"}
	cases := []nodeCase{
		{Name: "blocked, streamed", SDK: "openai", Prompt: "what is the admin password?", Readers: streamed, Expect: blocked,
			Response: mockupstream.Stream(answer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})},
		{Name: "blocked, plain", SDK: "openai", Prompt: "what is the admin password?", Readers: plainly, Expect: blocked,
			Response: mockupstream.JSON(200, answer.Completion())},
		{Name: "allowed, streamed", SDK: "openai", Prompt: "what is the weather?", Readers: streamed,
			Expect:   nodeExpect{Content: ptr(answer.Text()), ToolCalls: []nodeCall{}, Finish: "stop"},
			Response: mockupstream.Stream(answer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})},
	}
	runNode(t, s, "openai-chat.test.mjs", cases)
	for _, r := range s.mock.Requests() {
		if model := gjson.GetBytes(r.Body, "model").String(); model == cases[0].Model || model == cases[1].Model {
			t.Errorf("a blocked prompt reached the upstream: %s", r.Body)
		}
		if strings.Contains(string(r.Body), "password") {
			t.Errorf("the upstream saw the blocked prompt: %s", r.Body)
		}
	}
	if len(s.mock.Requests()) != 2 {
		t.Errorf("the upstream got %d requests; want 2 (the allowed prompt, by two readers)", len(s.mock.Requests()))
	}
}

// specCalls is the calls a synthetic response carries, as a client should
// assemble them.
func specCalls(t *testing.T, spec mockupstream.StreamSpec) []expectedCall {
	t.Helper()
	var out []expectedCall
	for _, c := range spec.Tools() {
		out = append(out, expectedCall{ID: c.ID, Name: c.Name, Args: argsOf(t, c.Arguments)})
	}
	return out
}
