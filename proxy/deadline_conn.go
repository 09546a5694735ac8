package proxy

import (
	"errors"
	"io"
	"net"
	"sync/atomic"
	"time"
)

// deadlineConn gives every read on an upstream connection its own deadline:
// the first read after a request was written waits at most firstByte (the
// model may think for minutes), every later read at most idle (a stream
// that stalls between events is cut). fasthttp's own ReadTimeout would cap
// a whole stream instead, so the client leaves read deadlines to this type.
//
// It also keeps what staleConnRetry needs to tell a keep-alive connection
// the upstream had already dropped from one on which it took the request:
// whether the connection has carried a response before, when the request
// was last written, and whether writing it failed.
type deadlineConn struct {
	net.Conn
	firstByte, idle time.Duration
	awaitingFirst   bool

	addr        connAddr    // LocalAddr's answer, which leads back to this conn
	served      atomic.Bool // a response was read on this connection before
	lastWrite   time.Time   // when a write last completed
	writeFailed bool        // a write failed; fasthttp then closes the connection
}

func newDeadlineConn(c net.Conn, firstByte, idle time.Duration) *deadlineConn {
	dc := &deadlineConn{Conn: c, firstByte: firstByte, idle: idle}
	dc.addr = connAddr{Addr: c.LocalAddr(), conn: dc}
	return dc
}

func (c *deadlineConn) Write(p []byte) (int, error) {
	c.awaitingFirst = true
	n, err := c.Conn.Write(p)
	if err != nil {
		c.writeFailed = true
	} else {
		c.lastWrite = time.Now()
	}
	return n, err
}

func (c *deadlineConn) Read(p []byte) (int, error) {
	d := c.idle
	if c.awaitingFirst {
		d = c.firstByte
	}
	if d > 0 {
		if err := c.Conn.SetReadDeadline(time.Now().Add(d)); err != nil {
			return 0, err
		}
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.awaitingFirst = false
	}
	return n, err
}

// LocalAddr is the connection's local address. fasthttp stores it in the
// Response of every exchange (Response.LocalAddr), the one way back from a
// failed exchange to the connection it failed on; a TLS connection
// reports the address of the connection it wraps, so this one.
func (c *deadlineConn) LocalAddr() net.Addr { return &c.addr }

// connAddr is a connection's local address that also names the connection.
type connAddr struct {
	net.Addr
	conn *deadlineConn
}

// upstreamConnOf is the connection an exchange ran on, or nil when it got
// none (the dial failed, or the pool had no connection to give).
func upstreamConnOf(localAddr net.Addr) *deadlineConn {
	if a, ok := localAddr.(*connAddr); ok {
		return a.conn
	}
	return nil
}

// droppedBeforeRequest reports whether err, the failure of an exchange on
// this connection, shows a keep-alive connection the upstream had closed
// before it could take the request: the connection had carried a
// response before, and either writing the request failed, or the
// connection closed without a byte of response (fasthttp reports any
// failure before the first response byte that is not a timeout as
// io.EOF) within window of the request being written. An upstream that
// closes later may have been generating, and the request is not sent
// again.
func (c *deadlineConn) droppedBeforeRequest(err error, window time.Duration) bool {
	if !c.served.Load() {
		return false
	}
	if c.writeFailed {
		return true
	}
	return errors.Is(err, io.EOF) && time.Since(c.lastWrite) < window
}
