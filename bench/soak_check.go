package bench

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// Soak hook modes (-hooks).
const (
	// SoakHooksScript judges every tool call with a pre_tool_use script
	// hook that blocks one of the two calls of each answer.
	SoakHooksScript = "script"
	// SoakHooksNone configures no hook: hookgate relays each answer as it
	// came, and the soak holds it to the upstream's bytes.
	SoakHooksNone = "none"
)

// soakHookID names the soak's script hook; the block note carries it.
const soakHookID = "soak-judge"

// soakHooks is the soak's pre_tool_use script hook: it blocks a
// destructive command and allows the rest.
// The hook's timeout is a production one for a policy that may not be
// skipped (fail-closed): on a loaded shared machine under the race
// detector, one script execution can take seconds, and a soak that timed
// its hooks out would measure the machine, not hookgate.
const soakHooks = `- id: ` + soakHookID + `
  event: pre_tool_use
  matcher: "^exec$"
  timeout_ms: 15000
  handler:
    type: script
    source: |
      function handle(e) {
        if (e.toolInput.command.indexOf("rm -rf") >= 0) return { decision: "block", reason: "destructive command" };
        return { decision: "allow" };
      }
`

// The two tool calls of every soak answer: the hook allows the first and
// blocks the second. Each answer numbers its calls' ids (call_soak_ok_N,
// call_soak_rm_N, N in 8 digits), as a model gives every call an id of its
// own: state hookgate keeps per call id shows in the heap.
const (
	soakAllowedPrefix = "call_soak_ok_"
	soakBlockedPrefix = "call_soak_rm_"
	soakAllowedArgs   = `{"command":"ls -la /srv/app && cat /srv/app/README.md","cwd":"/home/agent/project","timeout_ms":30000}`
	soakBlockedArgs   = `{"command":"rm -rf /srv/app","cwd":"/home/agent/project","timeout_ms":30000}`
)

// soakSpec is the mock's n-th answer: 8 text deltas, the two calls with
// their arguments in 4 fragments each (held by hookgate until complete),
// the finish, usage and [DONE].
func soakSpec(n uint64) mockupstream.StreamSpec {
	return mockupstream.StreamSpec{TextDeltas: 8, ArgFragments: 4, Usage: true, Calls: []mockupstream.ToolCall{
		{ID: fmt.Sprintf("%s%08d", soakAllowedPrefix, n), Name: "exec", Arguments: soakAllowedArgs},
		{ID: fmt.Sprintf("%s%08d", soakBlockedPrefix, n), Name: "exec", Arguments: soakBlockedArgs},
	}}
}

// soakMock answers every request with the next numbered answer, one event
// per write every interval.
func soakMock(interval time.Duration) mockupstream.HandlerFunc {
	var seq atomic.Uint64
	return func(*mockupstream.Request) mockupstream.Response {
		return mockupstream.Stream(soakSpec(seq.Add(1)%1e8).SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: interval})
	}
}

// soakNumber reads N from the allowed call's id in an answer.
func soakNumber(body []byte) (uint64, bool) {
	i := bytes.Index(body, []byte(soakAllowedPrefix))
	if i < 0 || i+len(soakAllowedPrefix)+8 > len(body) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(body[i+len(soakAllowedPrefix):i+len(soakAllowedPrefix)+8]), 10, 64)
	return n, err == nil
}

// soakBlockNote is what hookgate's default block template
// ("[hookgate] tool call {{tool}} blocked by {{hook}}: {{reason}}") makes
// of the blocked call: a line of text after the answer's own text.
const soakBlockNote = "[hookgate] tool call exec blocked by " + soakHookID + ": destructive command"

