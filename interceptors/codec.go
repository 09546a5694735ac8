package interceptors

import (
	"context"
	"io"
	"sync"

	"github.com/hookgate/hookgate/providers"
)

// Codec reads every wire format that brings a providers.Codec: the same
// hook events as the other routes, with the same semantics, over the
// codec's neutral reading of requests and frames. It knows no format; a
// format is added to hookgate as codec files and a registration
// (providers.Format.Codec).
//
// A tool call reaches the codec's frames whole (Gemini, Ollama), or, for
// a providers.PieceCodec, in pieces over several frames (codec_pieces.go).
// A frame that carries calls, or a piece of one, is held until they are
// judged; frames after it wait behind it, so the client reads them in the
// order they came. A blocked call is taken out and its note, like
// pre_response's text, joins the answer where it ends (codec_stream.go).
// Behind dry-run hooks only, calls are not held (codec_unheld.go).
// on_block: retry is not offered: a blocked call is answered with its
// note.
type Codec struct {
	// loop is the agent-loop machinery every wire format shares: options,
	// hooks, identity, the request-side and answer-side events.
	loop  *agentLoop
	codec providers.Codec
}

// NewCodec returns the interceptor of the format codec reads.
func NewCodec(opts Options, codec providers.Codec) *Codec {
	return &Codec{loop: newAgentLoop(opts), codec: codec}
}

// codecExchange is one request of a codec's format and its response.
type codecExchange struct {
	c      *Codec
	body   []byte
	view   providers.CodecRequest
	hooked bool
	reply  *Reply
	// digest identifies the request for the ids of calls without one
	// (requestDigest), taken once, on first use.
	digestOnce sync.Once
	digest     []byte
	// onEnd and onBlock, when set, see what a format keeps past the
	// response (codec_end.go).
	onEnd   func(payload []byte)
	onBlock func(c *providers.CodecCall, v *verdict)
	exchangeState
}

func (x *codecExchange) Body() []byte { return x.body }

// StreamsResponse reports a request read as streamed: Gemini's JSON-array
// stream comes as application/json, Ollama's as application/x-ndjson. A
// request hookgate did not read (no hook) is relayed as the proxy sees it.
func (x *codecExchange) StreamsResponse() bool { return x.view != nil && x.view.Streamed() }
func (x *codecExchange) Reply() *Reply         { return x.reply }

func (x *codecExchange) RelayStream(ctx context.Context, upstream io.Reader, client Sink) error {
	return newCodecStream(x, client).run(ctx, upstream)
}

func (x *codecExchange) FinishPlain(ctx context.Context, body []byte) ([]byte, error) {
	if !x.c.loop.watchesResponse(x.hooked) {
		return body, nil
	}
	return x.finishPlain(ctx, body)
}

// mayDisclaim reports whether pre_response runs on the answer: not on an
// answer the request asked for in a structured form (a JSON object, a
// schema), which a program parses and which text added to it would break
// (Gemini CLI's model router asks for one on every prompt).
func (x *codecExchange) mayDisclaim() bool { return !x.view.Structured() }
