package proxy

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"sync/atomic"
	"time"
)

// connPhase is where a client connection is in its request cycle, which
// decides the deadline of its next read.
type connPhase uint8

const (
	// phaseHead: reading a request's head, all of it under one deadline
	// (client_header).
	phaseHead connPhase = iota
	// phaseBody: the head is read (fasthttp said so through
	// SetReadDeadline); each read of the body waits at most
	// client_body_progress.
	phaseBody
	// phaseIdle: the request was answered; the next read waits for the
	// next request, at most client_idle.
	phaseIdle
)

// clientConn is a client connection on one of hookgate's listeners. It
// sets the deadline of every read and write itself (clientTimeouts), keeps
// the connection's place under the listener's caps until it is closed,
// and closes lingering once marked (linger.go).
//
// fasthttp's server reads and writes a connection from one goroutine, and
// the handler runs on it, so phase needs no lock; Close may come from
// another goroutine (shutdown), so what it touches is atomic.
type clientConn struct {
	net.Conn
	t      *clientTimeouts
	l      *clientListener
	phase  connPhase
	headBy time.Time // the deadline of the head being read

	addr     netip.Addr // the client address counted under the per-client cap
	perAddr  bool       // addr was counted
	linger   atomic.Bool
	closed   atomic.Bool
	lingerer *lingerer // nil: this listener never lingers
}

// Read reads under the deadline of the connection's phase.
func (c *clientConn) Read(p []byte) (int, error) {
	phase := c.phase
	var by time.Time
	switch phase {
	case phaseHead:
		by = c.headBy
	case phaseBody:
		by = after(time.Now(), c.t.bodyProgress)
	case phaseIdle:
		by = after(time.Now(), c.t.idle)
	}
	if err := c.Conn.SetReadDeadline(by); err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(p)
	if n > 0 && phase == phaseIdle {
		// The next request has begun: its head has client_header from now.
		c.phase = phaseHead
		c.headBy = after(time.Now(), c.t.header)
	}
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		c.t.count([...]timeoutKind{timeoutHeader, timeoutBodyProgress, timeoutIdle}[phase])
	}
	return n, err
}

// SetReadDeadline marks the end of a request's head: fasthttp calls it
// right after parsing a head, because headReceived asks it to, and at no
// other time (its own ReadTimeout and IdleTimeout are off, and handlers
// set no deadlines). The time given is not used: the connection keeps its
// own read deadlines. A zero time (fasthttp clearing deadlines) is not the
// signal and changes nothing.
func (c *clientConn) SetReadDeadline(t time.Time) error {
	if !t.IsZero() {
		c.phase = phaseBody
	}
	return nil
}

// requestDone marks the request answered by its handler: the next read
// (after fasthttp has written the response, stream included) waits for
// the next request.
func (c *clientConn) requestDone() { c.phase = phaseIdle }

// Write writes all of p, each attempt under a deadline of client_write_stall
// from its start. An attempt that timed out after the client took some of
// p is progress, so the deadline moves on; one in which the client took
// nothing is a stall, and the write fails (fasthttp then ends the response
// and closes the connection, which frees the request's stream slot).
func (c *clientConn) Write(p []byte) (int, error) {
	if c.t.writeStall <= 0 {
		return c.Conn.Write(p)
	}
	written := 0
	for {
		if err := c.Conn.SetWriteDeadline(time.Now().Add(c.t.writeStall)); err != nil {
			return written, err
		}
		n, err := c.Conn.Write(p[written:])
		written += n
		if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
			return written, err
		}
		if n == 0 {
			c.t.count(timeoutWriteStall)
			return written, err
		}
	}
}

// lingerOnClose asks for a lingering close when the server closes c.
func (c *clientConn) lingerOnClose() { c.linger.Store(true) }

// Close gives back the connection's place under the caps and closes it at
// once, or hands it to the lingerer.
func (c *clientConn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	c.l.release(c)
	if c.linger.Load() && c.lingerer != nil && c.lingerer.take(c.Conn) {
		return nil
	}
	return c.Conn.Close()
}
