package interceptors

import (
	"context"

	"github.com/hookgate/hookgate/providers"
)

// Begin reads the request and fires the request-side events (the agent
// loop's begin).
func (m *Messages) Begin(ctx context.Context, req *Request) (Exchange, error) {
	return m.loop.begin(ctx, req, m)
}

func (m *Messages) unread(body []byte) Exchange { return &messagesExchange{m: m, body: body} }

func (m *Messages) read(req *Request) (loopExchange, error) {
	view, err := providers.ParseMessagesRequest(req.Body)
	if err != nil {
		return nil, unreadableBody("hookgate could not parse the request body as a Messages request, and its hooks must read it", err)
	}
	return &messagesExchange{m: m, body: req.Body, view: view, hooked: true}, nil
}

func (x *messagesExchange) state() *exchangeState { return &x.exchangeState }

func (x *messagesExchange) speaker() (user, model, system, first string) {
	return x.view.UserID, x.view.Model, x.view.System, x.view.FirstUserText()
}

// identified names the provider the Messages API is: whatever upstream
// serves it, its hooks are told "anthropic".
func (x *messagesExchange) identified(_ *Request, id *identity) { id.provider = messagesProvider }

func (x *messagesExchange) turn() *turn               { return messagesTurn(x.view) }
func (x *messagesExchange) editor() turnEditor        { return messagesEditor{} }
func (x *messagesExchange) block(text string)         { x.reply = x.blockedReply(text) }
func (x *messagesExchange) forward(body []byte) error { x.body = body; return nil }
