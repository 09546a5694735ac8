package proxy

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/admission"
)

// shortClientTimeouts sets every client timeout to its own short bound, so
// that a test can tell which one closed a connection.
func shortClientTimeouts(header, body, idle, stall time.Duration) func(*Config) {
	return func(c *Config) {
		c.Timeouts.ClientHeader = header
		c.Timeouts.ClientBodyProgress = body
		c.Timeouts.ClientIdle = idle
		c.Timeouts.ClientWriteStall = stall
	}
}

// drip writes b one byte every interval until all is sent or a write
// fails (the server closed), then reports when it sent its last byte.
func drip(c net.Conn, b []byte, interval time.Duration) <-chan time.Time {
	last := make(chan time.Time, 1)
	go func() {
		var at time.Time
		for i := range b {
			if _, err := c.Write(b[i : i+1]); err != nil {
				break
			}
			at = time.Now()
			time.Sleep(interval)
		}
		last <- at
	}()
	return last
}

// A client that drips its request head, each byte well within every other
// bound, is answered 408 and closed once timeouts.client_header has passed
// since it connected: the bound is on the whole head.
func TestHeaderDripClosedAfterClientHeader(t *testing.T) {
	st := serveClients(t, okUpstream, shortClientTimeouts(shortTimeout, 10*time.Second, 10*time.Second, 10*time.Second), Options{})
	start := time.Now()
	c, err := net.Dial("tcp", st.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	head := "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + strings.Repeat("X-Pad: aaaaaaaa\r\n", 100)
	drip(c, []byte(head), 20*time.Millisecond)
	got := checkClosedAfter(t, "header drip", c, start, shortTimeout)
	if !bytes.HasPrefix(got, []byte("HTTP/1.1 408")) || gjson.GetBytes(got[bytes.Index(got, []byte("\r\n\r\n"))+4:], "error.code").String() != "request_timeout" {
		t.Fatalf("want a 408 request_timeout before the close, got %q", got)
	}
	if n := testutil.ToFloat64(st.metrics.clientTimeout.WithLabelValues("agent", "client_header")); n != 1 {
		t.Fatalf("hookgate_client_timeouts_total{timeout=client_header} = %v, want 1", n)
	}
}

// A client that drips its body, a byte every interval within
// timeouts.client_body_progress, keeps its connection for longer than the
// head's bound, and is answered 408 and closed once it stops sending for
// client_body_progress. Both the first bytes of a body (fasthttp reads up
// to 8 KiB before the handler) and the rest (read by hookgate) are bound
// this way.
func TestBodyDripClosedAfterBodyProgress(t *testing.T) {
	const progress = 500 * time.Millisecond
	for _, c := range []struct {
		name   string
		at     int // body bytes sent at once before the drip
		length int
	}{
		{"read-ahead", 0, 100},
		{"handler", 20 << 10, 40 << 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := serveClients(t, okUpstream, shortClientTimeouts(shortTimeout, progress, 10*time.Second, 10*time.Second), Options{})
			conn, err := net.Dial("tcp", st.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", c.length, bytes.Repeat([]byte("a"), c.at))
			// Eight bytes at 150 ms: 1.2 s in all, four times the head's
			// bound, each byte within the body's.
			last := <-drip(conn, bytes.Repeat([]byte("a"), 8), 150*time.Millisecond)
			if last.IsZero() {
				t.Fatal("the drip was cut before its first byte")
			}
			got := checkClosedAfter(t, "body drip", conn, last, progress)
			if !bytes.HasPrefix(got, []byte("HTTP/1.1 408")) || !bytes.Contains(got, []byte(`"request_timeout"`)) {
				t.Fatalf("want a 408 request_timeout before the close, got %q", got)
			}
			if n := testutil.ToFloat64(st.metrics.clientTimeout.WithLabelValues("agent", "client_body_progress")); n != 1 {
				t.Fatalf("hookgate_client_timeouts_total{timeout=client_body_progress} = %v, want 1", n)
			}
		})
	}
}

// A keep-alive connection is reused within timeouts.client_idle and closed,
// without an answer, once it has waited that long for its next request;
// the head's shorter bound does not run while it waits.
func TestIdleKeepAliveClosedAfterClientIdle(t *testing.T) {
	const idle = 900 * time.Millisecond
	st := serveClients(t, okUpstream, shortClientTimeouts(shortTimeout, shortTimeout, idle, 10*time.Second), Options{})
	c, err := net.Dial("tcp", st.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	ask := func() {
		t.Helper()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	ask()
	time.Sleep(idle / 2)
	ask()
	start := time.Now()
	after, got, closed := watchClose(c, start, idle+closeMargin)
	if !closed || len(got) > 0 || r.Buffered() > 0 {
		t.Fatalf("idle connection: closed=%v after %s, read %q", closed, after, got)
	}
	if after < idle-earlyMargin {
		t.Fatalf("idle connection closed after %s, before client_idle (%s)", after, idle)
	}
	t.Logf("idle connection closed %s after its last answer (client_idle %s)", after.Round(time.Millisecond), idle)
	if n := testutil.ToFloat64(st.metrics.clientTimeout.WithLabelValues("agent", "client_idle")); n != 1 {
		t.Fatalf("hookgate_client_timeouts_total{timeout=client_idle} = %v, want 1", n)
	}
}

// endlessStream is an upstream whose event stream never ends: 4 KiB
// events as fast as the connection takes them.
var endlessStream = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	event := []byte("data: {\"pad\":\"" + strings.Repeat("x", 4<<10) + "\"}\n\n")
	f := w.(http.Flusher)
	for r.Context().Err() == nil {
		if _, err := w.Write(event); err != nil {
			return
		}
		f.Flush()
	}
})

// pacedStream is an upstream whose event stream never ends: a 4 KiB
// event every 20 ms.
var pacedStream = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	event := []byte("data: {\"pad\":\"" + strings.Repeat("x", 4<<10) + "\"}\n\n")
	f := w.(http.Flusher)
	for r.Context().Err() == nil {
		if _, err := w.Write(event); err != nil {
			return
		}
		f.Flush()
		time.Sleep(20 * time.Millisecond)
	}
})

