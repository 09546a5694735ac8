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
	cmd, url, stderr, logDone := sigtermServe(t, mock, "")
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
	urls := make(chan string, 1)
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			stderr.Write([]byte(sc.Text() + "\n"))
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	select {
	case url := <-urls:
		return cmd, url, stderr, logDone
	case <-time.After(20 * time.Second):
		t.Fatal("hookgate serve did not start")
	}
	return nil, "", nil, nil
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
	cmd, url, stderr, logDone := sigtermServe(t, mock, "timeouts:\n  shutdown_grace: 500ms\n")
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
