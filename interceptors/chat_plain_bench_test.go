package interceptors

import (
	"context"
	"testing"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// benchPlainRequest is the benchmark harness's representative agent
// request (bench.ChatRequest, not streamed): a system prompt, one earlier
// tool round trip, a new user message and two tool definitions.
const benchPlainRequest = `{"model":"gpt-4o","temperature":0.2,"messages":[` +
	`{"role":"system","content":"You are a coding agent working in the repository at /home/agent/project. Use the tools to inspect files and run commands. Prefer small, reversible steps; explain what you are about to do before calling a tool; never run destructive commands without being asked."},` +
	`{"role":"user","content":"The build fails on CI with a missing module error. Find out why and fix it."},` +
	`{"role":"assistant","content":"I will look at the module file first.","tool_calls":[{"id":"call_hist_0","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"go.mod\"}"}}]},` +
	`{"role":"tool","tool_call_id":"call_hist_0","content":"module github.com/example/project\n\ngo 1.22\n\nrequire (\n\tgithub.com/example/lib v1.4.0\n)\n"},` +
	`{"role":"user","content":"Also check the vendor directory and list what is there."}],` +
	`"tools":[` +
	`{"type":"function","function":{"name":"exec","description":"Run a shell command in the project directory and return its output.","parameters":{"type":"object","properties":{"command":{"type":"string","description":"The command line to run."},"cwd":{"type":"string"},"timeout_ms":{"type":"integer"}},"required":["command"]}}},` +
	`{"type":"function","function":{"name":"read_file","description":"Read a file of the project.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]}`

// celOnlyHook is the harness's cel scenario: a pre_tool_use hook whose
// condition is false for the answer's call, so no handler runs.
const celOnlyHook = `
- id: cel-only
  event: pre_tool_use
  matcher: "^(exec|shell|bash)$"
  if_expr: "has(toolInput.command) && toolInput.command.startsWith('rm -rf')"
  handler:
    type: script
    source: 'function handle(e) { return { decision: "block", reason: "destructive command" }; }'
`

// BenchmarkHookedPlainExchange is what a plain (non-streamed) request costs
// hookgate once a hook is configured, hooks included: Begin on the request
// and FinishPlain on an answer with text and one tool call, judged by one
// CEL-only pre_tool_use hook (cel) or by nothing (none).
func BenchmarkHookedPlainExchange(b *testing.B) {
	answer := mockupstream.StreamSpec{TextDeltas: 6, ToolCalls: 1, ArgFragments: 3, Usage: true}.Completion()
	for _, c := range []struct{ name, hooks string }{
		{"none", ""},
		{"cel", celOnlyHook},
	} {
		b.Run(c.name, func(b *testing.B) {
			chat := NewChat(Options{Engine: compileHooks(b, c.hooks)})
			req := &Request{Route: "/v1/chat/completions", Body: []byte(benchPlainRequest)}
			ctx := context.Background()
			b.SetBytes(int64(len(req.Body) + len(answer)))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				ex, err := chat.Begin(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				out, err := ex.FinishPlain(ctx, answer)
				if err != nil {
					b.Fatal(err)
				}
				if len(out) != len(answer) {
					b.Fatalf("answer changed: %s", out)
				}
			}
		})
	}
}
