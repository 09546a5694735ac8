package e2e

// Hardening, client disconnects: a client that leaves mid-stream,
// or while its tool call waits for a person, cancels the upstream request
// and every goroutine the exchange started returns (go.uber.org/goleak).

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hookgate/hookgate/internal/app"
)

// endlessUpstream streams chat chunks every 20 ms until its client leaves;
// first, the events it is given. It reports each request's end on gone.
type endlessUpstream struct {
	srv   *httptest.Server
	first string
	gone  chan time.Time
	open  atomic.Int32 // handlers running
	conns atomic.Int32 // connections not closed
}

func newEndlessUpstream(t *testing.T, first string) *endlessUpstream {
	u := &endlessUpstream{first: first, gone: make(chan time.Time, 8)}
	u.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // lets the server notice the client leaving
		u.open.Add(1)
		defer func() { u.open.Add(-1); u.gone <- time.Now() }()
		w.Header().Set("Content-Type", "text/event-stream")
		if _, err := io.WriteString(w, u.first); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				if _, err := io.WriteString(w, hgChunk(`{"content":"more "}`, "")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}
	}))
	u.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			u.conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			u.conns.Add(-1)
		}
	}
	u.srv.Start()
	return u
}

// hgLeaveAfter sends a streamed chat request over raw TCP, reads until
// the answer contains marker and ready (when not nil) holds, and hangs up.
// ready is checked at each read, so a held stream's heartbeats keep it
// looked at.
func hgLeaveAfter(t *testing.T, base, marker string, header map[string]string, ready func() bool) {
	t.Helper()
	conn, err := net.Dial("tcp", hgHost(base))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var h strings.Builder
	for k, v := range header {
		h.WriteString(k + ": " + v + "\r\n")
	}
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s", h.String(), len(hgStreamRequest), hgStreamRequest)
	conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	var got strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(got.String(), marker) || (ready != nil && !ready()) {
		n, err := conn.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			t.Fatalf("read before %q (and what the test waits for beside it): %v\n%s", marker, err, got.String())
		}
	}
}

// waitGone waits for the upstream to see its request end.
func (u *endlessUpstream) waitGone(t *testing.T, left time.Time, what string) {
	t.Helper()
	select {
	case at := <-u.gone:
		t.Logf("%s: the upstream request ended %s after the client left", what, at.Sub(left).Round(time.Millisecond))
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the upstream is still streaming 10 s after the client left", what)
	}
}

func TestHardeningClientDisconnectLeaksNothing(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	dir := t.TempDir()
	t.Setenv("E2E_ALICE_TOKEN", "tok-alice-secret")
	t.Setenv("E2E_OPS_SECRET", "ops-signing-secret")
	var cards atomic.Int32
	desk := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		cards.Add(1)
	}))

	// Text, then a call that needs a person, then an endless tail.
	up := newEndlessUpstream(t, hgChunk(`{"role":"assistant","content":"hello "}`, "")+
		hgChunk(hgCall(0, "call_pay", "pay", `{"amount":5}`), "")+
		hgChunk(hgCall(1, "call_more", "read", `{"path":"x"}`), ""))
	cfg := approvalConfig(up.srv.URL, desk.URL, filepath.Join(dir, "hookgate.db"), 60)
	a, _ := hgStartApp(t, cfg)

	// Mid-stream: the client reads the first text and leaves.
	hgLeaveAfter(t, a.URL(), `"content":"hello "`, map[string]string{"X-Session-Id": "s-text"}, nil)
	left := time.Now()
	up.waitGone(t, left, "mid-stream")

	// During an approval wait: the card is out, the stream is held with
	// heartbeats, the client leaves. Heartbeats start as the call is held,
	// before the gate has posted its card, so the client stays until the
	// desk has it.
	hgLeaveAfter(t, a.URL(), ": hookgate: holding", map[string]string{"X-Session-Id": "s-pay"}, func() bool { return cards.Load() >= 1 })
	left = time.Now()
	if n := cards.Load(); n < 1 {
		t.Fatalf("%d approval cards", n)
	}
	up.waitGone(t, left, "approval wait")
	deadline := time.Now().Add(5 * time.Second)
	for activeStreams(t, &stack{app: a}) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%v streams still active after their clients left", activeStreams(t, &stack{app: a}))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := metricValue(t, &stack{app: a}, "hookgate_held_tool_calls"); n != 0 {
		t.Fatalf("%v tool calls still held after their client left", n)
	}

	// The upstream connections of both streams were closed, not pooled.
	for deadline := time.Now().Add(5 * time.Second); up.conns.Load() != 0 || up.open.Load() != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d upstream connections still open, %d requests still served", up.conns.Load(), up.open.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	closeAll(t, a, up.srv, desk)
	goleak.VerifyNone(t, ignore,
		// Process-wide or slow to notice Stop, not per exchange (see
		// internal/mockupstream's TestCloseLeavesNoGoroutines).
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
		// The default dialer's DNS cache cleaner is process-wide.
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*TCPDialer).tcpAddrsClean"),
		// A HostClient's cleaner sleeps up to MaxIdleConnDuration (90 s)
		// before it sees that no connection is left; that none is left is
		// checked above, on the upstream's side.
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*HostClient).connsCleaner"),
	)
}

// closeAll closes the app and the test servers before the leak check
// (t.Cleanup would run after it).
func closeAll(t *testing.T, a *app.App, srvs ...*httptest.Server) {
	t.Helper()
	a.Close()
	for _, s := range srvs {
		s.CloseClientConnections()
		s.Close()
	}
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	_ = os.Stderr.Sync()
}
