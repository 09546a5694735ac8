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
func ParseMessagesRequest(body []byte) (*MessagesRequest, error) {
	const what = "messages request"
	root, err := parseBody(body, what)
	if err != nil {
		return nil, err
	}
	msgs := root.Get("messages")
	if msgs.Exists() && !msgs.IsArray() {
		return nil, fmt.Errorf("%s: messages is %s, not an array: %w", what, msgs.Type, ErrInvalidJSON)
	}
	sys := root.Get("system")
	if sys.Exists() && sys.Type != gjson.Null && sys.Type != gjson.String && !sys.IsArray() {
		return nil, fmt.Errorf("%s: system is neither a string nor a list of blocks: %w", what, ErrInvalidJSON)
	}
	r := &MessagesRequest{
		Model:  root.Get("model").String(),
		Stream: root.Get("stream").Bool(),
		UserID: root.Get("metadata.user_id").String(),
	}
	r.System, r.SystemState = blocksText(sys, "\n\n")
	i := 0
	msgs.ForEach(func(_, m gjson.Result) bool {
		msg := MessagesMessage{Role: m.Get("role").String()}
		content := m.Get("content")
		msg.Text, msg.ContentState = blocksText(content, "\n")
		msg.HasText = msg.ContentState == FieldString || msg.ContentState == FieldEmpty
		if content.IsArray() {
			content.ForEach(func(_, b gjson.Result) bool {
				msg.Blocks++
				switch b.Get("type").String() {
				case "text":
					msg.HasText = true
				case "tool_use":
					msg.ToolUses = append(msg.ToolUses, MessagesToolUse{ID: b.Get("id").String(), Name: b.Get("name").String(), Input: rawOrEmpty(b.Get("input"))})
				case "tool_result":
					text, _ := blocksText(b.Get("content"), "\n")
					r.ToolResults = append(r.ToolResults, MessagesToolResult{ToolUseID: b.Get("tool_use_id").String(), Content: text, IsError: b.Get("is_error").Bool(), Message: i})
				}
				return true
			})
		}
		if msg.Role == "assistant" {
			r.HasAssistant = true
		}
		r.Messages = append(r.Messages, msg)
		i++
		return true
	})
	root.Get("tools").ForEach(func(_, t gjson.Result) bool {
		if n := t.Get("name"); n.Exists() {
			r.ToolNames = append(r.ToolNames, n.String())
		}
		return true
	})
	return r, nil
}

// blocksText reads a member that is a string or a list of content blocks:
// the string, or the text of the "text" blocks joined with sep.
func blocksText(v gjson.Result, sep string) (string, FieldState) {
	switch {
	case !v.Exists():
		return "", FieldAbsent
	case v.Type == gjson.Null:
		return "", FieldNull
	case v.Type == gjson.String && v.Str == "":
		return "", FieldEmpty
	case v.Type == gjson.String:
		return v.Str, FieldString
	case v.IsArray():
		var parts []string
		v.ForEach(func(_, b gjson.Result) bool {
			if t := b.Get("text"); t.Type == gjson.String && b.Get("type").Str == "text" {
				parts = append(parts, t.Str)
			}
			return true
		})
		return strings.Join(parts, sep), FieldOther
	default:
		return "", FieldOther
	}
}

// rawOrEmpty is a value's raw JSON, "" when it is absent.
func rawOrEmpty(v gjson.Result) string {
	if !v.Exists() {
		return ""
	}
	return v.Raw
}
