package providers

import (
	"testing"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// benchChatRequest is a representative agent request (the benchmark
// harness's): a system prompt, one earlier tool round trip, a new user
// message and two tool definitions, about 2 KB.
const benchChatRequest = `{"model":"gpt-4o","temperature":0.2,"messages":[` +
	`{"role":"system","content":"You are a coding agent working in the repository at /home/agent/project. Use the tools to inspect files and run commands. Prefer small, reversible steps; explain what you are about to do before calling a tool; never run destructive commands without being asked."},` +
	`{"role":"user","content":"The build fails on CI with a missing module error. Find out why and fix it."},` +
	`{"role":"assistant","content":"I will look at the module file first.","tool_calls":[{"id":"call_hist_0","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"go.mod\"}"}}]},` +
	`{"role":"tool","tool_call_id":"call_hist_0","content":"module github.com/example/project\n\ngo 1.22\n\nrequire (\n\tgithub.com/example/lib v1.4.0\n)\n"},` +
	`{"role":"user","content":"Also check the vendor directory and list what is there."}],` +
	`"tools":[` +
	`{"type":"function","function":{"name":"exec","description":"Run a shell command in the project directory and return its output.","parameters":{"type":"object","properties":{"command":{"type":"string","description":"The command line to run."},"cwd":{"type":"string"},"timeout_ms":{"type":"integer"}},"required":["command"]}}},` +
	`{"type":"function","function":{"name":"read_file","description":"Read a file of the project.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]}`

// BenchmarkParseChatRequest reads the representative request into its
// view, and with the former gjson-based view for comparison.
func BenchmarkParseChatRequest(b *testing.B) {
	benchParse(b, []byte(benchChatRequest), ParseChatRequest, refParseChatRequest)
}

// BenchmarkParseChatResponse reads a plain completion with text and one
// tool call (the harness's hook answer).
func BenchmarkParseChatResponse(b *testing.B) {
	body := mockupstream.StreamSpec{TextDeltas: 6, ToolCalls: 1, ArgFragments: 3, Usage: true}.Completion()
	benchParse(b, body, ParseChatResponse, refParseChatResponse)
}

func benchParse[V any](b *testing.B, body []byte, view, reference func([]byte) (V, error)) {
	for _, c := range []struct {
		name  string
		parse func([]byte) (V, error)
	}{{"view", view}, {"reference", reference}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for range b.N {
				if _, err := c.parse(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
