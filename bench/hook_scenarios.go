package bench

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// PolicyURLVar is the variable a scenario's hooks snippet writes as
// ${HGBENCH_POLICY_URL} for an http hook: the hookgate starter then starts
// a loopback policy server that allows everything and fills in its URL.
const PolicyURLVar = "HGBENCH_POLICY_URL"

// SlowPolicyPath, after ${HGBENCH_POLICY_URL}, is the policy server's
// answer that takes SlowPolicyDelay: a policy server (or judge) slow
// enough that waiting for it shows.
const SlowPolicyPath = "/sleep5ms"

// SlowPolicyDelay is how long SlowPolicyPath takes to allow.
const SlowPolicyDelay = 5 * time.Millisecond

// DisclaimerText is what the disclaimer scenarios' pre_response hook
// appends to final answers.
const DisclaimerText = "(Automated answer; checked by hookgate.)"

// SessionContextText is what the session-context scenarios' session_start
// hook contributes, injected as a system message into every request of the
// session.
const SessionContextText = "You work for Example Corp. Production is read-only this week; never deploy."

// hookAnswer is the mock's answer in the hook scenarios: six text deltas
// and one tool call (exec, an ls/cat command that no policy here blocks)
// whose arguments come in three fragments, then the finish, usage and
// [DONE]. One call, so that "one hook judging a held tool call" is exactly
// that.
var hookAnswer = mockupstream.StreamSpec{TextDeltas: 6, ToolCalls: 1, ArgFragments: 3, Usage: true}

// finalAnswer is a final answer (text only): pre_response fires on it.
var finalAnswer = mockupstream.StreamSpec{TextDeltas: 6, Usage: true}

// hookKind is one family of hook scenarios: a hooks snippet and what the
// request and answer must be for the hooks to fire.
type hookKind struct {
	name, about string
	hooks       string
	answer      mockupstream.StreamSpec
	firstTurn   bool // the request opens a session (session_start fires)
	disclaimer  bool // hookgate's body carries DisclaimerText
	plainOnly   bool
}

// scriptHooks renders n allowing script hooks on pre_tool_use.
func scriptHooks(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `- id: allow-%d
  event: pre_tool_use
  priority: %d
  handler:
    type: script
    source: |
      function handle(e) {
        if (e.toolInput.command && e.toolInput.command.indexOf("rm -rf") >= 0) {
          return { decision: "block", reason: "destructive command" };
        }
        return { decision: "allow" };
      }
`, i, i)
	}
	return b.String()
}

var hookKinds = []hookKind{
	{name: "hooks-none", about: "no hooks configured (hookgate relays, parsing only what it must)", answer: hookAnswer},
	{name: "script1", about: "1 script hook on pre_tool_use judging the (held) tool call", hooks: scriptHooks(1), answer: hookAnswer},
	{name: "script10", about: "10 script hooks on pre_tool_use, each judging the (held) tool call", hooks: scriptHooks(10), answer: hookAnswer},
	{name: "cel", about: "a pre_tool_use hook whose if_expr is false for the call: only the CEL condition runs", answer: hookAnswer, hooks: `- id: cel-only
  event: pre_tool_use
  matcher: "^(exec|shell|bash)$"
  if_expr: "has(toolInput.command) && toolInput.command.startsWith('rm -rf')"
  handler:
    type: script
    source: 'function handle(e) { return { decision: "block", reason: "destructive command" }; }'
`},
	{name: "builtin", about: "the deny_patterns built-in (shell defaults) judging the tool call", answer: hookAnswer, hooks: `- id: no-destructive-exec
  event: pre_tool_use
  matcher: "^exec$"
  handler:
    type: builtin
    name: deny_patterns
    with: { defaults: [shell] }
`},
	{name: "command", about: "a command hook (/bin/sh reading the event and exiting 0: allow) on pre_tool_use", answer: hookAnswer, hooks: `- id: sh-allow
  event: pre_tool_use
  timeout_ms: 5000
  handler:
    type: command
    command: ["/bin/sh", "-c", "cat >/dev/null"]
`},
	{name: "http", about: "an http hook on pre_tool_use posting to a loopback policy server that allows", answer: hookAnswer, hooks: `- id: http-allow
  event: pre_tool_use
  timeout_ms: 5000
  handler:
    type: http
    url: ${` + PolicyURLVar + `}
`},
	{name: "http-sleep5", about: "an http hook on pre_tool_use whose loopback policy server takes 5 ms to allow, enforced: the call waits for it", answer: hookAnswer, hooks: `- id: http-slow
  event: pre_tool_use
  timeout_ms: 5000
  handler:
    type: http
    url: ${` + PolicyURLVar + `}` + SlowPolicyPath + `
`},
	{name: "dryrun-sleep5", about: "the same 5 ms http hook with dry_run: true: judged on the observer pool, nothing waits for it", answer: hookAnswer, hooks: `- id: http-slow-dry
  event: pre_tool_use
  timeout_ms: 5000
  dry_run: true
  handler:
    type: http
    url: ${` + PolicyURLVar + `}` + SlowPolicyPath + `
`},
	{name: "context", about: "session-context injection: a session_start script hook's text is injected as a system message into every request of the session (the hook fires once, in the warm-up; each measured request is rewritten)",
		answer: hookAnswer, firstTurn: true, hooks: `- id: house-rules
  event: session_start
  handler:
    type: script
    source: |
      function handle(e) {
        return { decision: "allow", additionalContext: "` + SessionContextText + `" };
      }
`},
	{name: "disclaimer", about: "disclaimer append: a pre_response script hook adds a text to every final answer (text only, no tool call)",
		answer: finalAnswer, disclaimer: true, hooks: `- id: disclaimer
  event: pre_response
  mode: append
  handler:
    type: script
    source: |
      function handle(e) {
        return { decision: "allow", additionalContext: "` + DisclaimerText + `" };
      }
`},
}

