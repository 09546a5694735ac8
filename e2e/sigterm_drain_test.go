package e2e

// Hardening, shutdown: `hookgate serve` on SIGTERM stops
// accepting connections, lets the streams in flight finish within its
// grace period, and exits 0. Runs the built binary.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

func TestHardeningSIGTERMDrainsStreamsAndExitsZero(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	mock := mockupstream.Start(t)
	// A stream of about 1.5 s with a tool call at its end.
	spec := mockupstream.StreamSpec{TextDeltas: 30, ToolCalls: 1}
	mock.Enqueue(mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: 50 * time.Millisecond}))
	cmd, url, stderr, logDone := sigtermServe(t, mock, "timeouts:\n  drain_delay: 0s\n")
	r := sigtermStream(t, url)
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}

	// New connections are refused once the listener is closed.
	refused := false
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", hgHost(url), time.Second)
		if err != nil {
			refused = true
			break
		}
		c.Close()
	}
	if !refused {
		t.Errorf("hookgate still accepts connections 3 s after SIGTERM")
	}

	var rest bytes.Buffer
	_, err := rest.ReadFrom(r)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		t.Fatalf("the stream in flight broke: %v\n%s", err, rest.String())
	}
	got := rest.String()
	if !strings.Contains(got, "data: [DONE]") || !strings.Contains(got, `"id":"call_mock_0"`) || strings.Contains(got, `"error"`) {
		exited := "still running"
		if cmd.ProcessState != nil || cmd.Process.Signal(syscall.Signal(0)) != nil {
			exited = "exited"
		}
		t.Fatalf("the stream in flight did not finish whole (read error %v; hookgate %s):\n%s\n--- hookgate's log:\n%s", err, exited, got, stderr.String())
	}
	finished := time.Since(sent)

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("hookgate exited with %v after SIGTERM:\n%s", err, stderr.String())
		}
	case <-time.After(35 * time.Second):
		t.Fatalf("hookgate did not exit within its 30 s grace period:\n%s", stderr.String())
	}
	<-logDone
	t.Logf("SIGTERM: the stream in flight finished %s later, hookgate exited 0 after %s", finished.Round(time.Millisecond), time.Since(sent).Round(time.Millisecond))
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Errorf("no shutdown line in the log:\n%s", stderr.String())
	}
}

// sigtermServe starts the built `hookgate serve` in front of mock, with
// extra appended to its configuration, and returns it with its proxy URL,
// its log and a channel closed once the log ends.
func sigtermServe(t *testing.T, mock *mockupstream.Server, extra string) (*exec.Cmd, string, *hgLog, chan struct{}) {
	t.Helper()
	cmd, url, _, stderr, logDone := sigtermServeAdmin(t, mock, extra)
	return cmd, url, stderr, logDone
}

// sigtermServeAdmin is sigtermServe that also returns the admin URL.
func sigtermServeAdmin(t *testing.T, mock *mockupstream.Server, extra string) (*exec.Cmd, string, string, *hgLog, chan struct{}) {
	t.Helper()
	bin := buildHookgate(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "hookgate.yaml")
	cfg := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: mock\n    base_url: " + mock.URL() +
		"\nstore:\n  path: " + filepath.Join(dir, "hookgate.db") + "\n" + denyShell + extra
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--config", cfgPath, "--watch", "0")
	stderr := &hgLog{}
	pr, pw, _ := os.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	urls := make(chan []string, 1)
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			stderr.Write([]byte(sc.Text() + "\n"))
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1:3]
			}
		}
	}()
	select {
	case u := <-urls:
		return cmd, u[0], u[1], stderr, logDone
	case <-time.After(20 * time.Second):
		t.Fatal("hookgate serve did not start")
	}
	return nil, "", "", nil, nil
}

// sigtermStream opens a streamed chat request over raw TCP and returns
// once its status line has arrived (the stream is under way).
func sigtermStream(t *testing.T, url string) *bufio.Reader {
	t.Helper()
	conn, err := net.Dial("tcp", hgHost(url))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(hgStreamRequest), hgStreamRequest)
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	r := bufio.NewReader(conn)
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	return r
}

