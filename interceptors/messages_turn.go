package interceptors

import (
	"github.com/hookgate/hookgate/providers"
)

// messagesTurn reads a Messages request as a turn of the agent loop. A
// user message made only of tool_result blocks carries results, not a
// prompt: only user messages with text count as prompts.
func messagesTurn(view *providers.MessagesRequest) *turn {
	t := &turn{HasAssistant: view.HasAssistant, Calls: map[string]turnCall{}}
	for i, m := range view.Messages {
		switch m.Role {
		case "user":
			if m.HasText {
				t.Users = append(t.Users, turnMessage{Pos: i, Text: m.Text})
			}
		case "assistant":
			for _, tu := range m.ToolUses {
				t.Calls[tu.ID] = turnCall{Name: tu.Name, Arguments: tu.Input}
			}
		}
	}
	for _, r := range view.ToolResults {
		t.Results = append(t.Results, turnResult{CallID: r.ToolUseID, Content: r.Content})
	}
	return t
}

// messagesEditor edits Messages request bodies.
type messagesEditor struct{}

func (messagesEditor) ReplaceToolResult(body []byte, callID, content string) ([]byte, error) {
	return providers.ReplaceMessagesToolResult(body, callID, content)
}

func (messagesEditor) AppendToMessage(body []byte, pos int, text string) ([]byte, error) {
	return providers.AppendToMessagesMessage(body, pos, text)
}

func (messagesEditor) InjectSystem(body []byte, text string, afterAgentSystem bool) ([]byte, error) {
	return providers.InjectMessagesSystem(body, text, afterAgentSystem)
}

// blockedReply answers a refused request with a normal message whose text
// says why (streamed when the agent asked for a stream), so an unmodified
// agent shows the reason instead of failing on an error.
func (x *messagesExchange) blockedReply(text string) *Reply {
	id := "msg_hookgate_" + randomHex(12)
	if x.view.Stream {
		return &Reply{Status: 200, ContentType: "text/event-stream", Body: providers.SynthesizeMessageStream(id, x.view.Model, text)}
	}
	return &Reply{Status: 200, ContentType: "application/json", Body: providers.SynthesizeMessage(id, x.view.Model, text)}
}
