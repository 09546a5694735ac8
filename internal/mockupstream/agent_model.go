package mockupstream

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// AgentScript is the conversation a scripted model plays with a real coding
// agent, on every API hookgate reads: with no tool result in the
// conversation yet it asks for Allowed through the agent's shell tool,
// after one tool result for Destructive, and after two or more it answers
// Final. A request that declares no shell tool it knows (title generation,
// summaries, quota probes) gets a short text answer.
//
// The step is read from the conversation the agent sends, not from a
// counter, so that retries and side requests do not move it; a Responses
// request that continues a previous response (previous_response_id) adds
// the tool results that response's conversation had.
type AgentScript struct {
	Allowed, Destructive, Final string
	// ShellTools adds or overrides shell tool shapes by declared tool
	// name: the arguments JSON of a call that runs command.
	ShellTools map[string]func(command string) string

	mu     sync.Mutex
	chains map[string]int // Responses id -> tool results in its conversation
	seq    int
}

// knownShellTools are the shell tools of the agents hookgate is tested
// with, in order of preference when an agent declares several.
var knownShellTools = []struct {
	name string
	args func(command string) string
}{
	{"Bash", objectArg("command")},
	{"bash", objectArg("command")},
	{"exec_command", objectArg("cmd")},
	{"shell", func(c string) string { return jsonOf(map[string]any{"command": []string{"bash", "-lc", c}}) }},
	{"shell_command", objectArg("command")},
	{"run_shell_command", objectArg("command")},
}

func objectArg(key string) func(string) string {
	return func(c string) string { return jsonOf(map[string]string{key: c}) }
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the values are built here; a ShellTools entry that returns broken JSON is a bug in its test
	}
	return string(b)
}

// agentTurn is one answer of the scripted model: some text, then at most
// one tool call.
type agentTurn struct {
	ID    string
	Model string
	Text  string
	Call  *ToolCall
}

// Handler answers the agent's requests; pass it to (*Server).Handle.
// Routes, after any prefix: POST .../chat/completions, .../responses,
// .../messages (streamed when the body asks), .../messages/count_tokens,
// and GET .../models. Anything else is a 404 in OpenAI's error shape.
func (s *AgentScript) Handler() HandlerFunc {
	return func(req *Request) Response {
		path := strings.TrimSuffix(req.Path, "/")
		switch {
		case req.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
			return JSON(http.StatusOK, []byte(agentModelsList))
		case req.Method != http.MethodPost:
		case strings.HasSuffix(path, "/messages/count_tokens"):
			return JSON(http.StatusOK, []byte(`{"input_tokens":128}`))
		case !gjson.ValidBytes(req.Body):
			return Error(http.StatusBadRequest, "invalid_request_error", "the request body is not JSON")
		case strings.HasSuffix(path, "/chat/completions"):
			return s.chat(gjson.ParseBytes(req.Body))
		case strings.HasSuffix(path, "/responses"):
			return s.responses(gjson.ParseBytes(req.Body))
		case strings.HasSuffix(path, "/messages"):
			return s.messages(gjson.ParseBytes(req.Body))
		}
		return Error(http.StatusNotFound, "not_found", "the scripted model does not answer "+req.Method+" "+req.Path)
	}
}

// agentModelsList reads as a model list to OpenAI and Anthropic clients.
const agentModelsList = `{"object":"list","data":[{"id":"mock-model","object":"model","type":"model","created":1700000000,"owned_by":"mock","display_name":"mock-model","created_at":"2025-01-01T00:00:00Z"}],"has_more":false,"first_id":"mock-model","last_id":"mock-model"}`

// turn decides the answer for a conversation with toolResults results in
// it, to a request that declared the tool names in declared.
func (s *AgentScript) turn(model string, declared []string, toolResults int) agentTurn {
	s.mu.Lock()
	s.seq++
	n := s.seq
	s.mu.Unlock()
	t := agentTurn{ID: fmt.Sprintf("mock%d", n), Model: model}
	name, args := s.shellTool(declared)
	switch {
	case name == "":
		t.Text = "OK."
	case toolResults == 0:
		t.Text = "First I will look around."
		t.Call = &ToolCall{ID: fmt.Sprintf("call_%d", n), Name: name, Arguments: args(s.Allowed)}
	case toolResults == 1:
		t.Text = "Now I will clean up."
		t.Call = &ToolCall{ID: fmt.Sprintf("call_%d", n), Name: name, Arguments: args(s.Destructive)}
	default:
		t.Text = s.Final
	}
	return t
}

// shellTool picks the shell tool among the declared ones: ShellTools
// first, then the known shapes in their order.
func (s *AgentScript) shellTool(declared []string) (string, func(string) string) {
	for _, d := range declared {
		if f, ok := s.ShellTools[d]; ok {
			return d, f
		}
	}
	for _, k := range knownShellTools {
		for _, d := range declared {
			if d == k.name {
				return d, k.args
			}
		}
	}
	return "", nil
}

func (s *AgentScript) chat(body gjson.Result) Response {
	var declared []string
	for _, tool := range body.Get("tools").Array() {
		declared = append(declared, tool.Get("function.name").String())
	}
	results := 0
	for _, m := range body.Get("messages").Array() {
		if m.Get("role").String() == "tool" {
			results++
		}
	}
	t := s.turn(body.Get("model").String(), declared, results)
	spec := StreamSpec{ID: "chatcmpl-" + t.ID, Model: t.Model, Texts: []string{t.Text}, Usage: body.Get("stream_options.include_usage").Bool()}
	if t.Call != nil {
		spec.Calls = []ToolCall{*t.Call}
	}
	if body.Get("stream").Bool() {
		return Stream(spec.SSE(), Chunking{Mode: PerEvent})
	}
	return JSON(http.StatusOK, spec.Completion())
}

func (s *AgentScript) responses(body gjson.Result) Response {
	var declared []string
	for _, tool := range body.Get("tools").Array() {
		declared = append(declared, tool.Get("name").String())
	}
	results := 0
	input := body.Get("input")
	for _, item := range input.Array() {
		switch item.Get("type").String() {
		case "function_call_output", "custom_tool_call_output":
			results++
		}
	}
	s.mu.Lock()
	if s.chains == nil {
		s.chains = make(map[string]int)
	}
	results += s.chains[body.Get("previous_response_id").String()]
	s.mu.Unlock()
	t := s.turn(body.Get("model").String(), declared, results)
	s.mu.Lock()
	s.chains["resp_"+t.ID] = results
	s.mu.Unlock()
	if body.Get("stream").Bool() {
		return Stream(t.responsesSSE(), Chunking{Mode: PerEvent})
	}
	return JSON(http.StatusOK, []byte(t.responseObject("completed")))
}

func (s *AgentScript) messages(body gjson.Result) Response {
	var declared []string
	for _, tool := range body.Get("tools").Array() {
		declared = append(declared, tool.Get("name").String())
	}
	results := 0
	for _, m := range body.Get("messages").Array() {
		if m.Get("role").String() != "user" {
			continue
		}
		for _, block := range m.Get("content").Array() {
			if block.Get("type").String() == "tool_result" {
				results++
			}
		}
	}
	t := s.turn(body.Get("model").String(), declared, results)
	if body.Get("stream").Bool() {
		return Stream(t.messagesSSE(), Chunking{Mode: PerEvent})
	}
	return JSON(http.StatusOK, []byte(t.messageObject()))
}
