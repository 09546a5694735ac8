package mockupstream

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// TerminalScript is a scripted model that makes Codex (on the Responses
// API) type a command into an interactive shell instead of running it:
//
//	step 0: exec_command {cmd: Allowed}
//	step 1: exec_command {cmd: Shell, tty: true}, which leaves a terminal
//	        session open and answers with its session ID
//	step 2…: write_stdin {session_id, chars: Typed[i]}, one per part, so
//	        that a command can be typed across several calls
//	then:   Final, as text.
//
// Like AgentScript, the step is the number of tool results in the
// conversation the agent sends (Codex sends the whole conversation each
// time, store: false). The session id is read from the newest tool
// result, where Codex reports "Process running with session ID N".
type TerminalScript struct {
	Allowed, Shell string
	Typed          []string
	Final          string

	mu     sync.Mutex
	seq    int
	served []string
	errs   []string
}

// terminalSessionID is how Codex reports a terminal session that is still
// running, in exec_command's and write_stdin's output.
var terminalSessionID = regexp.MustCompile(`session ID (\d+)`)

// terminalWait is how long Codex waits for output after starting the shell
// or typing (yield_time_ms): long enough for a short command to finish.
const terminalWait = 700

// Served returns the steps the model has answered, in order: "allowed",
// "shell", "typed 0", "typed 1", …, "final", and "text" for a request
// that declared no exec_command.
func (s *TerminalScript) Served() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.served...)
}

// Errors returns what kept the script from its next step (no session id
// in the conversation when it had to type).
func (s *TerminalScript) Errors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errs...)
}

// Handler answers POST .../responses, streamed or plain; anything else is
// a 404 in OpenAI's error shape.
func (s *TerminalScript) Handler() HandlerFunc {
	return func(req *Request) Response {
		if req.Method != http.MethodPost || !strings.HasSuffix(strings.TrimSuffix(req.Path, "/"), "/responses") {
			return Error(http.StatusNotFound, "not_found", "the terminal script answers only POST .../responses, not "+req.Method+" "+req.Path)
		}
		if !gjson.ValidBytes(req.Body) {
			return Error(http.StatusBadRequest, "invalid_request_error", "the request body is not JSON")
		}
		body := gjson.ParseBytes(req.Body)
		t := s.turn(body)
		if body.Get("stream").Bool() {
			return Stream(t.responsesSSE(), Chunking{Mode: PerEvent})
		}
		return JSON(http.StatusOK, []byte(t.responseObject("completed")))
	}
}

func (s *TerminalScript) turn(body gjson.Result) agentTurn {
	declared := false
	for _, tool := range body.Get("tools").Array() {
		if tool.Get("name").String() == "exec_command" {
			declared = true
		}
	}
	results, newest := 0, ""
	for _, item := range body.Get("input").Array() {
		if item.Get("type").String() == "function_call_output" {
			results++
			newest = contentText(item.Get("output"))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	t := agentTurn{ID: fmt.Sprintf("term%d", s.seq), Model: body.Get("model").String()}
	call := func(name string, args map[string]any) {
		t.Call = &ToolCall{ID: fmt.Sprintf("call_term%d", s.seq), Name: name, Arguments: jsonOf(args)}
	}
	switch typed := results - 2; {
	case !declared:
		s.served = append(s.served, "text")
		t.Text = "OK."
	case results == 0:
		s.served = append(s.served, "allowed")
		call("exec_command", map[string]any{"cmd": s.Allowed})
	case results == 1:
		s.served = append(s.served, "shell")
		call("exec_command", map[string]any{"cmd": s.Shell, "tty": true, "yield_time_ms": terminalWait})
	case typed < len(s.Typed):
		m := terminalSessionID.FindStringSubmatch(newest)
		if m == nil {
			s.errs = append(s.errs, fmt.Sprintf("step %d: the newest tool result names no running session: %q", results, newest))
			s.served = append(s.served, "final")
			t.Text = "The terminal closed; " + s.Final
			break
		}
		s.served = append(s.served, fmt.Sprintf("typed %d", typed))
		id, _ := strconv.Atoi(m[1]) // digits, by the pattern
		call("write_stdin", map[string]any{"session_id": id, "chars": s.Typed[typed], "yield_time_ms": terminalWait})
	default:
		s.served = append(s.served, "final")
		t.Text = s.Final
	}
	return t
}
