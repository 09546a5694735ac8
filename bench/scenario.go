package bench

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// Scenario is one kind of request measured against every target. Adding a
// scenario is adding one value of this type.
type Scenario struct {
	// Name identifies the scenario in flags and results, e.g. "stream".
	Name string
	// Description says in a line what is measured.
	Description string
	// Method and Path of the request; empty means POST
	// /v1/chat/completions.
	Method string
	Path   string
	// Header holds extra request headers (e.g. X-Session-Id).
	Header map[string]string
	// Body is the request body, sent as application/json.
	Body []byte
	// Response is what the mock upstream answers to every request of the
	// scenario.
	Response mockupstream.Response
	// Hooks is a hookgate configuration snippet (the YAML of the hooks:
	// list) that the hookgate starter applies for this scenario; empty
	// means no hooks. Direct and bare hop ignore it.
	Hooks string
	// ToolKey is the bytes whose first arrival in a streamed body marks
	// its first tool call (the "first call" figure); nil means a chat
	// completion's "tool_calls".
	ToolKey []byte
	// Verify checks one response. Nil means: status 200 and a body identical
	// to Response.Body (only the status for a Loose target).
	Verify func(status int, body []byte) error
}

// Streamed reports whether the scenario's response is a stream, which makes
// time to first byte its headline figure (total latency for plain calls).
func (sc *Scenario) Streamed() bool { return sc.Response.Stream }

func (sc *Scenario) method() string {
	if sc.Method == "" {
		return http.MethodPost
	}
	return sc.Method
}

func (sc *Scenario) path() string {
	if sc.Path == "" {
		return "/v1/chat/completions"
	}
	return sc.Path
}

func (sc *Scenario) toolKey() []byte {
	if sc.ToolKey == nil {
		return keyToolCalls
	}
	return sc.ToolKey
}

// check applies Verify, or the default check.
func (sc *Scenario) check(loose bool, status int, body []byte) error {
	if sc.Verify != nil {
		return sc.Verify(status, body)
	}
	want := sc.Response.Status
	if want == 0 {
		want = http.StatusOK
	}
	if status != want {
		return fmt.Errorf("status %d, want %d: %.120s", status, want, body)
	}
	if !loose && !bytes.Equal(body, sc.Response.Body) {
		return fmt.Errorf("body differs from the upstream's (%d bytes, want %d)", len(body), len(sc.Response.Body))
	}
	return nil
}

// Options tune the built-in scenarios.
type Options struct {
	// UpstreamLatency is the mock's wait before its first byte.
	UpstreamLatency time.Duration
	// ChunkInterval is the mock's wait between two stream events. 5 ms
	// (200 events a second) is a fast model's pace.
	ChunkInterval time.Duration
}

// DefaultOptions are the settings of the documented runs.
func DefaultOptions() Options {
	return Options{ChunkInterval: 5 * time.Millisecond}
}

// Plain is a non-streamed chat completion answered with two tool calls.
func Plain(o Options) Scenario {
	spec := mockupstream.StreamSpec{TextDeltas: 6, ToolCalls: 2}
	r := mockupstream.JSON(http.StatusOK, spec.Completion())
	r.Latency = o.UpstreamLatency
	return Scenario{
		Name:        "plain",
		Description: "non-streamed chat completion; the answer carries text and 2 tool calls",
		Body:        ChatRequest(false),
		Response:    r,
	}
}

// Stream is a streamed chat completion: text deltas, then two tool calls
// with arguments in fragments, a usage chunk and [DONE], one event per write
// at o.ChunkInterval.
func Stream(o Options) Scenario {
	spec := mockupstream.StreamSpec{TextDeltas: 8, ToolCalls: 2, ArgFragments: 4, Usage: true}
	r := mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: o.ChunkInterval})
	r.Latency = o.UpstreamLatency
	return Scenario{
		Name:        "stream",
		Description: fmt.Sprintf("streamed chat completion: 8 text deltas then 2 tool calls in 4 argument fragments each, one event per write every %v", o.ChunkInterval),
		Body:        ChatRequest(true),
		Response:    r,
	}
}

// FixtureStreams names the recorded streams the "fixtures" scenarios replay:
// scenario name to fixture path under shared/fixtures.
var FixtureStreams = []struct{ Name, Fixture, About string }{
	{"fixture-vercel-text-tools", "vercel-gateway/chat-claude-sonnet4-parallel.sse", "text then 2 tool calls (Anthropic via a gateway)"},
	{"fixture-openai-args-53", "openai/chat-gpt4o-args-split-53-chunks.sse", "gpt-4o tool call, arguments in 53 chunks"},
	{"fixture-openrouter-comments", "openrouter/chat-kimi-parallel-processing-comments.sse", "parallel calls with ': OPENROUTER PROCESSING' comments"},
}

