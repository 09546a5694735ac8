package main

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// demoKeepChild makes the test binary run `hookgate demo --keep` as a
// child process (TestDemoKeepServesTheConsoleUntilInterrupted).
const demoKeepChild = "HOOKGATE_TEST_DEMO_KEEP_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(demoKeepChild) == "1" {
		os.Exit(run([]string{"demo", "--keep"}, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// `hookgate demo --keep` runs the conversation, then prints the console's
// address and an admin token and keeps serving: the console's login page
// answers and the token logs in. Interrupted (Ctrl-C), it exits 0.
func TestDemoKeepServesTheConsoleUntilInterrupted(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), demoKeepChild+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	}()
	lines := bufio.NewScanner(out)
	var console, token string
	var transcript strings.Builder
	for lines.Scan() {
		line := lines.Text()
		transcript.WriteString(line + "\n")
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "console:"); ok {
			console = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "admin token:"); ok {
			token, _, _ = strings.Cut(strings.TrimSpace(v), " ")
			break
		}
	}
	if !strings.Contains(transcript.String(), "done: one destructive command blocked") || !strings.HasPrefix(console, "http://127.0.0.1:") || !strings.HasPrefix(token, "hg-demo-") {
		t.Fatalf("demo --keep printed:\n%s\nstderr:\n%s", transcript.String(), stderr.String())
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(console + "login")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "hookgate") {
		t.Fatalf("the console's login page: %d %s", resp.StatusCode, page)
	}
	resp, err = client.Post(console+"login", "application/json", strings.NewReader(`{"token":"`+token+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the printed token does not log in: %d", resp.StatusCode)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = io.Copy(io.Discard, out)
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) || err != nil {
			t.Fatalf("demo --keep ended with %v after Ctrl-C\nstderr:\n%s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("demo --keep did not stop after Ctrl-C")
	}
}
