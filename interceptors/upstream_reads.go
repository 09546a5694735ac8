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
//
// The first read is made on the caller's goroutine, before the reader
// goroutine exists, and the goroutine starts only once that read's buffer
// comes back: the first event (usually already buffered with the response
// headers) reaches the client without a goroutine start and a hand-over
// between goroutines, each a wake-up on another core. Nothing is lost by
// it: before the first event no call is held, so there is no judgement to
// emit and no heartbeat to send, and ctx, like every stream relay's, is
// looked at between reads.
//
// The two buffers come from readBuffers, the second only when the reader
// goroutine starts, and only the reader goroutine puts any back, as it
// ends: the ones it holds and the ones handed back to it (free). A buffer
// the loop still holds then, or one waiting in c, is left to the
// collector, so no buffer is ever in the pool and in use at once. The
// loop never keeps a slice of a buffer past reuse (the reader fills it
// again), so a pooled buffer holds nothing another stream could see.
type upstreamReads struct {
	c    chan readResult
	free chan *[]byte

	ctx      context.Context
	upstream io.Reader
	started  bool // the reader goroutine runs (or the first read ended the body)
}

func startUpstreamReads(ctx context.Context, upstream io.Reader) *upstreamReads {
	// c holds one result: the first read's, until the loop takes it.
	u := &upstreamReads{c: make(chan readResult, 1), free: make(chan *[]byte, 2), ctx: ctx, upstream: upstream}
	if ctx.Err() != nil {
		// The loop sees ctx done; no read is made for it.
		u.started = true
		return u
	}
	first := readBuffers.Get().(*[]byte)
	n, err := upstream.Read(*first)
	u.c <- readResult{first, n, err}
	// After the body's end (or a failed read) nothing more is read.
	u.started = err != nil
	return u
}

// read is the reader goroutine: one read per free buffer, until a read
// fails or ctx is done.
func (u *upstreamReads) read() {
	defer u.putFree()
	for {
		var buf *[]byte
		select {
		case buf = <-u.free:
		case <-u.ctx.Done():
			return
		}
		n, err := u.upstream.Read(*buf)
		select {
		case u.c <- readResult{buf, n, err}:
		case <-u.ctx.Done():
			readBuffers.Put(buf)
			return
		}
		if err != nil {
			return
		}
	}
}

// putFree returns to the pool the buffers handed back and not yet read
// into; the reader goroutine calls it as it ends.
func (u *upstreamReads) putFree() {
	for {
		select {
		case buf := <-u.free:
			readBuffers.Put(buf)
		default:
			return
		}
	}
}

// reuse hands a buffer back to the reader; the first buffer back starts
// it. Only the loop that receives from c calls it.
func (u *upstreamReads) reuse(buf *[]byte) {
	u.free <- buf
	if !u.started {
		u.started = true
		u.free <- readBuffers.Get().(*[]byte)
		go u.read()
	}
}
