package proxy

import (
	"io"
	"net"
	"sync"
	"time"
)

// A lingering close, for connections hookgate answers before it has read
// the whole request (413 over limits.max_request_bytes, 400 for a request
// it cannot parse, 503 over limits.max_inflight_request_bytes). Closing
// such a connection at once, while the client is still sending, makes the kernel answer the unread bytes with a RST, and
// a RST makes the client's kernel drop what it has not yet handed to the
// client: the answer is lost and the client reports "connection reset by
// peer". So, as net/http's closeWriteAndWait and nginx's lingering_close
// do, hookgate half-closes the write side after the answer (the client
// reads it, then EOF), reads and discards what the client still sends,
// and closes once the client closes, or after a bounded time and size.
//
// fasthttp closes the connection itself after the answer is flushed; the
// listener's connections (clientConn) linger in Close instead when the
// answer asked for it (clientConn.lingerOnClose).

// Bounds of the lingering close. Loopback and LAN clients finish within
// milliseconds; the bounds keep a slow or hostile one from holding a
// goroutine and a socket for long, and from holding many.
const (
	lingerTimeout  = 10 * time.Second
	lingerMaxBytes = 128 << 20
	lingerMaxConns = 256
)

// lingerer runs the lingering closes and ends them at shutdown.
type lingerer struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
	closed bool
}

func newLingerer() *lingerer { return &lingerer{conns: map[net.Conn]struct{}{}} }

// take starts a lingering close of c, unless too many are running or the
// server is shutting down (the caller then closes c at once).
func (lg *lingerer) take(c net.Conn) bool {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	if lg.closed || len(lg.conns) >= lingerMaxConns {
		return false
	}
	lg.conns[c] = struct{}{}
	lg.wg.Add(1)
	go lg.linger(c)
	return true
}

func (lg *lingerer) linger(c net.Conn) {
	defer lg.wg.Done()
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	if c.SetReadDeadline(time.Now().Add(lingerTimeout)) == nil {
		_, _ = io.CopyN(io.Discard, c, lingerMaxBytes)
	}
	lg.mu.Lock()
	delete(lg.conns, c)
	lg.mu.Unlock()
	_ = c.Close()
}

// stop ends the lingering closes still running and waits for them.
func (lg *lingerer) stop() {
	lg.mu.Lock()
	lg.closed = true
	for c := range lg.conns {
		_ = c.Close()
	}
	lg.mu.Unlock()
	lg.wg.Wait()
}
