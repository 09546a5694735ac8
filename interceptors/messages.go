package interceptors

import (
	"context"
	"io"

	"github.com/hookgate/hookgate/providers"
)

// Messages reads Anthropic Messages traffic (POST /v1/messages): the same
// hook events as chat completions, with the same semantics, for agents
// that speak the Messages API (Claude Code, the Anthropic SDKs). The event
// hooks receive names the API: provider "anthropic".
//
// What differs from chat is the wire format. A tool call is a tool_use
// content block, held from its content_block_start to its
// content_block_stop; a blocked one is dropped and its note, like
// pre_response's text, joins the answer's last text block
// (answer_join.go). Session context goes into system, and post_tool_use
// reads the tool_result blocks.
// Errors hookgate answers on this route take Anthropic's shape
// (providers.MessagesFormat).
//
// on_block: retry is not offered on this route: a blocked call is always
// answered with its note.
type Messages struct {
	// loop is the agent-loop machinery every wire format shares: options,
	// hooks, identity and the request-side events (turn.go).
	loop *Chat
}

var (
	_ Interceptor = (*Messages)(nil)
	_ Exchange    = (*messagesExchange)(nil)
	_ Timer       = (*messagesExchange)(nil)
)

// messagesProvider is the provider every Messages hook event names.
const messagesProvider = "anthropic"

// NewMessages returns the Anthropic Messages interceptor.
func NewMessages(opts Options) *Messages {
	return &Messages{loop: NewChat(opts)}
}

// messagesErrorText leads an in-band error's message with hookgate's
// code, as Anthropic's error shape has no code of its own.
func messagesErrorText(code, message string) string {
	if code == "" {
		return message
	}
	return code + ": " + message
}

// Begin reads the request and fires the request-side events.
func (m *Messages) Begin(ctx context.Context, req *Request) (Exchange, error) {
	c := m.loop
	if !c.active() {
		return &messagesExchange{m: m, body: req.Body}, nil
	}
	if err := c.admit(ctx); err != nil {
		return nil, err
	}
	view, err := providers.ParseMessagesRequest(req.Body)
	if err != nil {
		return nil, &RequestError{Status: 400, Type: "invalid_request_error", Code: "invalid_json",
			Message: "hookgate could not parse the request body as a Messages request, and its hooks must read it", Err: err}
	}
	x := &messagesExchange{m: m, body: req.Body, view: view, hooked: true}
	x.engine = c.opts.Engine
	x.metrics = c.opts.Metrics
	x.id = c.identify(req, view.UserID, view.Model, view.System, view.FirstUserText())
	x.id.provider = messagesProvider
	body, blocked, err := c.prepareTurn(ctx, &x.exchangeState, func() *turn { return messagesTurn(view) }, messagesEditor{}, req.Body)
	switch {
	case err != nil:
		return nil, err
	case blocked != "":
		x.reply = x.blockedReply(blocked)
	default:
		x.body = body
	}
	return x, nil
}

// messagesExchange is one Messages request and its response.
type messagesExchange struct {
	m      *Messages
	body   []byte
	view   *providers.MessagesRequest
	hooked bool
	reply  *Reply
	exchangeState
}

func (x *messagesExchange) Body() []byte  { return x.body }
func (x *messagesExchange) Reply() *Reply { return x.reply }

func (x *messagesExchange) watchesResponse() bool { return x.m.loop.watchesResponse(x.hooked) }

func (x *messagesExchange) RelayStream(ctx context.Context, upstream io.Reader, client Sink) error {
	if !x.watchesResponse() {
		opts := &x.m.loop.opts
		r := newStreamRelay(opts.MaxEventBytes, opts.MaxStreamBytes, messagesStreamEnds)
		r.errorEvent = messagesFailEvent
		return r.run(ctx, upstream, client, nil)
	}
	return newMessagesStream(x, client).run(ctx, upstream)
}

func (x *messagesExchange) FinishPlain(ctx context.Context, body []byte) ([]byte, error) {
	x.noteUsageAt(ctx, body, "usage")
	if !x.watchesResponse() {
		return body, nil
	}
	return x.finishPlain(ctx, body)
}
