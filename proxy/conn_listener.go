package proxy

import (
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The connection caps' names, as hookgate_connections_refused_total's
// limit label and the log says them.
const (
	refusedMaxConnections = "max_connections"
	refusedMaxPerClient   = "max_connections_per_client"
)

// refusalLogEvery spaces the log lines of refused connections: a flood
// gets one line per interval, with the count since the last.
const refusalLogEvery = 10 * time.Second

// clientListener wraps a listener's connections in clientConn and holds
// the connection caps (limits.max_connections, and
// limits.max_connections_per_client by client address).
//
// A connection over a cap is closed as soon as it is accepted, before any
// byte of it is read: the caps exist for an instance under a flood, and
// answering a 503 reliably would mean reading the request (or lingering,
// as linger.go does), which costs what the cap protects. A client sees
// the connection closed or reset, which the OpenAI and Anthropic SDKs
// retry as a connection error. fasthttp's own Concurrency and
// MaxConnsPerIP are not used: they answer a plain-text 503 or 429 from
// the accept loop, count nothing, and MaxConnsPerIP wraps the connection
// in a type of its own, hiding clientConn from the handler.
type clientListener struct {
	net.Listener
	name      string // "agent" or "admin", in logs and metrics
	timeouts  *clientTimeouts
	lingerer  *lingerer
	maxConns  int // 0: no cap
	perClient int // 0: no cap
	log       *slog.Logger
	metrics   *Metrics
	gauge     prometheus.Gauge // nil without metrics

	open    atomic.Int64
	mu      sync.Mutex
	perAddr map[netip.Addr]int

	refusals spacedLog
}

func newClientListener(ln net.Listener, name string, t *clientTimeouts, lg *lingerer, maxConns, perClient int, log *slog.Logger, m *Metrics) *clientListener {
	l := &clientListener{
		Listener: ln, name: name, timeouts: t, lingerer: lg, maxConns: maxConns, perClient: perClient,
		log: log, metrics: m, gauge: m.clientConnections(name), refusals: spacedLog{every: refusalLogEvery},
	}
	if perClient > 0 {
		l.perAddr = map[netip.Addr]int{}
	}
	return l
}

// Accept returns the next connection within the caps; those over a cap
// are closed here and never reach the server.
func (l *clientListener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c := &clientConn{Conn: nc, t: l.timeouts, l: l, lingerer: l.lingerer}
		if limit := l.admit(c); limit != "" {
			_ = nc.Close()
			l.refused(limit)
			continue
		}
		// The first request's head has client_header from the accept.
		c.headBy = after(time.Now(), l.timeouts.header)
		return c, nil
	}
}

// admit counts c under the caps, or names the cap it is over.
func (l *clientListener) admit(c *clientConn) string {
	if n := l.open.Add(1); l.maxConns > 0 && n > int64(l.maxConns) {
		l.open.Add(-1)
		return refusedMaxConnections
	}
	if l.perAddr != nil {
		if ta, ok := c.Conn.RemoteAddr().(*net.TCPAddr); ok {
			addr := ta.AddrPort().Addr().Unmap()
			l.mu.Lock()
			if l.perAddr[addr] >= l.perClient {
				l.mu.Unlock()
				l.open.Add(-1)
				return refusedMaxPerClient
			}
			l.perAddr[addr]++
			l.mu.Unlock()
			c.addr, c.perAddr = addr, true
		}
	}
	if l.gauge != nil {
		l.gauge.Inc()
	}
	return ""
}

// release gives back c's place under the caps (once: clientConn.Close).
func (l *clientListener) release(c *clientConn) {
	l.open.Add(-1)
	if c.perAddr {
		l.mu.Lock()
		if n := l.perAddr[c.addr] - 1; n > 0 {
			l.perAddr[c.addr] = n
		} else {
			delete(l.perAddr, c.addr)
		}
		l.mu.Unlock()
	}
	if l.gauge != nil {
		l.gauge.Dec()
	}
}

// refused counts a refused connection and logs, at most once per
// refusalLogEvery, how many were refused.
func (l *clientListener) refused(limit string) {
	l.metrics.connectionRefused(limit)
	n, due := l.refusals.due()
	if !due {
		return
	}
	bound := l.maxConns
	if limit == refusedMaxPerClient {
		bound = l.perClient
	}
	l.log.Warn("connections refused over a connection cap", "listener", l.name, "limit", "limits."+limit, "max", bound, "refused", n)
}
