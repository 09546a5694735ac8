package mockupstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// ToolCall is one tool call of a synthetic response.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text, as the model would send it
}

// StreamSpec describes a synthetic OpenAI chat-completions answer: some text,
// then some tool calls. SSE renders it as a stream, Completion as a plain
// chat.completion body. Rendering is deterministic.
type StreamSpec struct {
	// ID, Model and Created fill the envelope; empty means "chatcmpl-mock",
	// "mock-gpt" and 1700000000.
	ID      string
	Model   string
	Created int64
	// TextDeltas is the number of content deltas before the tool calls.
	TextDeltas int
	// Texts, when set, are the content deltas instead (TextDeltas is then
	// ignored): for a demo that should read like a real answer.
	Texts []string
	// ToolCalls is the number of generated tool calls (name "exec", with
	// distinct shell-command arguments). Calls, when set, is used instead.
	ToolCalls int
	Calls     []ToolCall
	// ArgFragments is how many argument deltas each call's arguments are
	// split into after its opening delta (0 means 1).
	ArgFragments int
	// Usage adds a final chunk with empty choices and a usage object, as
	// OpenAI sends with stream_options.include_usage.
	Usage bool
}

var words = []string{"Let ", "me ", "look ", "at ", "the ", "project ", "files ", "before ", "I ", "change ", "anything. "}

// Text is the assistant content the spec carries, assembled.
func (s StreamSpec) Text() string {
	var b bytes.Buffer
	if len(s.Texts) > 0 {
		for _, t := range s.Texts {
			b.WriteString(t)
		}
		return b.String()
	}
	for i := range s.TextDeltas {
		b.WriteString(words[i%len(words)])
	}
	return b.String()
}

// Tools returns the tool calls the spec carries, in order.
func (s StreamSpec) Tools() []ToolCall {
	if len(s.Calls) > 0 {
		out := append([]ToolCall(nil), s.Calls...)
		for i := range out {
			if out[i].ID == "" {
				out[i].ID = "call_mock_" + strconv.Itoa(i)
			}
		}
		return out
	}
	out := make([]ToolCall, s.ToolCalls)
	for i := range out {
		out[i] = ToolCall{
			ID:        "call_mock_" + strconv.Itoa(i),
			Name:      "exec",
			Arguments: fmt.Sprintf(`{"command":"ls -la /srv/app/part-%d && cat /srv/app/part-%d/README.md","cwd":"/home/agent/project","timeout_ms":30000}`, i, i),
		}
	}
	return out
}

func (s StreamSpec) envelope() (id, model string, created int64) {
	id, model, created = s.ID, s.Model, s.Created
	if id == "" {
		id = "chatcmpl-mock"
	}
	if model == "" {
		model = "mock-gpt"
	}
	if created == 0 {
		created = 1700000000
	}
	return id, model, created
}

// SSE renders the spec as an OpenAI chat.completion.chunk stream: a role
// chunk, TextDeltas content deltas, per tool call an opening delta (id, type,
// name, empty arguments) and ArgFragments argument deltas, a finishing
// chunk (finish_reason "tool_calls", or "stop" without calls), the usage
// chunk if asked for, and "data: [DONE]".
func (s StreamSpec) SSE() []byte {
	id, model, created := s.envelope()
	head := fmt.Sprintf(`data: {"id":%s,"object":"chat.completion.chunk","created":%d,"model":%s,"system_fingerprint":"fp_mock","choices":[`,
		jsonString(id), created, jsonString(model))
	var b bytes.Buffer
	chunk := func(delta, finish string) {
		b.WriteString(head)
		b.WriteString(`{"index":0,"delta":`)
		b.WriteString(delta)
		b.WriteString(`,"logprobs":null,"finish_reason":`)
		b.WriteString(finish)
		b.WriteString("}]}\n\n")
	}
	deltas := s.deltas()
	if len(deltas) > 0 {
		chunk(`{"role":"assistant","content":""}`, "null")
	} else {
		chunk(`{"role":"assistant","content":null}`, "null")
	}
	for _, d := range deltas {
		chunk(`{"content":`+jsonString(d)+`}`, "null")
	}
	calls := s.Tools()
	k := max(s.ArgFragments, 1)
	for i, c := range calls {
		idx := strconv.Itoa(i)
		chunk(`{"tool_calls":[{"index":`+idx+`,"id":`+jsonString(c.ID)+`,"type":"function","function":{"name":`+
			jsonString(c.Name)+`,"arguments":""}}]}`, "null")
		for _, frag := range splitN(c.Arguments, k) {
			chunk(`{"tool_calls":[{"index":`+idx+`,"function":{"arguments":`+jsonString(frag)+`}}]}`, "null")
		}
	}
	finish := `"stop"`
	if len(calls) > 0 {
		finish = `"tool_calls"`
	}
	chunk(`{}`, finish)
	if s.Usage {
		fmt.Fprintf(&b, `data: {"id":%s,"object":"chat.completion.chunk","created":%d,"model":%s,"system_fingerprint":"fp_mock","choices":[],"usage":%s}`+"\n\n",
			jsonString(id), created, jsonString(model), s.usage())
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// Completion renders the spec as a plain chat.completion body: the text as
// message.content (null when there is none), the calls as
// message.tool_calls, and a usage object.
func (s StreamSpec) Completion() []byte {
	id, model, created := s.envelope()
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"id":%s,"object":"chat.completion","created":%d,"model":%s,"system_fingerprint":"fp_mock","choices":[{"index":0,"message":{"role":"assistant","content":`,
		jsonString(id), created, jsonString(model))
	if len(s.deltas()) > 0 {
		b.WriteString(jsonString(s.Text()))
	} else {
		b.WriteString("null")
	}
	calls := s.Tools()
	if len(calls) > 0 {
		b.WriteString(`,"tool_calls":[`)
		for i, c := range calls {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%s,"type":"function","function":{"name":%s,"arguments":%s}}`,
				jsonString(c.ID), jsonString(c.Name), jsonString(c.Arguments))
		}
		b.WriteByte(']')
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	fmt.Fprintf(&b, `,"refusal":null},"logprobs":null,"finish_reason":%q}],"usage":%s}`, finish, s.usage())
	return b.Bytes()
}

// deltas are the content deltas: Texts, or TextDeltas generated words.
func (s StreamSpec) deltas() []string {
	if len(s.Texts) > 0 {
		return s.Texts
	}
	out := make([]string, s.TextDeltas)
	for i := range out {
		out[i] = words[i%len(words)]
	}
	return out
}

func (s StreamSpec) usage() string {
	completion := len(s.deltas())
	for _, c := range s.Tools() {
		completion += 4 + len(c.Arguments)/4
	}
	return fmt.Sprintf(`{"prompt_tokens":120,"completion_tokens":%d,"total_tokens":%d}`, completion, 120+completion)
}

// splitN cuts s into n pieces of nearly equal length (fewer when s is
// shorter than n), never inside a UTF-8 sequence.
func splitN(s string, n int) []string {
	n = min(n, len(s))
	if n <= 1 {
		return []string{s}
	}
	out := make([]string, 0, n)
	start := 0
	for i := 1; i <= n; i++ {
		end := i * len(s) / n
		for end < len(s) && !utf8.RuneStart(s[end]) {
			end++
		}
		if end > start {
			out = append(out, s[start:end])
			start = end
		}
	}
	return out
}

func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
