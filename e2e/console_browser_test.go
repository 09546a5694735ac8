//go:build console

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// consoleShotsEnv names the folder the browser test writes its
// screenshots to (scripts/test: the repository's docs/; a relative path
// is e2e/'s); unset, a temporary one.
const consoleShotsEnv = "HOOKGATE_CONSOLE_SCREENSHOTS"

// The operator's console in headless Chromium (e2e/console/console.test.mjs):
// it logs in, sees the call the approval hook holds appear live, approves
// it with a comment, filters the decisions (by tool too), opens the
// session's timeline and the costs page, and sees the refused reload. The held call is
// released to the agent, with the tool call it was held for. After logout
// a copy of the cookie is refused; a second hookgate with
// audit.capture_events on shows a session's prompt, calls, decisions and
// result in order (capturedLoop); wrong tokens end in a 429.
//
// Run by scripts/test's console stage: go test -tags console -run TestConsoleInABrowser ./e2e/
func TestConsoleInABrowser(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH: install Node.js 20 or later")
	}
	chromium := os.Getenv("HOOKGATE_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("no Chromium at %s: scripts/services.sh installs Debian's chromium package", chromium)
	}
	dir, _ := filepath.Abs("console")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core", "package.json")); err != nil {
		t.Fatal("e2e/console has no playwright-core: npm ci --prefix e2e/console (scripts/test does)")
	}
	shots := os.Getenv(consoleShotsEnv)
	if shots == "" {
		shots = t.TempDir()
	} else if shots, err = filepath.Abs(shots); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	s, _, _ := approvalStack(t, 120)
	capturedURL := capturedLoop(t, filepath.Join(t.TempDir(), "captured.db"))
	cfgDir := t.TempDir()
	broken := filepath.Join(cfgDir, "hookgate.yaml")
	if err := os.WriteFile(broken, []byte("listen: 127.0.0.1:0\nhooks:\n  - id: typo\n    event: pre_tool_usage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.app.ReloadFile(broken); err == nil {
		t.Fatal("the broken configuration was applied")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "console.test.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CONSOLE_URL="+s.app.AdminURL(), "CONSOLE_TOKEN=tok-alice-secret", "CONSOLE_SHOTS="+shots, "CHROMIUM="+chromium,
		"CAPTURED_URL="+capturedURL, "CAPTURED_SESSION="+capturedSession)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	var agent sync.WaitGroup
	var released []byte
	var transcript strings.Builder
	approved := ""
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		line := lines.Text()
		transcript.WriteString(line + "\n")
		switch {
		case line == "STEP logged-in":
			// The agent's call, held by the approval hook until the
			// browser answers it.
			s.mock.Enqueue(mockupstream.Stream(payment.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
			agent.Add(1)
			go func() {
				defer agent.Done()
				_, _, released = rawPost(t, s.app.URL(), "/v1/chat/completions",
					[]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"pay acme"}]}`),
					map[string]string{"X-Session-Id": "s-console"})
			}()
		case strings.HasPrefix(line, "STEP approved "):
			approved = strings.TrimPrefix(line, "STEP approved ")
		}
	}
	_, _ = io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the browser test failed: %v\nstdout:\n%s\nstderr:\n%s", err, transcript.String(), stderr.String())
	}
	if approved == "" || !strings.Contains(transcript.String(), "STEP done") {
		t.Fatalf("the browser test ended early:\n%s\n%s", transcript.String(), stderr.String())
	}
	agent.Wait()
	if !bytes.Contains(released, []byte(`"name":"pay"`)) || bytes.Contains(released, []byte("[hookgate]")) {
		t.Fatalf("the call approved in the console did not reach the agent:\n%s", released)
	}
	for _, f := range []string{"console-login.png", "console-approvals.png", "console-decisions.png", "console-session.png", "console-costs.png", "console-policy.png", "console-session-captured.png"} {
		if st, err := os.Stat(filepath.Join(shots, f)); err != nil || st.Size() == 0 {
			t.Errorf("screenshot %s missing: %v", f, err)
		}
	}
}
