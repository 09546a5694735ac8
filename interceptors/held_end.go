package interceptors

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// endUpstream handles the end of a held stream's upstream body: the last
// events go to f; a failed read, or a stream that never reached its
// terminal event (*terminal, read after the last events), is truncated:
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
	return true, nil
}

// writeTail ends a held stream that finished whole: the bytes of an
// unterminated last event as they came, then a flush.
func (r *eventRelay) writeTail() error {
	if tail := r.parser.Trailing(); len(tail) > 0 {
		if err := r.write(tail); err != nil {
			return err
		}
	}
	return r.client.Flush()
}
