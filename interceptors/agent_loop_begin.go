package interceptors

import "context"

// loopFormat is a wire format as the agent loop's begin reads it.
type loopFormat interface {
	// unread is the exchange of a request no hook reads: body goes
	// upstream as it came, and the response comes back as it is.
	unread(body []byte) Exchange
	// read parses the request into the exchange begin fills in, and
	// refuses with a *RequestError what the format cannot hold under the
	// configured hooks.
	read(req *Request) (loopExchange, error)
}

var (
	_ loopFormat = (*Chat)(nil)
	_ loopFormat = (*Messages)(nil)
	_ loopFormat = (*Responses)(nil)
	_ loopFormat = (*Codec)(nil)

	_ loopExchange = (*chatExchange)(nil)
	_ loopExchange = (*messagesExchange)(nil)
	_ loopExchange = (*responsesExchange)(nil)
	_ loopExchange = (*codecExchange)(nil)
)

// loopExchange is a read request of one wire format, as begin fills it
// in.
type loopExchange interface {
	Exchange
	// state is the exchange's share of the agent loop.
	state() *exchangeState
	// speaker is what identify reads of the request: the user it names,
	// the model, the system text and the first user message.
	speaker() (user, model, system, first string)
	// identified completes the request's identity with what only the
	// format knows (the provider its hooks are told, a chain's session).
	identified(req *Request, id *identity)
	// turn reads the request's turn (prepareTurn's readTurn).
	turn() *turn
	// editor applies the hooks' contributions to the format's bodies.
	editor() turnEditor
	// block answers the agent with text instead of forwarding.
	block(text string)
	// forward makes body, the request with the hooks' contributions,
	// what goes upstream.
	forward(body []byte) error
}

// begin is every format's Begin: with no hook it leaves the request
// alone; otherwise it asks the audit for room (admit), reads the request
// (f.read), works out who it comes from and fires the request-side events
// (prepareTurn). A request they block is answered in the format without
// being forwarded.
func (l *agentLoop) begin(ctx context.Context, req *Request, f loopFormat) (Exchange, error) {
	if !l.active() {
		return f.unread(req.Body), nil
	}
	if err := l.admit(ctx); err != nil {
		return nil, err
	}
	x, err := f.read(req)
	if err != nil {
		return nil, err
	}
	st := x.state()
	st.engine = l.opts.Engine
	st.metrics = l.opts.Metrics
	user, model, system, first := x.speaker()
	st.id = l.identify(req, user, model, system, first)
	x.identified(req, st.id)
	body, blocked, err := l.prepareTurn(ctx, st, x.turn, x.editor(), req.Body)
	switch {
	case err != nil:
		return nil, err
	case blocked != "":
		x.block(blocked)
		return x, nil
	}
	if err := x.forward(body); err != nil {
		return nil, err
	}
	return x, nil
}

// unreadableBody refuses a request whose body the format's reader could
// not parse: its hooks must read it, so it is not forwarded.
func unreadableBody(message string, err error) *RequestError {
	return &RequestError{Status: 400, Type: "invalid_request_error", Code: "invalid_json", Message: message, Err: err}
}