// SoakScenario is the soak's one scenario: a streamed chat completion whose
// answer carries text and two tool calls, one event per write every
// interval; with hooks SoakHooksScript a script hook blocks one call.
// Every answer is checked exactly (checkSoakAnswer), or against the
// upstream's bytes without hooks (checkSoakRelay). Its Response is the
// first answer; the soak's mock numbers the calls of each (soakMock).
func SoakScenario(hooks string, interval time.Duration) (Scenario, error) {
	body := soakSpec(0).SSE()
	sc := Scenario{
		Name:     "soak-" + hooks,
		Body:     ChatRequest(true),
		Response: mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: interval}),
	}
	events := len(mockupstream.Chunks(body, mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	switch hooks {
	case SoakHooksScript:
		sc.Hooks = soakHooks
		sc.Verify = checkSoakAnswer
		sc.Description = fmt.Sprintf("streamed chat completion, %d events every %v: text, then 2 exec calls in 4 argument fragments each (held until complete); a pre_tool_use script hook allows the first and blocks the second", events, interval)
	case SoakHooksNone:
		sc.Verify = checkSoakRelay
		sc.Description = fmt.Sprintf("streamed chat completion, %d events every %v: text, then 2 exec calls in 4 argument fragments each; no hook, the answer must be the upstream's bytes", events, interval)
	default:
		return Scenario{}, fmt.Errorf("bench: soak hooks %q: want %s or %s", hooks, SoakHooksScript, SoakHooksNone)
	}
	return sc, nil
}

// soakCall is one tool call as the client reassembles it.
type soakCall struct {
	id, name string
	args     []byte
}

// checkSoakAnswer holds one answer through the script hook to what it must
// be: status 200; the upstream's text intact, followed by the block note
// (soakNoteOK) and nothing else; exactly one tool call, the allowed one, with its id,
// name and arguments byte for byte (at index 0); no trace of the blocked
// call's id; finish_reason "tool_calls"; the usage chunk; no error event;
// and "data: [DONE]" as the last event.
func checkSoakAnswer(status int, body []byte) error {
	if status != http.StatusOK {
		return fmt.Errorf("status %d, want 200: %.200s", status, body)
	}
	if !bytes.HasSuffix(body, []byte("data: [DONE]\n\n")) {
		return fmt.Errorf("mismatch: the stream does not end with data: [DONE] (%d bytes, ends %q)", len(body), tail(body, 120))
	}
	if bytes.Contains(body, []byte(soakBlockedPrefix)) {
		return errors.New("mismatch: the blocked call's id reached the client")
	}
	n, ok := soakNumber(body)
	if !ok {
		return errors.New("mismatch: the allowed call's id is missing")
	}
	spec := soakSpec(n)
	allowed := spec.Calls[0]
	var (
		text   strings.Builder
		calls  []soakCall
		finish string
		usage  bool
		done   int
	)
	for ev := range bytes.SplitSeq(body, []byte("\n\n")) {
		for line := range bytes.SplitSeq(ev, []byte("\n")) {
			data, ok := bytes.CutPrefix(line, []byte("data:"))
			if !ok {
				continue // blank, a heartbeat comment, event: or id: lines
			}
			data = bytes.TrimSpace(data)
			if string(data) == "[DONE]" {
				done++
				continue
			}
			if !gjson.ValidBytes(data) {
				return fmt.Errorf("mismatch: an event's data is not JSON: %.200s", data)
			}
			j := gjson.ParseBytes(data)
			if e := j.Get("error"); e.Exists() {
				return fmt.Errorf("mismatch: error event in the stream: %.200s", e.Raw)
			}
			if j.Get("usage").IsObject() {
				usage = true
			}
			for _, ch := range j.Get("choices").Array() {
				if i := ch.Get("index").Int(); i != 0 {
					return fmt.Errorf("mismatch: a choice of index %d", i)
				}
				d := ch.Get("delta")
				text.WriteString(d.Get("content").String())
				for _, tc := range d.Get("tool_calls").Array() {
					i := int(tc.Get("index").Int())
					if i < 0 || i > len(calls) {
						return fmt.Errorf("mismatch: tool call index %d after %d calls", i, len(calls))
					}
					if i == len(calls) {
						calls = append(calls, soakCall{})
					}
					c := &calls[i]
					if id := tc.Get("id").String(); id != "" {
						c.id = id
					}
					if n := tc.Get("function.name").String(); n != "" {
						c.name = n
					}
					c.args = append(c.args, tc.Get("function.arguments").String()...)
				}
				if f := ch.Get("finish_reason"); f.Type == gjson.String {
					if finish != "" {
						return fmt.Errorf("mismatch: a second finish_reason %q after %q", f.Str, finish)
					}
					finish = f.Str
				}
			}
		}
	}
	got, answer := text.String(), spec.Text()
	switch {
	case done != 1:
		return fmt.Errorf("mismatch: %d [DONE] events, want 1", done)
	case !strings.HasPrefix(got, answer):
		return fmt.Errorf("mismatch: the answer's text is not intact: %q", got)
	case !soakNoteOK(got[len(answer):]):
		return fmt.Errorf("mismatch: text after the answer is %q, want the block note %q", got[len(answer):], soakBlockNote+"\n")
	case len(calls) != 1:
		return fmt.Errorf("mismatch: %d tool calls reached the client, want the allowed one only", len(calls))
	case calls[0].id != allowed.ID || calls[0].name != allowed.Name:
		return fmt.Errorf("mismatch: tool call %s %s, want %s %s", calls[0].id, calls[0].name, allowed.ID, allowed.Name)
	case string(calls[0].args) != allowed.Arguments:
		return fmt.Errorf("mismatch: the allowed call's arguments are %q, want %q", calls[0].args, allowed.Arguments)
	case finish != "tool_calls":
		return fmt.Errorf("mismatch: finish_reason %q, want tool_calls", finish)
	case !usage:
		return errors.New("mismatch: the usage chunk is missing")
	}
	return nil
}

// checkSoakRelay holds one answer without hooks to the upstream's bytes:
// status 200 and the body the mock sent, the numbered answer it names.
func checkSoakRelay(status int, body []byte) error {
	if status != http.StatusOK {
		return fmt.Errorf("status %d, want 200: %.200s", status, body)
	}
	n, ok := soakNumber(body)
	if !ok {
		return errors.New("mismatch: the first call's id is missing")
	}
	if want := soakSpec(n).SSE(); !bytes.Equal(body, want) {
		return fmt.Errorf("mismatch: the body differs from the upstream's (%d bytes, want %d)", len(body), len(want))
	}
	return nil
}

// soakNoteOK reports whether the text after the answer's is the block
// note and its newline. hookgate starts the note on a line of its own when
// it keeps the answer's text (for pre_response, stop or retries); without
// such hooks it does not know how the text ended, and the note follows it
// directly.
func soakNoteOK(after string) bool {
	after = strings.TrimPrefix(after, "\n")
	return after == soakBlockNote+"\n"
}

// tail is the last n bytes of b.
func tail(b []byte, n int) []byte { return b[max(len(b)-n, 0):] }
