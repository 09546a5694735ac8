package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoPolicyTestsPass runs the README's example test file against the
// demo configuration, as CI would.
func TestDemoPolicyTestsPass(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"test", "--config", "../../configs/demo.yaml", "--coverage", "../../configs/demo_test.yaml"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{
		"PASS  ../../configs/demo_test.yaml:10  rm -rf / is blocked, saying why",
		"[codex exec_command]",
		"coverage: 4 of 4 hook(s) reached",
		" 0 failed",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "FAIL") {
		t.Errorf("a case failed:\n%s", out.String())
	}
}

// TestPolicyTestWrongExpectationExitsNonZero: a case that expects the
// demo to allow rm -rf / fails, by name, and the command exits 1.
func TestPolicyTestWrongExpectationExitsNonZero(t *testing.T) {
	dir := t.TempDir()
	tests := filepath.Join(dir, "wrong_test.yaml")
	src := "cases:\n  - {name: deploys pass, tool: deploy, input: {env: staging}, expect: allow}\n  - name: rm is fine\n    tool: exec\n    input: {command: \"rm -rf /\"}\n    expect: allow\n"
	if err := os.WriteFile(tests, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"test", tests, "--config", "../../configs/demo.yaml"}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{
		"FAIL  " + tests + ":3  rm is fine",
		"decision: want allow, got block by no-destructive-exec",
		"PASS  " + tests + ":2  deploys pass",
		"1 passed, 1 failed",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestPolicyTestDefaultsAndRefusals: without TESTS the file next to the
// configuration runs; a broken test file exits 2 naming its line.
func TestPolicyTestDefaultsAndRefusals(t *testing.T) {
	t.Setenv("HOOKGATE_DEMO_UPSTREAM", "")
	os.Unsetenv("HOOKGATE_DEMO_UPSTREAM")
	var out, errb bytes.Buffer
	if code := run([]string{"test", "--config", "../../configs/demo.yaml"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "demo_test.yaml") {
		t.Fatalf("default TESTS: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "HOOKGATE_DEMO_UPSTREAM is not set") {
		t.Errorf("the unset upstream variable is not noted: %q", errb.String())
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad_test.yaml")
	if err := os.WriteFile(bad, []byte("cases:\n  - tool: exec\n    expect: {decision: block, reason: \"/(/\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"test", "--config", "../../configs/demo.yaml", dir}, &out, &errb); code != 2 || !strings.Contains(errb.String(), bad+":3: bad regex") {
		t.Fatalf("bad file: exit %d\n%s", code, errb.String())
	}

	cfg := filepath.Join(dir, "lonely.yaml")
	if err := os.WriteFile(cfg, []byte("upstreams:\n  - {name: a, provider: openai, base_url: http://127.0.0.1:9}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run([]string{"test", "--config", cfg}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "lonely_test.yaml") {
		t.Fatalf("no tests: exit %d\n%s", code, errb.String())
	}
}
