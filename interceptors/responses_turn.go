package interceptors

import (
	"github.com/hookgate/hookgate/providers"
)

// storedPromptPos marks, in a Responses turn, a user message of the chain
// that an earlier request carried: the upstream keeps it (with whatever
// hooks added to it then), so there is nothing to edit. These placeholders
// give the request's own prompts their ordinals in the whole chain, so a
// prompt sent again later ("continue") is judged again. They are added
// only before a new prompt: a request that carries none fires no
// user_prompt_submit.
const storedPromptPos = -2

// responsesTurn reads a Responses request as a turn of the agent loop. A
// request that continues a chain carries only its new items; link is what
// hookgate remembers of the chain (its user messages so far and the calls
// of the previous response, which its outputs answer).
func responsesTurn(view *providers.ResponsesRequest, link chainLink) *turn {
	t := &turn{HasAssistant: view.PreviousResponseID != "" || link.Session != "", Calls: map[string]turnCall{}}
	if hasUserMessage(view) {
		for i := 0; i < link.Users; i++ {
			t.Users = append(t.Users, turnMessage{Pos: storedPromptPos})
		}
	}
	for id, c := range link.Calls {
		t.Calls[id] = c
	}
	for _, it := range view.Input {
		switch {
		case it.Type == "message" && it.Role == "user":
			t.Users = append(t.Users, turnMessage{Pos: it.Pos, Text: it.Text})
		case it.Type == "message" && it.Role == "assistant":
			t.HasAssistant = true
		case it.Kind != providers.NotACall:
			t.HasAssistant = true
			t.Calls[it.CallID] = turnCall{Name: it.Name, Arguments: callArguments(it.Kind, it.Input)}
		case it.IsOutput():
			t.HasAssistant = true
			t.Results = append(t.Results, turnResult{CallID: it.CallID, Content: it.Output})
		case it.Type == "reasoning":
			t.HasAssistant = true
		}
	}
	return t
}

func hasUserMessage(view *providers.ResponsesRequest) bool { return newPrompts(view) > 0 }

// newPrompts counts the request's user messages.
func newPrompts(view *providers.ResponsesRequest) int {
	n := 0
	for _, it := range view.Input {
		if it.Type == "message" && it.Role == "user" {
			n++
		}
	}
	return n
}

// callArguments is a call's input as the JSON object hooks see: a
// function call's arguments, or {"input": text} for a custom tool call,
// whose input is free text.
func callArguments(kind providers.ResponsesCallKind, input string) string {
	if kind == providers.CustomToolCall {
		return string(customToolInput(input))
	}
	return input
}

// firstInputUser is the text of the first user message, for the session
// fingerprint.
func firstInputUser(view *providers.ResponsesRequest) string {
	for _, it := range view.Input {
		if it.Type == "message" && it.Role == "user" {
			return it.Text
		}
	}
	return ""
}

// responsesEditor edits Responses request bodies.
type responsesEditor struct{}

func (responsesEditor) ReplaceToolResult(body []byte, callID, content string) ([]byte, error) {
	return providers.ReplaceToolOutput(body, callID, content)
}

func (responsesEditor) AppendToMessage(body []byte, pos int, text string) ([]byte, error) {
	if pos == storedPromptPos {
		return body, nil
	}
	return providers.AppendToInputMessage(body, pos, text)
}

func (responsesEditor) InjectSystem(body []byte, text string, afterAgentSystem bool) ([]byte, error) {
	return providers.InjectInstructions(body, text, afterAgentSystem)
}
