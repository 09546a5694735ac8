package proxy

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// The retry decision on its own: a failed write on a connection that had
// served a response counts as dropped; a fresh connection never does; a
// close without a byte counts only within the window; a timeout never.
func TestDroppedBeforeRequest(t *testing.T) {
	conn := func(served bool) *deadlineConn {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		c := newDeadlineConn(a, time.Minute, time.Minute)
		c.served.Store(served)
		return c
	}

	c := conn(true)
	_ = c.Conn.Close()
	if _, err := c.Write([]byte("POST / HTTP/1.1\r\n")); err == nil {
		t.Fatal("a write on a closed pipe succeeded")
	}
	if !c.droppedBeforeRequest(errors.New("write failed"), staleConnWindow) {
		t.Error("a failed write on a reused connection is not counted as dropped")
	}

	c = conn(false)
	_ = c.Conn.Close()
	_, _ = c.Write([]byte("x"))
	if c.droppedBeforeRequest(io.EOF, staleConnWindow) {
		t.Error("a fresh connection's failure is counted as dropped")
	}

	c = conn(true)
	c.lastWrite = time.Now()
	if !c.droppedBeforeRequest(io.EOF, staleConnWindow) {
		t.Error("a close right after the write is not counted as dropped")
	}
	if c.droppedBeforeRequest(fasthttp.ErrTimeout, staleConnWindow) {
		t.Error("a timeout is counted as dropped")
	}
	c.lastWrite = time.Now().Add(-2 * staleConnWindow)
	if c.droppedBeforeRequest(io.EOF, staleConnWindow) {
		t.Error("a close long after the write is counted as dropped")
	}

	if upstreamConnOf(c.LocalAddr()) != c {
		t.Error("the local address does not lead back to the connection")
	}
	if upstreamConnOf(&net.TCPAddr{}) != nil || upstreamConnOf(nil) != nil {
		t.Error("a foreign address leads to a connection")
	}
}
