package interceptors

import (
	"context"
	"io"

	"github.com/hookgate/hookgate/providers"
)

// relayCodecStream relays a Messages stream that hooks watch through the
// format-neutral stream machine (codec_stream.go) with
// providers.MessagesCodec: the request was read here (messages_begin.go),
// the stream is the codec's. The exchange's state goes to the machine's
// exchange and comes back with what the stream added to it (time, usage).
func (x *messagesExchange) relayCodecStream(ctx context.Context, upstream io.Reader, client Sink) error {
	cx := &codecExchange{c: x.m.codec, body: x.body, view: providers.MessagesCodecRequest(x.view), hooked: x.hooked}
	cx.exchangeState = x.exchangeState
	err := newCodecStream(cx, client).run(ctx, upstream)
	x.exchangeState = cx.exchangeState
	return err
}
