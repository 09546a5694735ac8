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
// (answer_join.go). A watched stream is relayed by the format-neutral
// stream machine reading providers.MessagesCodec (messages_codec.go); the
// request and plain responses are read here. Session context goes into
// system, and post_tool_use
// reads the tool_result blocks.
// Errors hookgate answers on this route take Anthropic's shape
// (providers.MessagesFormat).
//
// on_block: retry is not offered on this route: a blocked call is always
// answered with its note.
type Messages struct {
	// loop is the agent-loop machinery every wire format shares: options,
	// hooks, identity, the request-side and answer-side events.
	loop *agentLoop
	// codec streams the responses hooks watch (messages_codec.go), on the
	// same loop.
	codec *Codec
}

// messagesProvider is the provider every Messages hook event names.
const messagesProvider = "anthropic"

// NewMessages returns the Anthropic Messages interceptor.
func NewMessages(opts Options) *Messages {
	loop := newAgentLoop(opts)
	return &Messages{loop: loop, codec: &Codec{loop: loop, codec: providers.MessagesCodec}}
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
		r := newStreamRelay(opts.MaxEventBytes, opts.MaxStreamBytes, providers.MessagesStreamEnds)
		r.errorEvent = providers.MessagesStreamError
		return r.run(ctx, upstream, client, nil)
	}
	return x.relayCodecStream(ctx, upstream, client)
}

func (x *messagesExchange) FinishPlain(ctx context.Context, body []byte) ([]byte, error) {
	x.noteUsageAt(ctx, body, "usage")
	if !x.watchesResponse() {
		return body, nil
	}
	return x.finishPlain(ctx, body)
}
