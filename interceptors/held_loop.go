package interceptors

import (
	"context"
	"time"

	"github.com/hookgate/hookgate/providers"
)

// heldStream is what a stream that holds tool calls (chat, Messages,
// Responses) gives the loop that serves it.
type heldStream interface {
	// onRead takes one upstream read; onEnd the end of the upstream body.
	onRead(ctx context.Context, r readResult) error
	onEnd(ctx context.Context, readErr error) error
	// flush writes what has become writable (judged calls, in order).
	flush(ctx context.Context) error
	// finish ends the stream once the upstream is done and every call is
	// judged.
	finish(ctx context.Context) error
	// holding reports a call still held from the client.
	holding() bool
	// heartbeat tells the client, in-band, that a call is being held.
	heartbeat() error
	// flushClient flushes what was written to the client.
	flushClient() error
}

// serveHeld serves a held stream until it is over: upstream reads,
// finished judgements (each marked with resolve and counted off judging)
// and heartbeats. After the upstream's end it goes on until every held
// call has been judged and emitted.
func serveHeld[C any](ctx context.Context, s heldStream, judged <-chan C, judging *int, resolve func(C), reads *upstreamReads, beat <-chan time.Time) error {
	upstreamDone := false
	for {
		if upstreamDone && *judging == 0 {
			return s.finish(ctx)
		}
		in := reads.c
		if upstreamDone {
			in = nil
		}
		select {
		case r := <-in:
			err := s.onRead(ctx, r)
			reads.reuse(r.buf)
			if err != nil {
				return err
			}
			if r.err != nil {
				if err := s.onEnd(ctx, r.err); err != nil {
					return err
				}
				upstreamDone = true
			}
		case c := <-judged:
			*judging--
			resolve(c)
			if err := s.flush(ctx); err != nil {
				return err
			}
			if err := s.flushClient(); err != nil {
				return err
			}
		case <-beat:
			if s.holding() {
				if err := s.heartbeat(); err != nil {
					return err
				}
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// holdingComment is the heartbeat a held stream sends while a call waits
// for its hooks.
var holdingComment = providers.AppendSSEComment(nil, "hookgate: holding a tool call for its hooks")

// heartbeat writes the holding comment and flushes it.
func (r *eventRelay) heartbeat() error {
	if err := r.write(holdingComment); err != nil {
		return err
	}
	return r.client.Flush()
}

// flushClient flushes the client.
func (r *eventRelay) flushClient() error { return r.client.Flush() }
