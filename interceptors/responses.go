package interceptors

import (
	"bytes"
	"context"
	"io"

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
	// hooks, identity, the request-side and answer-side events.
	loop   *agentLoop
	chains responseChains
	// codec streams the responses hooks watch (responses_codec.go), on the
	// same agent loop.
	codec *Codec
}

// NewResponses returns the Responses interceptor.
func NewResponses(opts Options) *Responses {
	loop := newAgentLoop(opts)
	return &Responses{loop: loop, chains: responseChains{mem: loop.opts.Memory}, codec: &Codec{loop: loop, codec: providers.ResponsesCodec}}
}

// unguardedToolTypes are the tool types whose calls the agent runs but
// hookgate cannot hold: declaring one while pre_tool_use hooks are
// configured is refused, so that no call escapes them.
var unguardedToolTypes = map[string]bool{
	"local_shell": true, "shell": true, "apply_patch": true,
	"computer": true, "computer_use": true, "computer_use_preview": true,
}

// responsesExchange is one Responses request and its response.
type responsesExchange struct {
	r      *Responses
	body   []byte
	view   *providers.ResponsesRequest
	hooked bool
	reply  *Reply
	tenant string
	users  int       // user messages of the chain so far, for the next link
	link   chainLink // the link of the chain the request continues (none when it starts one)
	exchangeState
}

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
	return x.relayCodecStream(ctx, upstream, client)
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