// timeouts.shutdown_grace bounds the drain: a stream that would run for
// 6 s is cut once the 500 ms grace is over, and hookgate exits 0 at once
// (not after the stream, nor after the default 30 s).
func TestHardeningSIGTERMGraceIsConfigurable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	mock := mockupstream.Start(t)
	spec := mockupstream.StreamSpec{TextDeltas: 60}
	mock.Enqueue(mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: 100 * time.Millisecond}))
	cmd, url, stderr, logDone := sigtermServe(t, mock, "timeouts:\n  shutdown_grace: 500ms\n  drain_delay: 0s\n")
	r := sigtermStream(t, url)
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("hookgate exited with %v after SIGTERM:\n%s", err, stderr.String())
		}
	case <-time.After(4 * time.Second):
		t.Fatalf("hookgate did not exit within its 500ms grace (and 3.5 s of slack):\n%s", stderr.String())
	}
	exited := time.Since(sent)
	<-logDone
	var rest bytes.Buffer
	rest.ReadFrom(r)
	if strings.Contains(rest.String(), "data: [DONE]") {
		t.Fatalf("the 6 s stream finished although the grace was 500ms:\n%s", rest.String())
	}
	if exited < 400*time.Millisecond {
		t.Fatalf("hookgate exited %s after SIGTERM, before its 500ms grace", exited)
	}
	if !strings.Contains(stderr.String(), "grace=500ms") {
		t.Errorf("the shutdown line does not name the configured grace:\n%s", stderr.String())
	}
	t.Logf("SIGTERM with shutdown_grace 500ms: exited 0 after %s, the stream cut", exited.Round(time.Millisecond))
}

// On SIGTERM, /readyz turns 503 ("draining") first, while the listener
// keeps serving new connections for timeouts.drain_delay, so that a load
// balancer takes the instance out before it stops accepting; only then
// does the listener close and the grace begin.
func TestHardeningSIGTERMReadinessFlipsBeforeTheListenerCloses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	mock := mockupstream.Start(t)
	spec := mockupstream.StreamSpec{TextDeltas: 3}
	mock.Handle(mockupstream.Always(mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})))
	const delay = 1500 * time.Millisecond
	cmd, url, admin, stderr, logDone := sigtermServeAdmin(t, mock, "timeouts:\n  drain_delay: 1500ms\n")
	if status, body := readyz(t, admin); status != 200 || !strings.Contains(body, `"status":"ready"`) {
		t.Fatalf("before SIGTERM /readyz: %d %s", status, body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()

	// Readiness flips first.
	var status int
	var body string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if status, body = readyz(t, admin); status == 503 {
			break
		}
	}
	if status != 503 || !strings.Contains(body, `"draining"`) {
		t.Fatalf("/readyz after SIGTERM: %d %s\n%s", status, body, stderr.String())
	}
	flipped := time.Since(sent)

	// A request on a new connection after the flip is still served whole.
	if since := time.Since(sent); since < delay-200*time.Millisecond {
		code, _, got := rawPost(t, url, "/v1/chat/completions", []byte(hgStreamRequest), map[string]string{"Connection": "close"})
		if code != 200 || !bytes.Contains(got, []byte("data: [DONE]")) {
			t.Fatalf("a request during drain_delay was not served: %d %s", code, got)
		}
	} else {
		t.Fatalf("the machine is too slow to ask within drain_delay: %s since SIGTERM", since)
	}
	servedAt := time.Since(sent)

	// Then the listener closes, not before drain_delay.
	var closedAt time.Duration
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", hgHost(url), time.Second)
		if err != nil {
			closedAt = time.Since(sent)
			break
		}
		c.Close()
	}
	if closedAt == 0 {
		t.Fatalf("the listener still accepts 10 s after SIGTERM:\n%s", stderr.String())
	}
	if closedAt < delay {
		t.Errorf("the listener closed %s after SIGTERM, before drain_delay %s", closedAt, delay)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("hookgate exited with %v:\n%s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("hookgate did not exit:\n%s", stderr.String())
	}
	<-logDone
	if !strings.Contains(stderr.String(), "draining") || !strings.Contains(stderr.String(), "drain_delay=1.5s") {
		t.Errorf("no drain line naming drain_delay in the log:\n%s", stderr.String())
	}
	t.Logf("SIGTERM: /readyz 503 after %s, a request served at %s, listener closed at %s",
		flipped.Round(time.Millisecond), servedAt.Round(time.Millisecond), closedAt.Round(time.Millisecond))
}

// readyz asks the admin listener's /readyz, token-free.
func readyz(t *testing.T, admin string) (int, string) {
	t.Helper()
	resp, err := httpClient().Get(admin + "/readyz")
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}
