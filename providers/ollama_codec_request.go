package providers

import (
	"fmt"
	"strconv"
)

// ollamaCodecRequest is an /api/chat request read by OllamaCodec.
type ollamaCodecRequest struct {
	view *OllamaRequest
}

// ParseRequest reads the request body; ParseOllamaRequest is its gate.
func (ollamaCodec) ParseRequest(_, _ string, body []byte) (CodecRequest, error) {
	view, err := ParseOllamaRequest(body)
	if err != nil {
		return nil, err
	}
	return &ollamaCodecRequest{view: view}, nil
}

func (r *ollamaCodecRequest) Model() string         { return r.view.Model }
func (r *ollamaCodecRequest) User() string          { return "" }
func (r *ollamaCodecRequest) System() string        { return r.view.System }
func (r *ollamaCodecRequest) FirstUserText() string { return r.view.FirstUserText() }
func (r *ollamaCodecRequest) Streamed() bool        { return r.view.Stream }
func (r *ollamaCodecRequest) Structured() bool      { return r.view.Structured }

// resultKey is the id a Turn gives a result: its tool_call_id; else the
// key of the call it answers (that call's id, or its position); else its
// own position.
func (r *ollamaCodecRequest) resultKey(res OllamaToolResult) string {
	switch {
	case res.ToolCallID != "":
		return res.ToolCallID
	case res.CallMessage >= 0:
		c := r.view.Messages[res.CallMessage].Calls[res.CallPos]
		return ollamaCallKey(c.ID, c.Message, c.Pos)
	default:
		return "messages." + strconv.Itoa(res.Message)
	}
}

// Turn reads the history: an assistant message means the session has
// begun; user messages are prompts; "tool" messages are results, each by
// the key of the call it answers.
func (r *ollamaCodecRequest) Turn() *Turn {
	t := &Turn{Calls: map[string]TurnCall{}}
	for i, m := range r.view.Messages {
		switch m.Role {
		case "assistant":
			t.HasAssistant = true
		case "user":
			t.Users = append(t.Users, TurnMessage{Pos: i, Text: m.Content})
		}
		for _, c := range m.Calls {
			t.Calls[ollamaCallKey(c.ID, c.Message, c.Pos)] = TurnCall{Name: c.Name, Arguments: c.Arguments}
		}
	}
	for _, res := range r.view.ToolResults {
		t.Results = append(t.Results, TurnResult{CallID: r.resultKey(res), Content: res.Content})
	}
	return t
}

// ReplaceToolResult replaces the content of the tool message keyed
// callID (Turn).
func (r *ollamaCodecRequest) ReplaceToolResult(body []byte, callID, content string) ([]byte, error) {
	for _, res := range r.view.ToolResults {
		if r.resultKey(res) == callID {
			return ReplaceOllamaToolResult(body, res.Message, content)
		}
	}
	return nil, fmt.Errorf("ollama tool result %q: %w", callID, ErrNotFound)
}

func (r *ollamaCodecRequest) AppendToMessage(body []byte, pos int, text string) ([]byte, error) {
	return AppendOllamaMessageText(body, pos, text)
}

func (r *ollamaCodecRequest) InjectSystem(body []byte, text string, afterAgentSystem bool) ([]byte, error) {
	return InjectOllamaSystem(body, text, afterAgentSystem)
}

// Answer is a message of text, done: two lines of a stream, or a body.
func (r *ollamaCodecRequest) Answer(text string) (string, []byte) {
	if !r.view.Stream {
		return "application/json", OllamaAnswerBody(r.view.Model, "", text)
	}
	body := OllamaTextLine(r.view.Model, "", text)
	return "application/x-ndjson", append(body, OllamaDoneLine(r.view.Model, "", "stop")...)
}
