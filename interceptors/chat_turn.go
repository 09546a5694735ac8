package interceptors

import (
	"github.com/hookgate/hookgate/providers"
)

// chatTurn reads a chat-completions request as a turn of the agent loop.
func chatTurn(view *providers.ChatRequest) *turn {
	t := &turn{HasAssistant: view.HasAssistant, Calls: map[string]turnCall{}}
	for i, m := range view.Messages {
		switch m.Role {
		case "user":
			t.Users = append(t.Users, turnMessage{Pos: i, Text: m.Content})
		case "assistant":
			for _, tc := range m.ToolCalls {
				t.Calls[tc.ID] = turnCall{Name: tc.Name, Arguments: tc.Arguments}
			}
		}
	}
	for _, r := range view.ToolResults {
		t.Results = append(t.Results, turnResult{CallID: r.ToolCallID, Content: r.Content})
	}
	return t
}

// firstUser is the text of the first user message, for the session
// fingerprint.
func firstUser(view *providers.ChatRequest) string {
	for _, m := range view.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// chatEditor edits chat-completions request bodies.
type chatEditor struct{}

func (chatEditor) ReplaceToolResult(body []byte, callID, content string) ([]byte, error) {
	return providers.ReplaceToolResult(body, callID, content)
}

func (chatEditor) AppendToMessage(body []byte, pos int, text string) ([]byte, error) {
	return providers.AppendToMessage(body, pos, text)
}

func (chatEditor) InjectSystem(body []byte, text string, afterAgentSystem bool) ([]byte, error) {
	where := providers.SystemFirst
	if afterAgentSystem {
		where = providers.SystemAfterLeading
	}
	return providers.InjectSystemMessage(body, text, where)
}
