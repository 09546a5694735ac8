package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateNamesTheLineOfATypo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.yaml")
	os.WriteFile(path, []byte("listen: 127.0.0.1:8787\nupstreams:\n  - name: openai\n    base_ur: https://api.example.test\n"), 0o600)
	var out, errOut bytes.Buffer
	if code := run([]string{"validate", "--config", path}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "bad.yaml:4: unknown key \"base_ur\"") {
		t.Fatalf("stderr does not name the line of the typo:\n%s", errOut.String())
	}
}

func TestValidateAcceptsTheExampleConfig(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test")
	var out, errOut bytes.Buffer
	if code := run([]string{"validate", "--config", "../../configs/example.yaml"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
}

func TestDemoRunsOfflineAndExitsZero(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"demo"}, &out, &errOut); code != 0 {
		t.Fatalf("demo exited %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{
		"no-destructive-exec  pre_tool_use   allowed 1 call, blocked 1 call",
		"model asks:      exec {\"command\":\"rm -rf / --no-preserve-root\"}",
		"-> blocked",
		"read-only-deploys    pre_tool_use   rewrote 1 call",
		"house-rules          session_start  added the session context",
		"disclaimer           pre_response   appended its text to the final answer",
		"agent reads:     [hookgate] tool call exec blocked by no-destructive-exec",
		"agent receives:  exec {\"command\":\"ls -la /srv/app/build\"}",
		"agent receives:  deploy {\"env\":\"production\",\"version\":\"1.4.2\",\"dry_run\":true}",
		"agent reads:     (Automated answer; actions were checked by hookgate.)",
		"request 3, messages[0]: You work for Example Corp.",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"serv"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), `unknown command "serv"`) {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
}

func TestServeHelpExitsZero(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "--help"}, &out, &errb); code != 0 {
		t.Fatalf("serve --help: exit %d, want 0", code)
	}
	if !strings.Contains(errb.String(), "-config") {
		t.Fatalf("serve --help printed no usage: %s", errb.String())
	}
}