// dialSmallWindow connects with a small receive buffer, so that a client
// that stops reading fills the path quickly.
func dialSmallWindow(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 16<<10)
		})
	}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

const streamRequest = `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`

func askStream(t *testing.T, c net.Conn) *bufio.Reader {
	t.Helper()
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(streamRequest), streamRequest)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReaderSize(c, 4<<10)
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("stream answer: %q %v", line, err)
	}
	return r
}

// A client that stops reading a stream it asked for is disconnected once
// hookgate's writes have made no progress for timeouts.client_write_stall,
// and its stream slot (limits.max_concurrent_streams) is free again.
func TestStalledReaderDisconnectedAndSlotFreed(t *testing.T) {
	const stall = 400 * time.Millisecond
	streams := admission.New("streams", 1, 0, nil)
	st := serveClients(t, endlessStream, shortClientTimeouts(10*time.Second, 10*time.Second, 10*time.Second, stall), Options{Streams: streams})
	c := dialSmallWindow(t, st.addr)
	askStream(t, c)
	stopped := time.Now()
	if streams.InUse() != 1 {
		t.Fatalf("the stream holds %d slots, want 1", streams.InUse())
	}
	if !eventually(stall+closeMargin, func() bool { return streams.InUse() == 0 }) {
		t.Fatalf("the stalled stream still holds its slot %s after the client stopped reading (client_write_stall %s)", time.Since(stopped), stall)
	}
	freed := time.Since(stopped)
	if freed < stall {
		t.Fatalf("slot freed %s after the client stopped reading, before client_write_stall (%s)", freed, stall)
	}
	t.Logf("stalled stream cut and its slot freed %s after the client stopped reading", freed.Round(time.Millisecond))
	if n := testutil.ToFloat64(st.metrics.clientTimeout.WithLabelValues("agent", "client_write_stall")); n != 1 {
		t.Fatalf("hookgate_client_timeouts_total{timeout=client_write_stall} = %v, want 1", n)
	}
	// What was in flight drains, then the connection ends.
	if _, _, closed := watchClose(c, time.Now(), closeMargin); !closed {
		t.Fatal("the stalled client's connection is still open")
	}
	// The freed slot admits the next stream.
	c2 := dialSmallWindow(t, st.addr)
	askStream(t, c2)
}

