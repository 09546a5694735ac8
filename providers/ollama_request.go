package providers

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// OllamaRequest is a view of an /api/chat request body. Strings are
// copies; the view does not alias the body.
type OllamaRequest struct {
	Model string
	// Stream is the request's "stream": Ollama streams unless it is false.
	Stream bool
	// Structured reports a "format" ("json" or a JSON schema): the answer
	// is data a program parses.
	Structured bool
	Messages   []OllamaMessage
	// System is the content of the system messages joined with "\n".
	System string
	// ToolNames are the names of tools[].function, in order.
	ToolNames []string
	// ToolResults are the messages of role "tool", in order.
	ToolResults []OllamaToolResult
}

// OllamaMessage is one element of messages.
type OllamaMessage struct {
	// Role is the role in lower case: the Ollama server lowers it.
	Role    string
	Content string
	Calls   []OllamaHistoryCall
	// ToolName and ToolCallID are a tool result's tool_name and
	// tool_call_id.
	ToolName, ToolCallID string
}

// OllamaHistoryCall is a tool call of an assistant message of the history.
type OllamaHistoryCall struct {
	ID, Name string
	// Arguments is the arguments object's raw JSON ("" when absent).
	Arguments string
	// Message and Pos are its position: messages[Message].tool_calls[Pos].
	Message, Pos int
}

// OllamaToolResult is a "tool" message and the call it answers.
type OllamaToolResult struct {
	ToolName, ToolCallID, Content string
	// Message is the result's position in messages.
	Message int
	// CallMessage and CallPos are the answered call's position, -1 when no
	// call of the history matches: the call with the same id when the
	// result has a tool_call_id; else, among the calls of the nearest
	// earlier assistant message with calls, the one of the same tool_name
	// and the same rank among that name's results after it (the same rank
	// among all results when the result has no tool_name).
	CallMessage, CallPos int
}

// NewestUserText is the content of the newest user message.
func (r *OllamaRequest) NewestUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// FirstUserText is the content of the first user message.
func (r *OllamaRequest) FirstUserText() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// ParseOllamaRequest reads a request body. It fails with the
// canonical-form gate's errors (ErrDuplicateKey, ErrKeySpelling: the
// Ollama server matches members case-insensitively, so a variant could
// carry a message or a result hookgate would not see), and with
// ErrInvalidJSON for a body that is not an object, messages that are not
// an array of objects, a role, content, tool_name or tool_call_id that is
// not a string, or tool_calls as OllamaLine.Decode refuses them.
func ParseOllamaRequest(body []byte) (*OllamaRequest, error) {
	const what = "ollama request"
	if err := checkOllamaCanonical(body); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, fmt.Errorf("%s: not a JSON object: %w", what, ErrInvalidJSON)
	}
	msgs := root.Get("messages")
	if msgs.Exists() && msgs.Type != gjson.Null && !msgs.IsArray() {
		return nil, fmt.Errorf("%s: messages is not an array: %w", what, ErrInvalidJSON)
	}
	r := &OllamaRequest{Model: root.Get("model").String(), Stream: root.Get("stream").Raw != "false"}
	if f := root.Get("format"); f.Exists() && f.Type != gjson.Null && f.Raw != `""` {
		r.Structured = true
	}
	var systems []string
	for i, m := range msgs.Array() {
		om, err := readOllamaMessage(m, i)
		if err != nil {
			return nil, fmt.Errorf("%s: message %d: %w", what, i, err)
		}
		r.Messages = append(r.Messages, om)
		switch om.Role {
		case "system":
			systems = append(systems, om.Content)
		case "tool":
			res := OllamaToolResult{ToolName: om.ToolName, ToolCallID: om.ToolCallID, Content: om.Content, Message: i, CallMessage: -1, CallPos: -1}
			r.answer(&res)
			r.ToolResults = append(r.ToolResults, res)
		}
	}
	r.System = strings.Join(systems, "\n")
	for _, t := range root.Get("tools").Array() {
		r.ToolNames = append(r.ToolNames, t.Get("function.name").String())
	}
	return r, nil
}

