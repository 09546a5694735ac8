package proxy

import (
	"bufio"
	"sync"
)

// flushSink is the client side of a streamed response. Its errors are
// wrapped in sinkError so the proxy can tell a client that left from an
// upstream that failed.
type flushSink struct {
	w            *bufio.Writer
	onFirstFlush func()
	flushed      bool
}

func (s *flushSink) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		return n, &sinkError{err}
	}
	return n, nil
}

func (s *flushSink) Flush() error {
	if err := s.w.Flush(); err != nil {
		return &sinkError{err}
	}
	if !s.flushed && s.onFirstFlush != nil {
		s.flushed = true
		s.onFirstFlush()
	}
	return nil
}

// sinkError is a failed write to the client: the client is gone.
type sinkError struct{ err error }

func (e *sinkError) Error() string { return "writing to client: " + e.err.Error() }
func (e *sinkError) Unwrap() error { return e.err }

// relayBufferSize is one read from an upstream stream; events larger than
// this simply take several reads.
const relayBufferSize = 32 << 10

// buffers are pooled as *[]byte so that Put does not allocate.
var buffers = sync.Pool{New: func() any {
	b := make([]byte, relayBufferSize)
	return &b
}}

func getBuffer() *[]byte  { return buffers.Get().(*[]byte) }
func putBuffer(b *[]byte) { buffers.Put(b) }