// HookScenarios are the built-in hook scenarios, each plain and streamed:
// hooks-none, script1, script10, cel, builtin, command, http,
// http-sleep5, dryrun-sleep5, context and disclaimer, named "<kind>-plain" and "<kind>-stream". script1-stream is
// the held tool call judged by one script hook: its added time to the
// finish (the "finish" columns) is the delay between the upstream's chunk
// that completes the call and the client receiving it. Against direct and
// the bare hop the hooks are ignored.
func HookScenarios(o Options) []Scenario {
	var out []Scenario
	for _, k := range hookKinds {
		out = append(out, k.scenario(false, o))
		if !k.plainOnly {
			out = append(out, k.scenario(true, o))
		}
	}
	return out
}

func (k hookKind) scenario(stream bool, o Options) Scenario {
	var r mockupstream.Response
	kind := "plain"
	if stream {
		kind = "stream"
		r = mockupstream.Stream(k.answer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: o.ChunkInterval})
	} else {
		r = mockupstream.JSON(http.StatusOK, k.answer.Completion())
	}
	r.Latency = o.UpstreamLatency
	body := ChatRequest(stream)
	if k.firstTurn {
		body = FirstTurnRequest(stream)
	}
	desc := k.about
	if stream {
		events := len(mockupstream.Chunks(r.Body, mockupstream.Chunking{Mode: mockupstream.PerEvent}))
		desc += fmt.Sprintf("; streamed, %d events every %v", events, o.ChunkInterval)
	} else {
		desc += "; plain response"
	}
	sc := Scenario{
		Name:        k.name + "-" + kind,
		Description: desc,
		Body:        body,
		Response:    r,
		Hooks:       k.hooks,
	}
	if k.disclaimer {
		upstream := r.Body
		sc.Verify = func(status int, body []byte) error {
			if status != http.StatusOK {
				return fmt.Errorf("status %d, want 200: %.120s", status, body)
			}
			// Direct and the bare hop relay the answer as it came;
			// hookgate adds the disclaimer to it.
			if !bytes.Equal(body, upstream) && !bytes.Contains(body, []byte(DisclaimerText)) {
				return fmt.Errorf("body is neither the upstream's nor carries the disclaimer (%d bytes)", len(body))
			}
			return nil
		}
	}
	return sc
}

// hookScenarioNames lists the hook scenarios for usage messages.
func hookScenarioNames() string {
	var names []string
	for _, k := range hookKinds {
		names = append(names, k.name+"-plain")
		if !k.plainOnly {
			names = append(names, k.name+"-stream")
		}
	}
	return strings.Join(names, ", ")
}

// FirstTurnRequest is the opening request of an agent session: a system
// prompt, the user's task and two tool definitions, no assistant message
// yet. Sent again and again it stays the same session (hookgate identifies
// a session without X-Session-Id by its system prompt and first user
// message), so session_start fires once and its context is re-injected
// into every later request.
func FirstTurnRequest(stream bool) []byte {
	streamPart := ""
	if stream {
		streamPart = `,"stream":true,"stream_options":{"include_usage":true}`
	}
	return []byte(`{"model":"gpt-4o","temperature":0.2` + streamPart + `,"messages":[` +
		`{"role":"system","content":"You are a coding agent working in the repository at /home/agent/project. Use the tools to inspect files and run commands."},` +
		`{"role":"user","content":"The build fails on CI with a missing module error. Find out why and fix it."}],` +
		`"tools":[` +
		`{"type":"function","function":{"name":"exec","description":"Run a shell command in the project directory and return its output.","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}},` +
		`{"type":"function","function":{"name":"read_file","description":"Read a file of the project.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]}`)
}
