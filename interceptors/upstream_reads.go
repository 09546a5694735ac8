package interceptors

import (
	"context"
	"io"
)

// upstreamReads reads an upstream body on a goroutine of its own, so that
// a stream's loop can emit judgements that finish while the upstream is
// silent, and send heartbeats while a call is held. It is format-neutral:
// every held stream (chat, Messages, Responses) uses it.
//
// Reads arrive on c; each buffer must be handed back with reuse before the
// reader can fill it again (two rotate). The goroutine ends after the
// first read error or when ctx is done; a Read that blocks is released by
// closing the upstream body, which the proxy does once the relay returns.
type upstreamReads struct {
	c    chan readResult
	free chan *[]byte
}

func startUpstreamReads(ctx context.Context, upstream io.Reader) *upstreamReads {
	u := &upstreamReads{c: make(chan readResult), free: make(chan *[]byte, 2)}
	for range 2 {
		b := make([]byte, upstreamReadSize)
		u.free <- &b
	}
	go func() {
		for {
			var buf *[]byte
			select {
			case buf = <-u.free:
			case <-ctx.Done():
				return
			}
			n, err := upstream.Read(*buf)
			select {
			case u.c <- readResult{buf, n, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return u
}

// reuse hands a buffer back to the reader.
func (u *upstreamReads) reuse(buf *[]byte) { u.free <- buf }
