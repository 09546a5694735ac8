package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Timing of the client-connection tests. The bounds under test are short;
// the margins are generous, so that a loaded machine only makes the tests
// slower, never wrong: a connection must not close before its bound, and
// must close within bound + closeMargin.
const (
	shortTimeout = 300 * time.Millisecond
	closeMargin  = 5 * time.Second
	// earlyMargin is how much earlier than its bound a close may be seen
	// (the client's clock starts before the server's accept).
	earlyMargin = 50 * time.Millisecond
)

// clientStack is a proxy on loopback in front of an httptest upstream.
type clientStack struct {
	s       *Server
	addr    string
	metrics *Metrics
}

// serveClients starts a proxy in front of upstream (an http.Handler run
// by httptest), with the configuration adjusted by adjust.
func serveClients(t *testing.T, upstream http.Handler, adjust func(*Config), opts Options) *clientStack {
	t.Helper()
	up := httptest.NewUnstartedServer(upstream)
	up.Config.ErrorLog = nil
	up.Start()
	t.Cleanup(up.Close)
	cfg := &Config{
		Upstreams: []Upstream{{Name: "u", Provider: "openai", BaseURL: up.URL}},
		Limits:    Limits{MaxRequestBytes: 1 << 20},
		Timeouts:  Timeouts{Connect: 5 * time.Second},
	}
	if adjust != nil {
		adjust(cfg)
	}
	m := NewMetrics(prometheus.NewRegistry())
	opts.Metrics = m
	s, err := New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return &clientStack{s: s, addr: ln.Addr().String(), metrics: m}
}

// okUpstream answers every request with a small JSON body.
var okUpstream = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"object":"ok"}`)
})

// watchClose reads c until the server closes it, or until limit has
// passed, and reports how long after start the close came (or that it did
// not come), with what was read.
func watchClose(c net.Conn, start time.Time, limit time.Duration) (after time.Duration, got []byte, closed bool) {
	_ = c.SetReadDeadline(time.Now().Add(limit))
	buf := make([]byte, 32<<10)
	for {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return time.Since(start), got, false
			}
			return time.Since(start), got, true
		}
	}
}

// checkClosedAfter asserts that c is closed no sooner than bound and no
// later than bound + closeMargin after start, and returns what it read.
func checkClosedAfter(t *testing.T, what string, c net.Conn, start time.Time, bound time.Duration) []byte {
	t.Helper()
	after, got, closed := watchClose(c, start, bound+closeMargin-time.Since(start))
	if !closed {
		t.Fatalf("%s: still open %s after start (bound %s + margin %s)", what, after.Round(time.Millisecond), bound, closeMargin)
	}
	if after < bound-earlyMargin {
		t.Fatalf("%s: closed %s after start, before its bound of %s", what, after.Round(time.Millisecond), bound)
	}
	t.Logf("%s: closed %s after start (bound %s)", what, after.Round(time.Millisecond), bound)
	return got
}

// eventually polls cond every 20 ms until it holds or within has passed.
func eventually(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