// A client that keeps reading a stream, taking what has come every
// 100 ms, keeps it for many times client_write_stall: the bound is on a
// write's progress, never on the whole stream (as fasthttp's WriteTimeout
// would be).
func TestReadingClientKeepsItsStream(t *testing.T) {
	const stall = 400 * time.Millisecond
	streams := admission.New("streams", 1, 0, nil)
	st := serveClients(t, pacedStream, shortClientTimeouts(10*time.Second, 10*time.Second, 10*time.Second, stall), Options{Streams: streams})
	c, err := net.Dial("tcp", st.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := askStream(t, c)
	buf := make([]byte, 256<<10)
	for end := time.Now().Add(6 * stall); time.Now().Before(end); {
		time.Sleep(100 * time.Millisecond)
		_ = c.SetReadDeadline(time.Now().Add(closeMargin))
		if _, err := r.Read(buf); err != nil {
			t.Fatalf("the reading client's stream was cut: %v", err)
		}
		if streams.InUse() != 1 {
			t.Fatalf("the reading client's stream holds %d slots, want 1", streams.InUse())
		}
	}
	if n := testutil.ToFloat64(st.metrics.clientTimeout.WithLabelValues("agent", "client_write_stall")); n != 0 {
		t.Fatalf("hookgate_client_timeouts_total{timeout=client_write_stall} = %v, want 0", n)
	}
}

// While hookgate owes the answer no client timeout runs: an upstream that
// takes far longer than every client bound before its first byte, or
// pauses within a stream, still gets its answer through.
func TestSlowUpstreamFirstByteStillAnswered(t *testing.T) {
	const wait = 5 * shortTimeout
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(wait)
		if !strings.Contains(r.URL.Path, "stream") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"object":"late"}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"n\":1}\n\n")
		w.(http.Flusher).Flush()
		time.Sleep(wait)
		_, _ = io.WriteString(w, "data: {\"n\":2}\n\ndata: [DONE]\n\n")
	})
	st := serveClients(t, slow, shortClientTimeouts(shortTimeout, shortTimeout, shortTimeout, shortTimeout), Options{})
	for _, c := range []struct{ path, want string }{
		{"/v1/chat/completions", `{"object":"late"}`},
		{"/v1/chat/completions/stream", "data: {\"n\":1}\n\ndata: {\"n\":2}\n\ndata: [DONE]\n\n"},
	} {
		conn, err := net.Dial("tcp", st.addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", c.path, len(streamRequest), streamRequest)
		_ = conn.SetReadDeadline(time.Now().Add(4*wait + closeMargin))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		got, err := io.ReadAll(resp.Body)
		conn.Close()
		if err != nil || resp.StatusCode != 200 || string(got) != c.want {
			t.Fatalf("%s: %d %q %v, want 200 %q", c.path, resp.StatusCode, got, err, c.want)
		}
	}
}

// The admin listener's connections have the same bounds: a dripped head is
// answered 408 and closed after timeouts.client_header, and its
// connections are counted.
func TestAdminHeaderTimeout(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	a := NewAdmin(AdminOptions{Gatherer: reg, Metrics: m, Timeouts: Timeouts{
		ClientHeader: shortTimeout, ClientBodyProgress: 10 * time.Second,
		ClientIdle: 10 * time.Second, ClientWriteStall: 10 * time.Second,
	}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go a.Serve(ln)
	t.Cleanup(func() { a.Shutdown() })
	start := time.Now()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	drip(c, []byte("POST /callbacks/slack HTTP/1.1\r\nHost: x\r\n"+strings.Repeat("X-Pad: aaaaaaaa\r\n", 100)), 20*time.Millisecond)
	if !eventually(closeMargin, func() bool { return testutil.ToFloat64(m.connections.WithLabelValues("admin")) == 1 }) {
		t.Fatal("the admin connection is not counted in hookgate_client_connections")
	}
	got := checkClosedAfter(t, "admin header drip", c, start, shortTimeout)
	if !bytes.HasPrefix(got, []byte("HTTP/1.1 408")) {
		t.Fatalf("want a 408 before the close, got %q", got)
	}
	if n := testutil.ToFloat64(m.clientTimeout.WithLabelValues("admin", "client_header")); n != 1 {
		t.Fatalf("hookgate_client_timeouts_total{listener=admin,timeout=client_header} = %v, want 1", n)
	}
	if !eventually(closeMargin, func() bool { return testutil.ToFloat64(m.connections.WithLabelValues("admin")) == 0 }) {
		t.Fatal("the closed admin connection is still counted")
	}
}
