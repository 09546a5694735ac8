package proxy

import (
	"io"
	"sync"
)

// chunkSink is the client side of an intercepted stream. The interceptor
// writes frames and flushes after each upstream read; the frames gather in
// a pooled buffer and leave as one chunk, written and flushed to the
// connection by fasthttp's chunk writer. Between flushes of an idle stream
// it holds no buffer at all.
//
// Write never fails: a client that left shows at the next Flush, as a
// sinkError, so the proxy can tell it from an upstream that failed.
type chunkSink struct {
	w            io.Writer
	buf          *[]byte
	onFirstFlush func()
	flushed      bool
}

func (s *chunkSink) Write(p []byte) (int, error) {
	if s.buf == nil {
		s.buf = sinkBuffers.Get().(*[]byte)
	}
	*s.buf = append(*s.buf, p...)
	return len(p), nil
}

// Flush sends what was written since the last flush as one chunk.
func (s *chunkSink) Flush() error {
	if s.buf == nil {
		return nil
	}
	_, err := s.w.Write(*s.buf)
	s.release()
	if err != nil {
		return &sinkError{err}
	}
	if !s.flushed && s.onFirstFlush != nil {
		s.flushed = true
		s.onFirstFlush()
	}
	return nil
}

// release hands the buffer back, unless one huge event grew it.
func (s *chunkSink) release() {
	if s.buf == nil {
		return
	}
	if cap(*s.buf) <= maxPooledSinkBuffer {
		*s.buf = (*s.buf)[:0]
		sinkBuffers.Put(s.buf)
	}
	s.buf = nil
}

// sinkError is a failed write to the client: the client is gone.
type sinkError struct{ err error }

func (e *sinkError) Error() string { return "writing to client: " + e.err.Error() }
func (e *sinkError) Unwrap() error { return e.err }

// maxPooledSinkBuffer keeps a buffer grown by one large event out of the
// pool, so the pool's buffers stay small.
const maxPooledSinkBuffer = 64 << 10

// sinkBuffers are pooled as *[]byte so that Put does not allocate.
var sinkBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, 4<<10)
	return &b
}}
