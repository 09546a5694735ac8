package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// dialFrom connects to addr from the loopback address local.
func dialFrom(t *testing.T, local, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", local, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// served reports whether c gets a 200 to a request; a connection closed
// without an answer is not served.
func served(t *testing.T, c net.Conn) bool {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(closeMargin))
	if _, err := fmt.Fprintf(c, "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return false
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	return true
}

// Over limits.max_connections a new connection is closed as it arrives,
// without an answer, and counted; once a connection closes, a new one is
// served again.
func TestMaxConnections(t *testing.T) {
	st := serveClients(t, okUpstream, func(c *Config) { c.Limits.MaxConnections = 2 }, Options{})
	c1, c2 := dialFrom(t, "127.0.0.1", st.addr), dialFrom(t, "127.0.0.1", st.addr)
	if !served(t, c1) || !served(t, c2) {
		t.Fatal("connections within the cap were not served")
	}
	start := time.Now()
	c3 := dialFrom(t, "127.0.0.1", st.addr)
	if served(t, c3) {
		t.Fatal("a third connection over max_connections=2 was served")
	}
	if d := time.Since(start); d > closeMargin {
		t.Fatalf("the refused connection took %s to close", d)
	}
	refused := st.metrics.connsRefused.WithLabelValues(refusedMaxConnections)
	if n := testutil.ToFloat64(refused); n != 1 {
		t.Fatalf("hookgate_connections_refused_total{limit=max_connections} = %v, want 1", n)
	}
	c1.Close()
	if !eventually(closeMargin, func() bool { return served(t, dialFrom(t, "127.0.0.1", st.addr)) }) {
		t.Fatal("no connection served after one of the two closed")
	}
	if !served(t, c2) {
		t.Fatal("the connection within the cap was dropped")
	}
}

// Over limits.max_connections_per_client one client address gets no more
// connections, while another address is served.
func TestMaxConnectionsPerClient(t *testing.T) {
	st := serveClients(t, okUpstream, func(c *Config) { c.Limits.MaxConnectionsPerClient = 1 }, Options{})
	first := dialFrom(t, "127.0.0.1", st.addr)
	if !served(t, first) {
		t.Fatal("the first connection was not served")
	}
	if served(t, dialFrom(t, "127.0.0.1", st.addr)) {
		t.Fatal("a second connection from 127.0.0.1 over max_connections_per_client=1 was served")
	}
	if !served(t, dialFrom(t, "127.0.0.2", st.addr)) {
		t.Fatal("a connection from another address (127.0.0.2) was refused")
	}
	if n := testutil.ToFloat64(st.metrics.connsRefused.WithLabelValues(refusedMaxPerClient)); n != 1 {
		t.Fatalf("hookgate_connections_refused_total{limit=max_connections_per_client} = %v, want 1", n)
	}
	if !served(t, first) {
		t.Fatal("the first connection was dropped")
	}
}
