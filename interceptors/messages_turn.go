package interceptors

import (
	"github.com/hookgate/hookgate/providers"
)

// messagesTurn reads a Messages request as a turn of the agent loop
// (providers.MessagesTurn).
func messagesTurn(view *providers.MessagesRequest) *turn { return providers.MessagesTurn(view) }

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
