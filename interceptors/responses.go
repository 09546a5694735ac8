package interceptors

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// Responses reads OpenAI Responses traffic (POST /v1/responses): the same
// hook events as chat completions, with the same semantics, for agents
// that speak the Responses API (the OpenAI Agents SDK, Codex-style
// clients).
//
// What differs from chat is the wire format and the conversation state
// the upstream may keep. A request that continues through
// previous_response_id carries only the new items; hookgate follows such
// chains (and conversation objects) to the session they belong to, and
// tells the upstream about the calls it blocked in the stored response
// (see responses_chain.go).
//
// on_block: retry is not offered on this route: a blocked call is always
// answered with its note.
type Responses struct {
	// loop is the agent-loop machinery every wire format shares: options,
	// hooks, identity and the request-side events (turn.go).
	loop   *Chat
	chains responseChains
}

var _ Interceptor = (*Responses)(nil)

// NewResponses returns the Responses interceptor.
func NewResponses(opts Options) *Responses {
	loop := NewChat(opts)
	return &Responses{loop: loop, chains: responseChains{mem: loop.opts.Memory}}
}

// unguardedToolTypes are the tool types whose calls the agent runs but
// hookgate cannot hold: declaring one while pre_tool_use hooks are
// configured is refused, so that no call escapes them.
var unguardedToolTypes = map[string]bool{
	"local_shell": true, "shell": true, "apply_patch": true,
	"computer": true, "computer_use": true, "computer_use_preview": true,
}

// Begin reads the request and fires the request-side events.
func (r *Responses) Begin(ctx context.Context, req *Request) (Exchange, error) {
	c := r.loop
	if !c.active() {
		return &responsesExchange{r: r, body: req.Body}, nil
	}
	if err := c.admit(ctx); err != nil {
		return nil, err
	}
	view, err := providers.ParseResponsesRequest(req.Body)
	if err != nil {
		return nil, &RequestError{Status: 400, Type: "invalid_request_error", Code: "invalid_json",
			Message: "hookgate could not parse the request body as a Responses request, and its hooks must read it", Err: err}
	}
	x := &responsesExchange{r: r, body: req.Body, view: view, hooked: true, tenant: req.Tenant}
	if c.has(hooks.PreToolUse) {
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
	x.engine = c.opts.Engine
	x.metrics = c.opts.Metrics
	link, err := x.loadLink()
	if err != nil {
		return nil, err
	}
	x.id = c.identify(req, view.User, view.Model, view.SystemText(), firstInputUser(view))
	if link.Session != "" && (c.opts.SessionHeader == "" || req.Header == nil || strings.TrimSpace(req.Header(c.opts.SessionHeader)) == "") {
		x.id.session = link.Session
	}
	x.users = link.Users + newPrompts(view)
	// The chain's link is followed whatever the hooks.
	body, blocked, err := c.prepareTurn(ctx, &x.exchangeState, func() *turn { return responsesTurn(view, link) }, responsesEditor{}, req.Body)
	switch {
	case err != nil:
		return nil, err
	case blocked != "":
		x.reply = x.blockedReply(blocked)
		return x, nil
	}
	if outs := link.missingOutputs(view); len(outs) > 0 {
		if body, err = providers.AddToolOutputs(body, outs); err != nil {
			return nil, &RequestError{Status: 500, Type: "server_error", Code: "hookgate_error",
				Message: "hookgate could not tell the upstream about the calls it blocked in the previous response", Err: err}
		}
	}
	x.body = body
	return x, nil
}

// responsesExchange is one Responses request and its response.
type responsesExchange struct {
	r      *Responses
	body   []byte
	view   *providers.ResponsesRequest
	hooked bool
	reply  *Reply
	tenant string
	users  int // user messages of the chain so far, for the next link
	exchangeState
}

var (
	_ Interceptor = (*Responses)(nil)
	_ Exchange    = (*responsesExchange)(nil)
	_ Timer       = (*responsesExchange)(nil)
)

func (x *responsesExchange) Body() []byte  { return x.body }
func (x *responsesExchange) Reply() *Reply { return x.reply }

func (x *responsesExchange) watchesResponse() bool { return x.r.loop.watchesResponse(x.hooked) }

func (x *responsesExchange) RelayStream(ctx context.Context, upstream io.Reader, client Sink) error {
	switch {
	case !x.hooked:
		return x.relay().run(ctx, upstream, client, nil)
	case !x.watchesResponse():
		// Nothing to judge, but the chain must still lead back to this
		// session.
		return x.relay().run(ctx, upstream, client, x.linkOnEnd)
	}
	return newResponsesStream(x, client).run(ctx, upstream)
}

// relay is a stream relay that ends a failed stream with a Responses
// error event.
func (x *responsesExchange) relay() *streamRelay {
	opts := &x.r.loop.opts
	r := newStreamRelay(opts.MaxEventBytes, opts.MaxStreamBytes, responsesStreamEnds)
	r.errorEvent = func(code, message string) []byte {
		return providers.ResponsesErrorEvent("upstream_error", code, message, nil)
	}
	return r
}

func (x *responsesExchange) FinishPlain(ctx context.Context, body []byte) ([]byte, error) {
	x.noteUsageAt(ctx, body, "usage")
	if !x.hooked {
		return body, nil
	}
	return x.finishPlain(ctx, body)
}

// responsesStreamEnds reports an event after which a Responses stream may
// end cleanly: the response's last word, or an in-band error. The "event:"
// line names the event type on every recorded stream; the payload's type
// is read only when the line is missing or names something else (a server
// that labels every event alike).
func responsesStreamEnds(f *providers.SSEFrame) bool {
	if k := providers.ResponsesEventKindOf(f.Event); k != providers.RespOther || bytes.HasPrefix(f.Event, []byte("response.")) {
		return k.Terminal()
	}
	return providers.ResponsesEventKindOf(providers.ResponsesEventType(f.Data)).Terminal()
}
