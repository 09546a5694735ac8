package interceptors

import (
	"context"
	"fmt"
	"time"

	"github.com/hookgate/hookgate/providers"
)

// eventRelay is what every held stream (chat, Messages, Responses) does
// with the upstream's bytes before its format decides anything: count them
// against limits.max_stream_bytes, feed the SSE parser, hand each complete
// event to the format, flush what the format wrote, and account the time
// spent as the exchange's own work.
type eventRelay struct {
	client    Sink
	parser    *providers.SSEParser
	relayed   int64
	maxStream int64
	work      *time.Duration
}

// eventFormat is the part of a held stream that knows its wire format.
type eventFormat interface {
	onFrame(ctx context.Context, f *providers.SSEFrame) error
	flush(ctx context.Context) error
	fail(code, message string, cause error) error
}

func newEventRelay(client Sink, maxEvent int, maxStream int64, work *time.Duration) eventRelay {
	return eventRelay{client: client, parser: providers.NewRelaySSEParser(maxEvent), maxStream: maxStream, work: work}
}

func (r *eventRelay) write(b []byte) error {
	_, err := r.client.Write(b)
	return err
}

// feed handles one read of the upstream body.
func (r *eventRelay) feed(ctx context.Context, rr readResult, f eventFormat) error {
	if rr.n == 0 {
		return nil
	}
	start := time.Now()
	defer func() { *r.work += time.Since(start) }()
	r.relayed += int64(rr.n)
	if r.maxStream > 0 && r.relayed > r.maxStream {
		return f.fail("stream_too_large", fmt.Sprintf("the upstream stream exceeded hookgate's limit of %d bytes (limits.max_stream_bytes)", r.maxStream), errStreamTooLarge)
	}
	r.parser.Feed((*rr.buf)[:rr.n])
	if err := r.drain(ctx, f); err != nil {
		return err
	}
	if err := f.flush(ctx); err != nil {
		return err
	}
	return r.client.Flush()
}

// drain hands every complete buffered event to the format.
func (r *eventRelay) drain(ctx context.Context, f eventFormat) error {
	for {
		frame, err := r.parser.Next()
		if err != nil {
			code, message := parserFailure(err)
			return f.fail(code, message, err)
		}
		if frame == nil {
			return nil
		}
		if err := f.onFrame(ctx, frame); err != nil {
			return err
		}
	}
}
