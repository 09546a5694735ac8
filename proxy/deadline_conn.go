package proxy

import (
	"net"
	"time"
)

// deadlineConn gives every read on an upstream connection its own deadline:
// the first read after a request was written waits at most firstByte (the
// model may think for minutes), every later read at most idle (a stream
// that stalls between events is cut). fasthttp's own ReadTimeout would cap
// a whole stream instead, so the client leaves read deadlines to this type.
type deadlineConn struct {
	net.Conn
	firstByte, idle time.Duration
	awaitingFirst   bool
}

func (c *deadlineConn) Write(p []byte) (int, error) {
	c.awaitingFirst = true
	return c.Conn.Write(p)
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
