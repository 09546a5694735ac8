package providers

import (
	"crypto/rand"
	"encoding/hex"
)

// messagesCodecRequest is a Messages request as MessagesCodec reads it.
type messagesCodecRequest struct{ r *MessagesRequest }

// MessagesCodecRequest is r as MessagesCodec's request: for an
// interceptor that read the request itself and streams its response
// through the codec.
func MessagesCodecRequest(r *MessagesRequest) CodecRequest { return messagesCodecRequest{r} }

func (q messagesCodecRequest) Model() string         { return q.r.Model }
func (q messagesCodecRequest) User() string          { return q.r.UserID }
func (q messagesCodecRequest) System() string        { return q.r.System }
func (q messagesCodecRequest) FirstUserText() string { return q.r.FirstUserText() }
func (q messagesCodecRequest) Streamed() bool        { return q.r.Stream }

// Structured is false: a Messages answer is text (a tool-forced answer is
// a tool_use block, which hookgate judges, not text).
func (q messagesCodecRequest) Structured() bool { return false }

func (q messagesCodecRequest) Turn() *Turn { return MessagesTurn(q.r) }

func (q messagesCodecRequest) ReplaceToolResult(body []byte, callID, content string) ([]byte, error) {
	return ReplaceMessagesToolResult(body, callID, content)
}

func (q messagesCodecRequest) AppendToMessage(body []byte, pos int, text string) ([]byte, error) {
	return AppendToMessagesMessage(body, pos, text)
}

func (q messagesCodecRequest) InjectSystem(body []byte, text string, afterAgentSystem bool) ([]byte, error) {
	return InjectMessagesSystem(body, text, afterAgentSystem)
}

// Answer is a whole message (streamed when the request asked for a
// stream) whose one text block is text, with a fresh id.
func (q messagesCodecRequest) Answer(text string) (string, []byte) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := "msg_hookgate_" + hex.EncodeToString(b[:])
	if q.r.Stream {
		return "text/event-stream", SynthesizeMessageStream(id, q.r.Model, text)
	}
	return "application/json", SynthesizeMessage(id, q.r.Model, text)
}

// MessagesTurn reads a Messages request as a turn of the agent loop. A
// user message made only of tool_result blocks carries results, not a
// prompt: only user messages with text count as prompts.
func MessagesTurn(r *MessagesRequest) *Turn {
	t := &Turn{HasAssistant: r.HasAssistant, Calls: map[string]TurnCall{}}
	for i, m := range r.Messages {
		switch m.Role {
		case "user":
			if m.HasText {
				t.Users = append(t.Users, TurnMessage{Pos: i, Text: m.Text})
			}
		case "assistant":
			for _, tu := range m.ToolUses {
				t.Calls[tu.ID] = TurnCall{Name: tu.Name, Arguments: tu.Input}
			}
		}
	}
	for _, res := range r.ToolResults {
		t.Results = append(t.Results, TurnResult{CallID: res.ToolUseID, Content: res.Content})
	}
	return t
}