func readOllamaMessage(m gjson.Result, i int) (OllamaMessage, error) {
	if !m.IsObject() {
		return OllamaMessage{}, fmt.Errorf("not an object: %w", ErrInvalidJSON)
	}
	var om OllamaMessage
	for _, k := range []string{"role", "content", "tool_name", "tool_call_id"} {
		v := m.Get(k)
		if v.Exists() && v.Type != gjson.Null && v.Type != gjson.String {
			return om, fmt.Errorf("%s is not a string: %w", k, ErrInvalidJSON)
		}
	}
	om.Role = strings.ToLower(m.Get("role").Str)
	om.Content = m.Get("content").Str
	om.ToolName = m.Get("tool_name").Str
	om.ToolCallID = m.Get("tool_call_id").Str
	if tc := m.Get("tool_calls"); tc.Exists() {
		calls, err := decodeOllamaCalls(nil, []byte(tc.Raw))
		if err != nil {
			return om, err
		}
		for _, c := range calls {
			om.Calls = append(om.Calls, OllamaHistoryCall{ID: c.ID.Text(), Name: c.Name.Text(), Arguments: rawValueText(c.Arguments.Raw), Message: i, Pos: c.Pos})
		}
	}
	return om, nil
}

// answer finds the call res answers among the messages read so far.
func (r *OllamaRequest) answer(res *OllamaToolResult) {
	if res.ToolCallID != "" {
		for i := len(r.Messages) - 1; i >= 0; i-- {
			for _, c := range r.Messages[i].Calls {
				if c.ID == res.ToolCallID {
					res.CallMessage, res.CallPos = c.Message, c.Pos
					return
				}
			}
		}
		return
	}
	for i := res.Message - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "assistant" || len(m.Calls) == 0 {
			continue
		}
		rank := 0
		for j := i + 1; j < res.Message; j++ {
			if o := r.Messages[j]; o.Role == "tool" && o.ToolName == res.ToolName {
				rank++
			}
		}
		n := 0
		for _, c := range m.Calls {
			if res.ToolName == "" || c.Name == res.ToolName {
				if n == rank {
					res.CallMessage, res.CallPos = c.Message, c.Pos
					return
				}
				n++
			}
		}
		return
	}
}

// InjectOllamaSystem returns a copy of body with a system message of text:
// the first message, or (after) right after the leading system messages.
func InjectOllamaSystem(body []byte, text string, after bool) ([]byte, error) {
	const what = "inject ollama system message"
	r, err := ParseOllamaRequest(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	at := 0
	if after {
		for at < len(r.Messages) && r.Messages[at].Role == "system" {
			at++
		}
	}
	msg := append(appendQuoted([]byte(`{"role":"system","content":`), text), '}')
	arr := []byte(gjson.GetBytes(body, "messages").Raw)
	if !gjson.GetBytes(body, "messages").IsArray() {
		arr = []byte("[]")
	}
	out, err := setRaw(body, "messages", insertArray(arr, msg, at))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// insertArray is a copy of the valid array arr with elem inserted before
// its element at (at the end when at is past the last).
func insertArray(arr, elem []byte, at int) []byte {
	out := []byte{'['}
	it, _ := iterArray(arr)
	n := 0
	for v, ok := it.next(); ok; v, ok = it.next() {
		if n == at {
			out = append(append(out, elem...), ',')
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, v...)
		n++
	}
	if at >= n {
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, elem...)
	}
	return append(out, ']')
}

// ReplaceOllamaToolResult returns a copy of body in which the "tool"
// message at messages[msg] has content in place of its own; its other
// members are kept. It fails with ErrNotFound when messages[msg] is not a
// tool message.
func ReplaceOllamaToolResult(body []byte, msg int, content string) ([]byte, error) {
	const what = "replace ollama tool result"
	r, err := ParseOllamaRequest(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if msg < 0 || msg >= len(r.Messages) || r.Messages[msg].Role != "tool" {
		return nil, fmt.Errorf("%s: message %d: %w", what, msg, ErrNotFound)
	}
	out, err := setRaw(body, jpath("messages", msg, "content"), appendQuoted(nil, content))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// AppendOllamaMessageText returns a copy of body in which the content of
// messages[msg] ends with text, as is (a null or absent content becomes
// text). It fails with ErrNotFound when there is no such message.
func AppendOllamaMessageText(body []byte, msg int, text string) ([]byte, error) {
	const what = "append to ollama message"
	r, err := ParseOllamaRequest(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if msg < 0 || msg >= len(r.Messages) {
		return nil, fmt.Errorf("%s: message %d: %w", what, msg, ErrNotFound)
	}
	out, err := setRaw(body, jpath("messages", msg, "content"), appendQuoted(nil, r.Messages[msg].Content+text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// ollamaCallKey is the id a Turn gives a call of the history: its own id,
// or its position.
func ollamaCallKey(id string, msg, pos int) string {
	if id != "" {
		return id
	}
	return "messages." + strconv.Itoa(msg) + ".tool_calls." + strconv.Itoa(pos)
}
