package interceptors

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// endUpstream handles the end of a held stream's upstream body: the last
// events go to f; a failed read, a stream that never reached its terminal
// event (*terminal, read after the last events), or one that stops inside
// an event (even after its terminal one) is truncated:
// f tells the client in-band and the error wraps ErrTruncated, and what
// was still held is never emitted. complete reports a stream that ended
// whole. unfinished says, for the client, what the stream never reached.
func (r *eventRelay) endUpstream(ctx context.Context, readErr error, f eventFormat, terminal *bool, unfinished string) (complete bool, err error) {
	if !errors.Is(readErr, io.EOF) {
		return false, f.fail("stream_truncated", "the upstream connection failed before the stream finished", fmt.Errorf("%w: %v", ErrTruncated, readErr))
	}
	r.parser.End()
	if err := r.drain(ctx, f); err != nil {
		return false, err
	}
	if !*terminal {
		return false, f.fail("stream_truncated", unfinished, ErrTruncated)
	}
	if len(r.parser.Trailing()) > 0 {
		return false, f.fail("stream_truncated", unfinishedEvent, ErrTruncated)
	}
	return true, nil
}

// unfinishedEvent tells the client that the upstream stopped inside an
// event: a last event without its blank line is not whole, whatever came
// before it.
const unfinishedEvent = "the upstream stream ended inside an event, before the blank line that ends it"

// writeTail ends a held stream that finished whole. Nothing follows its
// last event (endUpstream refuses a stream that stops inside one), so
// only the flush is left.
func (r *eventRelay) writeTail() error { return r.client.Flush() }
