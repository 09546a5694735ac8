package interceptors

import (
	"context"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// Begin reads the request and fires the request-side events (the agent
// loop's begin).
func (c *Chat) Begin(ctx context.Context, req *Request) (Exchange, error) {
	return c.begin(ctx, req, c)
}

func (c *Chat) unread(body []byte) Exchange { return &chatExchange{chat: c, body: body} }

func (c *Chat) read(req *Request) (loopExchange, error) {
	view, err := providers.ParseChatRequest(req.Body)
	if err != nil {
		return nil, unreadableBody("hookgate could not parse the request body as a chat completion request, and its hooks must read it", err)
	}
	if view.LegacyFunctions && c.has(hooks.PreToolUse) {
		// Calls to legacy functions stream as delta.function_call, which
		// hookgate does not hold: refusing is the only way not to let them
		// past pre_tool_use.
		return nil, &RequestError{Status: 400, Type: "invalid_request_error", Code: "legacy_functions_unsupported",
			Message: "the deprecated \"functions\" parameter is not supported behind hookgate's tool policy; use \"tools\""}
	}
	return &chatExchange{chat: c, body: req.Body, view: view, hooked: true}, nil
}

func (x *chatExchange) state() *exchangeState { return &x.exchangeState }

func (x *chatExchange) speaker() (user, model, system, first string) {
	return x.view.User, x.view.Model, x.view.SystemText, firstUser(x.view)
}

func (x *chatExchange) identified(*Request, *identity) {}
func (x *chatExchange) turn() *turn                    { return chatTurn(x.view) }
func (x *chatExchange) editor() turnEditor             { return chatEditor{} }
func (x *chatExchange) block(text string)              { x.reply = x.blockedReply(text) }
func (x *chatExchange) forward(body []byte) error      { x.body = body; return nil }
