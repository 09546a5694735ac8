package interceptors

import (
	"context"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// Begin reads the request and fires the request-side events (the agent
// loop's begin).
func (r *Responses) Begin(ctx context.Context, req *Request) (Exchange, error) {
	return r.loop.begin(ctx, req, r)
}

func (r *Responses) unread(body []byte) Exchange { return &responsesExchange{r: r, body: body} }

// read parses the request, refuses the tools and the background
// responses hookgate could not hold, and loads the link of the chain the
// request continues (followed whatever the hooks).
func (r *Responses) read(req *Request) (loopExchange, error) {
	view, err := providers.ParseResponsesRequest(req.Body)
	if err != nil {
		return nil, unreadableBody("hookgate could not parse the request body as a Responses request, and its hooks must read it", err)
	}
	x := &responsesExchange{r: r, body: req.Body, view: view, hooked: true, tenant: req.Tenant}
	if r.loop.has(hooks.PreToolUse) {
		for _, t := range view.ToolTypes {
			if unguardedToolTypes[t] {
				return nil, &RequestError{Status: 400, Type: "invalid_request_error", Code: "unsupported_tool_type",
					Message: "tools of type \"" + t + "\" run on the agent's side without arguments hookgate can hold for its tool policy; declare them as function tools"}
			}
		}
	}
	if view.Background && !view.Stream && x.watchesResponse() {
		// The answer would be fetched later from GET /v1/responses/{id},
		// which hookgate does not read: its calls would escape the hooks.
		return nil, &RequestError{Status: 400, Type: "invalid_request_error", Code: "background_unsupported",
			Message: "background responses are fetched later, past hookgate's hooks; behind hookgate's policy stream them (stream: true) or drop background"}
	}
	if x.link, err = x.loadLink(); err != nil {
		return nil, err
	}
	x.users = x.link.Users + newPrompts(view)
	return x, nil
}

func (x *responsesExchange) state() *exchangeState { return &x.exchangeState }

func (x *responsesExchange) speaker() (user, model, system, first string) {
	return x.view.User, x.view.Model, x.view.SystemText(), firstInputUser(x.view)
}

// identified puts the request in the session of the chain it continues,
// unless its session header names one.
func (x *responsesExchange) identified(req *Request, id *identity) {
	if x.link.Session != "" && x.r.loop.sessionHeader(req) == "" {
		id.session = x.link.Session
	}
}

func (x *responsesExchange) turn() *turn        { return responsesTurn(x.view, x.link) }
func (x *responsesExchange) editor() turnEditor { return responsesEditor{} }
func (x *responsesExchange) block(text string)  { x.reply = x.blockedReply(text) }

// forward tells the upstream, in the body that goes to it, about the
// calls hookgate blocked in the previous response of the chain.
func (x *responsesExchange) forward(body []byte) error {
	if outs := x.link.missingOutputs(x.view); len(outs) > 0 {
		var err error
		if body, err = providers.AddToolOutputs(body, outs); err != nil {
			return &RequestError{Status: 500, Type: "server_error", Code: "hookgate_error",
				Message: "hookgate could not tell the upstream about the calls it blocked in the previous response", Err: err}
		}
	}
	x.body = body
	return nil
}
