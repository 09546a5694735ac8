package interceptors

import (
	"context"
	"testing"
)

// benchMessagesRequest is benchPlainRequest as a Messages request: a
// system prompt, one earlier tool round trip, a new user message and two
// tool definitions.
const benchMessagesRequest = `{"model":"claude-sonnet-4-5","max_tokens":1024,"temperature":0.2,` +
	`"system":"You are a coding agent working in the repository at /home/agent/project. Use the tools to inspect files and run commands. Prefer small, reversible steps; explain what you are about to do before calling a tool; never run destructive commands without being asked.",` +
	`"messages":[` +
	`{"role":"user","content":"The build fails on CI with a missing module error. Find out why and fix it."},` +
	`{"role":"assistant","content":[{"type":"text","text":"I will look at the module file first."},{"type":"tool_use","id":"toolu_hist_0","name":"read_file","input":{"path":"go.mod"}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_hist_0","content":"module github.com/example/project\n\ngo 1.22\n\nrequire (\n\tgithub.com/example/lib v1.4.0\n)\n"},{"type":"text","text":"Also check the vendor directory and list what is there."}]}],` +
	`"tools":[` +
	`{"name":"exec","description":"Run a shell command in the project directory and return its output.","input_schema":{"type":"object","properties":{"command":{"type":"string","description":"The command line to run."},"cwd":{"type":"string"},"timeout_ms":{"type":"integer"}},"required":["command"]}},` +
	`{"name":"read_file","description":"Read a file of the project.","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}`

// benchResponsesRequest is benchPlainRequest as a Responses request.
const benchResponsesRequest = `{"model":"gpt-4o","temperature":0.2,` +
	`"instructions":"You are a coding agent working in the repository at /home/agent/project. Use the tools to inspect files and run commands. Prefer small, reversible steps; explain what you are about to do before calling a tool; never run destructive commands without being asked.",` +
	`"input":[` +
	`{"type":"message","role":"user","content":"The build fails on CI with a missing module error. Find out why and fix it."},` +
	`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"I will look at the module file first."}]},` +
	`{"type":"function_call","call_id":"call_hist_0","name":"read_file","arguments":"{\"path\":\"go.mod\"}"},` +
	`{"type":"function_call_output","call_id":"call_hist_0","output":"module github.com/example/project\n\ngo 1.22\n\nrequire (\n\tgithub.com/example/lib v1.4.0\n)\n"},` +
	`{"type":"message","role":"user","content":[{"type":"input_text","text":"Also check the vendor directory and list what is there."}]}],` +
	`"tools":[` +
	`{"type":"function","name":"exec","description":"Run a shell command in the project directory and return its output.","parameters":{"type":"object","properties":{"command":{"type":"string","description":"The command line to run."},"cwd":{"type":"string"},"timeout_ms":{"type":"integer"}},"required":["command"]}},` +
	`{"type":"function","name":"read_file","description":"Read a file of the project.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}`

// BenchmarkHookedBegin is what reading a request costs Messages and
// Responses once a hook is configured: Begin on the representative
// request with one CEL-only pre_tool_use hook (no request-side hook, so
// no turn to read and no session to look up).
func BenchmarkHookedBegin(b *testing.B) {
	for _, c := range []struct {
		name string
		ic   Interceptor
		req  *Request
	}{
		{"chat", NewChat(Options{Engine: compileHooks(b, celOnlyHook)}), &Request{Route: "/v1/chat/completions", Provider: "openai", Body: []byte(benchPlainRequest)}},
		{"messages", NewMessages(Options{Engine: compileHooks(b, celOnlyHook)}), &Request{Route: "/v1/messages", Provider: "anthropic", Body: []byte(benchMessagesRequest)}},
		{"responses", NewResponses(Options{Engine: compileHooks(b, celOnlyHook)}), &Request{Route: "/v1/responses", Provider: "openai", Body: []byte(benchResponsesRequest)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			b.SetBytes(int64(len(c.req.Body)))
			b.ReportAllocs()
			for b.Loop() {
				ex, err := c.ic.Begin(ctx, c.req)
				if err != nil {
					b.Fatal(err)
				}
				if ex.Reply() != nil {
					b.Fatal("the request was answered")
				}
			}
		})
	}
}
