package e2e

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// buildHookgate builds the hookgate binary for tests that run it as a
// process of its own.
func buildHookgate(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hookgate")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/hookgate")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

var listening = regexp.MustCompile(`proxy=(http://[0-9.:]+) admin=(http://[0-9.:]+)`)

// serveProcess runs `hookgate serve` and returns it with its proxy URL.
func serveProcess(t *testing.T, bin, config string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--config", config, "--watch", "0")
	cmd.Env = os.Environ()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	found := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if m := listening.FindStringSubmatch(lines.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case url := <-found:
		return cmd, url
	case <-time.After(20 * time.Second):
		t.Fatal("hookgate serve did not start")
		return nil, ""
	}
}

func TestApprovalSurvivesKillNine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	t.Setenv("E2E_ALICE_TOKEN", "tok-alice-secret")
	t.Setenv("E2E_OPS_SECRET", "ops-signing-secret")
	bin := buildHookgate(t)
	desk := &cardDesk{}
	mock := mockupstream.Start(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "hookgate.yaml")
	os.WriteFile(config, []byte(approvalConfig(mock.URL(), desk.serve(t), filepath.Join(dir, "hookgate.db"), 120)), 0o600)
	mock.Handle(mockupstream.Always(mockupstream.Stream(payment.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})))
	request := []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"pay acme"}]}`)
	session := map[string]string{"X-Session-Id": "s-crash"}

	first, url := serveProcess(t, bin, config)
	go rawPostNoFail(url, request, session)
	id := desk.waitCard(t, 1)
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()

	_, url = serveProcess(t, bin, config)
	retried := make(chan []byte, 1)
	go func() { _, _, b := rawPost(t, url, "/v1/chat/completions", request, session); retried <- b }()
	time.Sleep(700 * time.Millisecond)
	if n := desk.count(); n != 1 {
		t.Fatalf("the retried call posted a second card (%d cards)", n)
	}
	out, err := exec.Command(bin, "approvals", "approve", "--config", config, "--by", "ops-lead", id).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "approved") {
		t.Fatalf("hookgate approvals approve: %v\n%s", err, out)
	}
	select {
	case b := <-retried:
		if !bytes.Contains(b, []byte(`"name":"pay"`)) || bytes.Contains(b, []byte("[hookgate]")) {
			t.Fatalf("the approved call did not go through after the restart:\n%s", b)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the retried call is still held after the approval")
	}
	list, _ := exec.Command(bin, "approvals", "list", "--config", config, "--status", "all").CombinedOutput()
	if strings.Count(string(list), "pay") != 1 || !strings.Contains(string(list), "approved") {
		t.Fatalf("approvals list:\n%s", list)
	}
}

// rawPostNoFail sends a request whose connection the test expects to die.
func rawPostNoFail(url string, body []byte, header map[string]string) {
	req, _ := newPost(url+"/v1/chat/completions", body, header)
	if resp, err := httpClient().Do(req); err == nil {
		resp.Body.Close()
	}
}
