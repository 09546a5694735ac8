package interceptors

import (
	"context"
	"io"

	"github.com/hookgate/hookgate/providers"
)

// relayCodecStream relays a Responses stream that hooks watch through the
// format-neutral stream machine (codec_stream.go) with
// providers.ResponsesCodec: the request was read here
// (responses_begin.go), the stream is the codec's. The exchange's state
// goes to the machine's exchange and comes back with what the stream
// added to it (time, usage). The chain's link (responses_chain.go) is
// recorded from the terminal event as the client gets it, before it is
// written: the calls it lists, and those hookgate blocked, with the
// output their next request must carry.
func (x *responsesExchange) relayCodecStream(ctx context.Context, upstream io.Reader, client Sink) error {
	cx := &codecExchange{c: x.r.codec, body: x.body, view: providers.ResponsesCodecRequest(x.view), hooked: x.hooked}
	cx.exchangeState = x.exchangeState
	link := x.newLink()
	cx.onBlock = func(c *providers.CodecCall, v *verdict) {
		link.block(providers.ResponsesCallKindOfRef(c.Ref), c.ID, v.HookID, v.Reason)
	}
	cx.onEnd = func(payload []byte) {
		resp, err := providers.ReadResponsesOutput(payload, providers.EventOutput)
		if err != nil {
			return // an error event: no response to continue
		}
		for _, c := range resp.Calls() {
			link.addCall(c.CallID, c.Name, callArguments(c.Kind, c.Input))
		}
		x.saveLink(resp.ID, link)
	}
	err := newCodecStream(cx, client).run(ctx, upstream)
	x.exchangeState = cx.exchangeState
	return err
}
