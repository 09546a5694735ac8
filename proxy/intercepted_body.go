package proxy

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/interceptors"
)

// interceptedBody is the response body of an intercepted event stream.
// fasthttp's server goroutine calls WriteTo with its chunk writer, and the
// interceptor runs right there, writing to the connection: no goroutine,
// no pipe and no copy between the interceptor and the socket (fasthttp's
// SetBodyStreamWriter costs a goroutine wake-up per chunk). fasthttp closes
// the body once the response is written or abandoned; Close releases the
// upstream response and the runtime, whether or not WriteTo ran.
type interceptedBody struct {
	s         *Server
	x         *exchange
	resp      *fasthttp.Response
	upstream  io.Reader
	ex        interceptors.Exchange
	headersAt time.Time

	// relayErr is why the relay ended; closing the upstream with it
	// discards a connection that did not finish cleanly.
	relayErr error
	ran      bool
	closed   bool
}

var _ fasthttp.BodyWriterTo = (*interceptedBody)(nil)

// SupportsBodyWriteTo tells fasthttp to use WriteTo, not Read.
func (b *interceptedBody) SupportsBodyWriteTo() bool { return true }

// WriteTo relays the upstream stream through the interceptor to w, where
// every Write is one chunk, flushed to the client.
func (b *interceptedBody) WriteTo(w io.Writer) (int64, error) {
	if b.ran {
		return 0, errors.New("intercepted stream relayed twice")
	}
	b.ran = true
	counter := &countingWriter{w: w}
	sink := &chunkSink{w: counter, onFirstFlush: func() { b.s.metrics.ttfbAdded(time.Since(b.headersAt)) }}
	defer sink.release()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := b.ex.RelayStream(b.x.streamContext(ctx), b.upstream, sink)
	_, work := timing(b.ex)
	b.s.metrics.overhead(b.x.before + work)
	var sinkErr *sinkError
	switch {
	case errors.As(err, &sinkErr):
		b.relayErr = errClientGone
		return counter.n, sinkErr.err
	case errors.Is(err, interceptors.ErrTruncated):
		b.s.log.Warn("upstream stream truncated", "upstream", b.x.up.name)
		if r, ok := b.ex.(interceptors.TruncationRecorder); ok {
			r.RecordTruncation(err)
		}
	case err != nil:
		b.s.log.Warn("stream relay ended with an error", "upstream", b.x.up.name, "err", err)
	}
	// The client was told in-band why the stream stopped; its response
	// ends cleanly, and the upstream connection is not reused.
	b.relayErr = err
	return counter.n, nil
}

// Read is never used: fasthttp writes bodies that support WriteTo with
// it. A caller that reads instead gets an error rather than a relay run
// off the server's goroutine.
func (b *interceptedBody) Read([]byte) (int, error) {
	return 0, errors.New("an intercepted stream is written with WriteTo, not read")
}

// Close releases the upstream response and the runtime, once.
func (b *interceptedBody) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	reason := b.relayErr
	if !b.ran {
		reason = errClientGone
	}
	closeStream(b.resp, reason)
	fasthttp.ReleaseResponse(b.resp)
	b.s.metrics.streamEnded()
	b.x.endSpans(b.x.status)
	b.x.rt.leave()
	return nil
}

// countingWriter counts what reached the client.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
