package providers

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// MessagesRequest is a view of an Anthropic Messages request body (POST
// /v1/messages). Strings are copies; the view does not alias the body.
type MessagesRequest struct {
	Model  string
	Stream bool
	// UserID is metadata.user_id.
	UserID string
	// System is the system prompt's text: the string, or the text of its
	// blocks joined with "\n\n". SystemState says which form it had:
	// FieldAbsent, FieldNull, FieldEmpty or FieldString for a string, and
	// FieldOther for a list of blocks.
	System      string
	SystemState FieldState
	// Messages in order; Messages[i] is messages[i] of the body.
	Messages []MessagesMessage
	// ToolNames are the names of tools[], in order.
	ToolNames []string
	// HasAssistant reports at least one assistant message.
	HasAssistant bool
	// ToolResults are the tool_result blocks of the user messages, in order.
	ToolResults []MessagesToolResult
}

// MessagesMessage is one element of messages.
type MessagesMessage struct {
	Role string
	// Text is the string content, or the text of its text blocks joined
	// with "\n". ContentState says which form it had (FieldOther for a list
	// of blocks).
	Text         string
	ContentState FieldState
	// HasText reports a string content or at least one text block: a user
	// message made only of tool_result blocks is not a prompt.
	HasText bool
	// ToolUses are an assistant message's tool_use blocks.
	ToolUses []MessagesToolUse
	// Blocks counts the content blocks (0 for a string content).
	Blocks int
}

// MessagesToolUse is a tool_use block of the history.
type MessagesToolUse struct {
	ID, Name string
	// Input is the input object's raw JSON.
	Input string
}

// MessagesToolResult is a tool_result block: the result of the call
// ToolUseID.
type MessagesToolResult struct {
	ToolUseID string
	// Content is the string content, or the text of its text blocks
	// joined with "\n".
	Content string
	IsError bool
	// Message is the position in Messages of the message holding it.
	Message int
}

// FirstUserText returns the text of the first user message that carries
// text.
func (r *MessagesRequest) FirstUserText() string {
	for _, m := range r.Messages {
		if m.Role == "user" && m.HasText {
			return m.Text
		}
	}
	return ""
}

// ToolResult returns the content of the newest result for the call id.
func (r *MessagesRequest) ToolResult(id string) (string, bool) {
	for i := len(r.ToolResults) - 1; i >= 0; i-- {
		if r.ToolResults[i].ToolUseID == id {
			return r.ToolResults[i].Content, true
		}
	}
	return "", false
}

// ParseMessagesRequest reads a Messages request. It fails with
// ErrInvalidJSON for a body that is not a JSON object, repeats a key, or
// has a messages member that is not an array or a system that is neither a
// string nor a list of blocks.
//
// Each object is read in one pass (json_doc.go); the values are those
// gjson's Get would give, oddities included (a block that is not an
// object is counted and read as empty; tools given as an object are read
// by their member values, as gjson's ForEach hands them over).
func ParseMessagesRequest(body []byte) (*MessagesRequest, error) {
	const what = "messages request"
	d, err := parseDoc(body, what)
	if err != nil {
		return nil, err
	}
	defer d.release()
	var top [6]span
	d.pick(d.root(), messagesRequestKeys, top[:])
	model, stream, metadata, sys, msgs, tools := top[0], top[1], top[2], top[3], top[4], top[5]
	if raw := d.raw(msgs); raw != nil && raw[0] != '[' {
		return nil, fmt.Errorf("%s: messages is %s, not an array: %w", what, gjson.ParseBytes(raw).Type, ErrInvalidJSON)
	}
	if raw := d.raw(sys); raw != nil && raw[0] != '"' && raw[0] != '[' && string(raw) != "null" {
		return nil, fmt.Errorf("%s: system is neither a string nor a list of blocks: %w", what, ErrInvalidJSON)
	}
	r := &MessagesRequest{
		Model:  rawString(d.raw(model)),
		Stream: rawBool(d.raw(stream)),
		UserID: rawString(d.raw(d.member(metadata, "user_id"))),
	}
	r.System, r.SystemState = d.blocksText(sys, "\n\n")
	var m [2]span
	var b [8]span // messagesBlockKeys
	var parts []string
	for it, i := d.values(msgs), 0; ; i++ {
		v, ok := it.next()
		if !ok {
			break
		}
		d.pick(v, messagesMessageKeys, m[:])
		msg := MessagesMessage{Role: rawString(d.raw(m[0]))}
		content := d.raw(m[1])
		if content == nil || content[0] != '[' {
			msg.Text, msg.ContentState = d.blocksText(m[1], "\n")
			msg.HasText = msg.ContentState == FieldString || msg.ContentState == FieldEmpty
		} else {
			// The blocks are read once: their text, and what each is.
			msg.ContentState = FieldOther
			parts = parts[:0]
			for blocks := d.values(m[1]); ; {
				blk, ok := blocks.next()
				if !ok {
					break
				}
				msg.Blocks++
				d.pick(blk, messagesBlockKeys, b[:])
				typ := d.raw(b[0])
				if text := d.raw(b[1]); len(text) > 0 && text[0] == '"' && (Field{Raw: typ}).Equal("text") {
					parts = append(parts, textOf(text))
				}
				switch rawString(typ) {
				case "text":
					msg.HasText = true
				case "tool_use":
					msg.ToolUses = append(msg.ToolUses, MessagesToolUse{ID: rawString(d.raw(b[2])), Name: rawString(d.raw(b[3])), Input: string(d.raw(b[4]))})
				case "tool_result":
					text, _ := d.blocksText(b[6], "\n")
					r.ToolResults = append(r.ToolResults, MessagesToolResult{ToolUseID: rawString(d.raw(b[5])), Content: text, IsError: rawBool(d.raw(b[7])), Message: i})
				}
			}
			msg.Text = strings.Join(parts, "\n")
		}
		if msg.Role == "assistant" {
			r.HasAssistant = true
		}
		r.Messages = append(r.Messages, msg)
	}
	for it := d.values(tools); ; {
		t, ok := it.next()
		if !ok {
			break
		}
		if n := d.raw(d.member(t, "name")); n != nil {
			r.ToolNames = append(r.ToolNames, rawString(n))
		}
	}
	return r, nil
}

// The members ParseMessagesRequest reads, in the order of its arrays.
var (
	messagesRequestKeys = []string{"model", "stream", "metadata", "system", "messages", "tools"}
	messagesMessageKeys = []string{"role", "content"}
	messagesBlockKeys   = []string{"type", "text", "id", "name", "input", "tool_use_id", "content", "is_error"}
)

// blocksText reads a member that is a string or a list of content blocks:
// the string, or the text of the "text" blocks joined with sep.
func (d *jsonDoc) blocksText(v span, sep string) (string, FieldState) {
	return d.joinText(v, sep, func(b span) (string, bool) {
		if text, typ := d.textAndType(b); len(text) > 0 && text[0] == '"' && (Field{Raw: typ}).Equal("text") {
			return textOf(text), true
		}
		return "", false
	})
}

// rawOrEmpty is a value's raw JSON, "" when it is absent.
func rawOrEmpty(v gjson.Result) string {
	if !v.Exists() {
		return ""
	}
	return v.Raw
}
