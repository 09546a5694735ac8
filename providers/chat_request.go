package providers

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// ChatRequest is a view of a /v1/chat/completions request body. Strings are
// copies; the view does not alias the body.
type ChatRequest struct {
	Model  string
	Stream bool
	User   string
	// Messages in order; Messages[i] is messages[i] of the body.
	Messages []RequestMessage
	// ToolNames are the names of tools[].function (and of the deprecated
	// functions[]), in order.
	ToolNames []string
	// LegacyFunctions reports the deprecated "functions" field: its calls
	// stream as delta.function_call, which the tool-call assembler does not
	// handle.
	LegacyFunctions bool
	// SystemText is the text of the system and developer messages, joined
	// with "\n\n".
	SystemText string
	// NewestUser is the position in Messages of the last user message, -1
	// when there is none.
	NewestUser int
	// HasAssistant reports at least one assistant message (the
	// conversation has been going on).
	HasAssistant bool
	// ToolResults are the tool messages, in order.
	ToolResults []ToolResult
}

// RequestMessage is one element of messages.
type RequestMessage struct {
	Role string
	Name string
	// Content is the string content, or the text parts joined with "\n".
	// ContentState says which form it had: FieldOther for an array of
	// parts, whose non-text parts (images, audio, files) NonTextParts counts.
	Content      string
	ContentState FieldState
	NonTextParts int
	// ToolCalls are an assistant message's calls.
	ToolCalls []RequestToolCall
	// ToolCallID is a tool message's tool_call_id.
	ToolCallID string
}

// RequestToolCall is one element of an assistant message's tool_calls.
type RequestToolCall struct {
	ID, Name, Arguments string
}

// ToolResult is a tool message: the result of the call ToolCallID.
type ToolResult struct {
	ToolCallID string
	Content    string
	// Message is the position of the tool message in Messages.
	Message int
}

// NewestUserText returns the text of the newest user message.
func (r *ChatRequest) NewestUserText() string {
	if r.NewestUser < 0 {
		return ""
	}
	return r.Messages[r.NewestUser].Content
}

// ToolResult returns the content of the newest result for the call id.
func (r *ChatRequest) ToolResult(id string) (string, bool) {
	for i := len(r.ToolResults) - 1; i >= 0; i-- {
		if r.ToolResults[i].ToolCallID == id {
			return r.ToolResults[i].Content, true
		}
	}
	return "", false
}

// ParseChatRequest reads a chat-completions request. It fails with
// ErrInvalidJSON for a body that is not a JSON object, repeats a key, or
// has a messages member that is not an array.
//
// Each object is read in one pass (json_doc.go); the values are those
// gjson's Get would give, oddities included (a tool_calls member that is
// null or a string counts as one empty call, as gjson's ForEach hands the
// scalar itself over).
func ParseChatRequest(body []byte) (*ChatRequest, error) {
	d, err := parseDoc(body, "chat request")
	if err != nil {
		return nil, err
	}
	defer d.release()
	var top [6]span
	d.pick(d.root(), requestKeys, top[:])
	model, stream, user, msgs, tools, functions := top[0], top[1], top[2], top[3], top[4], top[5]
	if raw := d.raw(msgs); raw != nil && raw[0] != '[' {
		return nil, fmt.Errorf("chat request: messages is %s, not an array: %w", gjson.ParseBytes(raw).Type, ErrInvalidJSON)
	}
	r := &ChatRequest{
		Model:      rawString(d.raw(model)),
		Stream:     rawBool(d.raw(stream)),
		User:       rawString(d.raw(user)),
		NewestUser: -1,
	}
	var system []string
	var m [5]span
	var c, f [2]span
	for it, i := d.values(msgs), 0; ; i++ {
		v, ok := it.next()
		if !ok {
			break
		}
		d.pick(v, messageKeys, m[:])
		msg := RequestMessage{
			Role:       rawString(d.raw(m[0])),
			Name:       rawString(d.raw(m[1])),
			ToolCallID: rawString(d.raw(m[2])),
		}
		msg.Content, msg.ContentState = d.contentText(m[3])
		if msg.ContentState == FieldOther {
			for parts := d.values(m[3]); ; {
				p, ok := parts.next()
				if !ok {
					break
				}
				if t := d.raw(d.member(p, "type")); t != nil && !(Field{Raw: t}.Equal("text")) {
					msg.NonTextParts++
				}
			}
		}
		for calls := d.values(m[4]); ; {
			tc, ok := calls.next()
			if !ok {
				break
			}
			d.pick(tc, callKeys, c[:])
			d.pick(c[1], functionKeys, f[:])
			msg.ToolCalls = append(msg.ToolCalls, RequestToolCall{ID: rawString(d.raw(c[0])), Name: rawString(d.raw(f[0])), Arguments: rawValueText(d.raw(f[1]))})
		}
		switch msg.Role {
		case "system", "developer":
			system = append(system, msg.Content)
		case "user":
			r.NewestUser = i
		case "assistant":
			r.HasAssistant = true
		case "tool":
			r.ToolResults = append(r.ToolResults, ToolResult{ToolCallID: msg.ToolCallID, Content: msg.Content, Message: i})
		}
		r.Messages = append(r.Messages, msg)
	}
	r.SystemText = strings.Join(system, "\n\n")
	for it := d.values(tools); ; {
		t, ok := it.next()
		if !ok {
			break
		}
		if n := d.raw(d.member(d.member(t, "function"), "name")); n != nil {
			r.ToolNames = append(r.ToolNames, rawString(n))
		}
	}
	if raw := d.raw(functions); raw != nil && string(raw) != "null" {
		r.LegacyFunctions = true
		for it := d.values(functions); ; {
			fn, ok := it.next()
			if !ok {
				break
			}
			r.ToolNames = append(r.ToolNames, rawString(d.raw(d.member(fn, "name"))))
		}
	}
	return r, nil
}

