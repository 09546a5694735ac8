package proxy

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"
)

// clientTimeouts bound a client's pace on one listener (timeouts.client_*).
// Each read and write of a client connection gets its own deadline from
// them (clientConn), so none of them caps a whole body or a whole stream,
// and none runs while hookgate owes the answer: the server does not read
// the connection while a handler waits for an upstream, a hook or a
// person, and it writes nothing then but a stream's heartbeats, which a
// reading client takes at once. fasthttp's ReadTimeout and WriteTimeout
// stay off: the first caps a whole request body, the second a whole
// stream.
//
// A zero duration turns its bound off (a configuration read from a file
// always has all four; one built in code may leave them out).
type clientTimeouts struct {
	// header bounds a request's whole head, from the connection's accept
	// (its first request) or the first byte after an idle wait.
	header time.Duration
	// bodyProgress bounds the wait for each read of a request body.
	bodyProgress time.Duration
	// idle bounds a keep-alive connection's wait for its next request.
	idle time.Duration
	// writeStall bounds the time a client may take no byte of what
	// hookgate writes (its receive window shut): a deadline on each write,
	// moved on whenever some of it was taken.
	writeStall time.Duration

	timedOut *[timeoutKinds]prometheus.Counter // nil counts nothing
}

func newClientTimeouts(t Timeouts, m *Metrics, listener string) *clientTimeouts {
	return &clientTimeouts{
		header:       t.ClientHeader,
		bodyProgress: t.ClientBodyProgress,
		idle:         t.ClientIdle,
		writeStall:   t.ClientWriteStall,
		timedOut:     m.timeoutCounters(listener),
	}
}

func (t *clientTimeouts) count(k timeoutKind) {
	if t.timedOut != nil {
		t.timedOut[k].Inc()
	}
}

// timeoutKind names a client timeout in hookgate_client_timeouts_total.
type timeoutKind uint8

const (
	timeoutHeader timeoutKind = iota
	timeoutBodyProgress
	timeoutIdle
	timeoutWriteStall
	timeoutKinds
)

func (k timeoutKind) String() string {
	return [...]string{"client_header", "client_body_progress", "client_idle", "client_write_stall"}[k]
}

// headReceived is a server's HeaderReceived hook. It asks fasthttp for a
// read timeout, which fasthttp passes to the connection's SetReadDeadline
// right after it has parsed a request's head: that call is how clientConn
// learns that the head is complete and the body's reads begin, and
// clientConn does not use the time itself. The duration asked for is
// client_body_progress (a year when that is off), so that a connection
// served without clientConn would still get a sane bound on its body. The
// body size limit and write timeout stay the server's.
func (t *clientTimeouts) headReceived(*fasthttp.RequestHeader) fasthttp.RequestConfig {
	d := t.bodyProgress
	if d <= 0 {
		d = 365 * 24 * time.Hour
	}
	return fasthttp.RequestConfig{ReadTimeout: d}
}

// after is now+d, or no deadline when d is off.
func after(now time.Time, d time.Duration) time.Time {
	if d <= 0 {
		return time.Time{}
	}
	return now.Add(d)
}