// FixtureStream replays a recorded stream, one event per write at
// o.ChunkInterval.
func FixtureStream(name, fixture, about string, o Options) (Scenario, error) {
	r, err := mockupstream.Fixture(fixture, mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: o.ChunkInterval})
	if err != nil {
		return Scenario{}, err
	}
	r.Latency = o.UpstreamLatency
	events := len(mockupstream.Chunks(r.Body, mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	return Scenario{
		Name:        name,
		Description: fmt.Sprintf("recorded stream %s (%s; %d bytes, %d events every %v)", fixture, about, len(r.Body), events, o.ChunkInterval),
		Body:        ChatRequest(true),
		Response:    r,
	}, nil
}

// Scenarios returns the built-in scenarios named in names ("plain",
// "stream", a fixture scenario's name, "fixtures" for all of those, a hook
// scenario's name, "hooks", "hooks-plain" or "hooks-stream" for those,
// "hooked-path" or one of its scenarios' names, a Responses hook
// scenario's name, "all" for everything but the hooked-path scenarios), in
// the order given.
func Scenarios(names []string, o Options) ([]Scenario, error) {
	var out []Scenario
	seen := map[string]bool{}
	add := func(sc Scenario) {
		if !seen[sc.Name] {
			seen[sc.Name] = true
			out = append(out, sc)
		}
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		matched := false
		if n == "plain" || n == "all" {
			add(Plain(o))
			matched = true
		}
		if n == "stream" || n == "all" {
			add(Stream(o))
			matched = true
		}
		for _, sc := range HookScenarios(o) {
			if n == sc.Name || n == "hooks" || n == "all" || (n == "hooks-plain" && !sc.Streamed()) || (n == "hooks-stream" && sc.Streamed()) {
				add(sc)
				matched = true
			}
		}
		if n == HookedPathGroup || strings.HasPrefix(n, HookedPathGroup+"-") {
			hp, err := HookedPathScenarios(o)
			if err != nil {
				return nil, err
			}
			for _, sc := range hp {
				if n == HookedPathGroup || n == sc.Name {
					add(sc)
					matched = true
				}
			}
		}
		for _, sc := range ResponsesHookScenarios(o) {
			if n == sc.Name || n == "all" {
				add(sc)
				matched = true
			}
		}
		for _, f := range FixtureStreams {
			if n == f.Name || n == "fixtures" || n == "all" {
				sc, err := FixtureStream(f.Name, f.Fixture, f.About, o)
				if err != nil {
					return nil, err
				}
				add(sc)
				matched = true
			}
		}
		if !matched {
			return nil, fmt.Errorf("bench: unknown scenario %q (known: plain, stream, fixtures, hooks, hooks-plain, hooks-stream, %s, all, %s, %s, %s, %s)", n, HookedPathGroup, fixtureNames(), hookScenarioNames(), responsesScenarioNames(), hookedPathNames())
		}
	}
	return out, nil
}

func fixtureNames() string {
	var names []string
	for _, f := range FixtureStreams {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// ChatRequest is a representative agent request: a system prompt, one
// earlier tool round trip in the history, a new user message and two tool
// definitions (about 2 KB).
func ChatRequest(stream bool) []byte {
	streamPart := ""
	if stream {
		streamPart = `,"stream":true,"stream_options":{"include_usage":true}`
	}
	return []byte(`{"model":"gpt-4o","temperature":0.2` + streamPart + `,"messages":[` +
		`{"role":"system","content":"You are a coding agent working in the repository at /home/agent/project. Use the tools to inspect files and run commands. Prefer small, reversible steps; explain what you are about to do before calling a tool; never run destructive commands without being asked."},` +
		`{"role":"user","content":"The build fails on CI with a missing module error. Find out why and fix it."},` +
		`{"role":"assistant","content":"I will look at the module file first.","tool_calls":[{"id":"call_hist_0","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"go.mod\"}"}}]},` +
		`{"role":"tool","tool_call_id":"call_hist_0","content":"module github.com/example/project\n\ngo 1.22\n\nrequire (\n\tgithub.com/example/lib v1.4.0\n)\n"},` +
		`{"role":"user","content":"Also check the vendor directory and list what is there."}],` +
		`"tools":[` +
		`{"type":"function","function":{"name":"exec","description":"Run a shell command in the project directory and return its output.","parameters":{"type":"object","properties":{"command":{"type":"string","description":"The command line to run."},"cwd":{"type":"string"},"timeout_ms":{"type":"integer"}},"required":["command"]}}},` +
		`{"type":"function","function":{"name":"read_file","description":"Read a file of the project.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]}`)
}