// The members ParseChatRequest reads, in the order of its arrays.
var (
	requestKeys  = []string{"model", "stream", "user", "messages", "tools", "functions"}
	messageKeys  = []string{"role", "name", "tool_call_id", "content", "tool_calls"}
	callKeys     = []string{"id", "function"}
	functionKeys = []string{"name", "arguments"}
)

// SystemPlacement says where InjectSystemMessage puts its message.
type SystemPlacement int

const (
	// SystemFirst puts the message before every other message.
	SystemFirst SystemPlacement = iota
	// SystemAfterLeading puts it after the leading run of system and
	// developer messages, so the agent's own system prompt stays first.
	SystemAfterLeading
)

// InjectSystemMessage returns a copy of body with {"role":"system",
// "content":text} inserted into messages at the given place. The rest of
// the body keeps its bytes.
func InjectSystemMessage(body []byte, text string, where SystemPlacement) ([]byte, error) {
	const what = "inject system message"
	d, err := parseDoc(body, what)
	if err != nil {
		return nil, err
	}
	defer d.release()
	msgs := d.member(d.root(), "messages")
	if raw := d.raw(msgs); raw == nil || raw[0] != '[' {
		return nil, fmt.Errorf("%s: no messages array: %w", what, ErrInvalidJSON)
	}
	msg := append(appendQuoted([]byte(`{"role":"system","content":`), text), '}')

	// Find the element to insert before (or the end of the array): the
	// spans are offsets into body.
	at, ins := -1, msg
	var last span
	for it := d.values(msgs); ; {
		m, ok := it.next()
		if !ok {
			break
		}
		last = m
		if where == SystemAfterLeading {
			if role := rawString(d.raw(d.member(m, "role"))); role == "system" || role == "developer" {
				continue
			}
		}
		at, ins = m.off, append(msg, ',')
		break
	}
	switch {
	case at >= 0:
	case last.end > 0:
		at, ins = last.end, append([]byte{','}, msg...)
	default:
		at = msgs.off + 1 // an empty array
	}
	out := make([]byte, 0, len(body)+len(ins))
	out = append(append(append(out, body[:at]...), ins...), body[at:]...)
	if !gjson.ValidBytes(out) {
		return nil, fmt.Errorf("%s: splice produced invalid JSON: %w", what, ErrInvalidJSON)
	}
	return out, nil
}

// ReplaceToolResult returns a copy of body in which every tool message for
// the call toolCallID has content replaced by the string content. It fails
// with ErrNotFound when there is no such message.
func ReplaceToolResult(body []byte, toolCallID, content string) ([]byte, error) {
	const what = "replace tool result"
	root, err := parseBody(body, what)
	if err != nil {
		return nil, err
	}
	out := body
	n := 0
	for i, m := range root.Get("messages").Array() {
		if m.Get("role").String() != "tool" || m.Get("tool_call_id").String() != toolCallID {
			continue
		}
		if out, err = setRaw(out, jpath("messages", i, "content"), appendQuoted(nil, content)); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: no tool message for %q: %w", what, toolCallID, ErrNotFound)
	}
	return detach(out, body), nil
}
