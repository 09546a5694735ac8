//go:build unix

package hooks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// extWriteScript writes an executable script into dir. All scripts of a test
// are written before any of them runs: exec'ing a file while a concurrent
// fork still holds it open for writing fails with ETXTBSY.
func extWriteScript(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// extCommandHandler builds a command handler for a pre_tool_use hook.
func extCommandHandler(t testing.TB, event EventName, hs HandlerSpec) Handler {
	t.Helper()
	hs.Type = "command"
	h, err := newCommandHandler(&Spec{ID: "t-" + t.Name(), Event: event, Handler: hs}, Deps{})
	if err != nil {
		t.Fatalf("newCommandHandler: %v", err)
	}
	return h
}

// extToolEvent is a pre_tool_use event for tool exec.
func extToolEvent(input map[string]any) *Event {
	return &Event{
		Event:      PreToolUse,
		EventID:    "ev-1",
		SessionID:  "sess-1",
		ToolName:   "exec",
		ToolCallID: "call_1",
		ToolInput:  input,
	}
}

// extProcessGone reports whether pid has exited (a zombie counts: it runs
// nothing and holds no pipe), polling up to wait.
func extProcessGone(pid int, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return true
		}
		if stat, rerr := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); rerr == nil {
			// Field 3 is the state; the command name before it is in parens.
			if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCommandHandlerOutcomes(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	scripts := map[string]string{
		"allow-empty": "#!/bin/sh\ncat >/dev/null\n",
		"allow-json":  "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"allow\",\"reason\":\"fine\",\"sideEffects\":[\"checked\"]}'\n",
		"block-json":  "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"block\",\"reason\":\"policy says no\"}'\n",
		"rewrite":     "#!/bin/sh\ncat >/dev/null\necho '{\"updatedInput\":{\"command\":\"ls -la\"}}'\n",
		"exit2":       "#!/bin/sh\ncat >/dev/null\necho 'rm is not allowed here' >&2\nexit 2\n",
		"exit2-quiet": "#!/bin/sh\nexit 2\n",
		"exit1":       "#!/bin/sh\necho 'boom' >&2\nexit 1\n",
		"junk":        "#!/bin/sh\necho 'all good, carry on'\n",
		"bad-json":    "#!/bin/sh\necho '{\"decision\":\"allow\"'\n",
		"typo":        "#!/bin/sh\necho '{\"decison\":\"block\"}'\n",
		"bad-verdict": "#!/bin/sh\necho '{\"decision\":\"timeout\"}'\n",
		"two-objects": "#!/bin/sh\necho '{\"decision\":\"allow\"}{\"decision\":\"block\"}'\n",
		"segv":        "#!/bin/sh\nkill -SEGV $$\n",
		"no-stdin":    "#!/bin/sh\nexit 0\n", // never reads a large stdin
	}
	paths := make(map[string]string, len(scripts))
	for name, body := range scripts {
		paths[name] = extWriteScript(t, dir, name+".sh", body)
	}

	big := strings.Repeat("x", 1<<20) // more than a pipe buffer
	tests := []struct {
		script   string
		input    map[string]any
		want     Decision
		reason   string
		errWants string // substring of the error; "" = no error
	}{
		{script: "allow-empty", want: Allow},
		{script: "allow-json", want: Allow, reason: "fine"},
		{script: "block-json", want: Block, reason: "policy says no"},
		{script: "rewrite", want: Rewrite},
		{script: "exit2", want: Block, reason: "rm is not allowed here"},
		{script: "exit2-quiet", want: Block, reason: "exit 2"},
		{script: "exit1", errWants: "exit status 1: boom"},
		{script: "junk", errWants: "not a JSON object"},
		{script: "bad-json", errWants: "decode result"},
		{script: "typo", errWants: "unknown field"},
		{script: "bad-verdict", errWants: "not one of allow"},
		{script: "two-objects", errWants: "trailing data"},
		{script: "segv", errWants: "killed by signal"},
		{script: "no-stdin", input: map[string]any{"content": big}, want: Allow},
	}
	for _, tc := range tests {
		t.Run(tc.script, func(t *testing.T) {
			h := extCommandHandler(t, PreToolUse, HandlerSpec{Command: []string{paths[tc.script]}})
			input := tc.input
			if input == nil {
				input = map[string]any{"command": "rm -rf /"}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			res, err := h.Handle(ctx, extToolEvent(input))
			if tc.errWants != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errWants) {
					t.Fatalf("err = %v, want one containing %q (result %+v)", err, tc.errWants, res)
				}
				return
			}
			if err != nil {
				t.Fatalf("Handle: %v", err)
			}
			if res.Decision != tc.want || !strings.Contains(res.Reason, tc.reason) {
				t.Fatalf("result = %+v, want %s with reason containing %q", res, tc.want, tc.reason)
			}
			if tc.want == Rewrite && res.UpdatedInput["command"] != "ls -la" {
				t.Fatalf("updatedInput = %v", res.UpdatedInput)
			}
		})
	}
}

// TestCommandHandlerTimeoutKillsGroup runs a hook that ignores SIGTERM and
// leaves a grandchild sleeping: at the deadline the whole group must die
// and Handle must return at once.
func TestCommandHandlerTimeoutKillsGroup(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	script := extWriteScript(t, dir, "stubborn.sh", `#!/bin/sh
trap '' TERM
sleep 60 &
echo $! > "$PIDFILE.tmp"
echo $$ >> "$PIDFILE.tmp"
mv "$PIDFILE.tmp" "$PIDFILE"
sleep 60
`)
	h := extCommandHandler(t, PreToolUse, HandlerSpec{Command: []string{script}, Env: map[string]string{"PIDFILE": pidFile}})

	const timeout = 400 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	_, err := h.Handle(ctx, extToolEvent(map[string]any{"command": "true"}))
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	// The hook would hold for 60 s; returning within a few seconds of the
	// deadline shows the group was killed, with room for a loaded machine.
	if elapsed > timeout+5*time.Second {
		t.Fatalf("Handle returned after %v, deadline was %v", elapsed, timeout)
	}
	raw, rerr := os.ReadFile(pidFile)
	if rerr != nil {
		t.Fatalf("hook never wrote its pids: %v", rerr)
	}
	fields := strings.Fields(string(raw))
	if len(fields) != 2 {
		t.Fatalf("pid file = %q", raw)
	}
	for i, f := range fields {
		pid, _ := strconv.Atoi(f)
		if pid <= 0 || !extProcessGone(pid, 2*time.Second) {
			t.Errorf("process %d (%s) outlived the deadline", pid, []string{"grandchild", "hook"}[i])
		}
	}
}

// TestCommandHandlerStragglersKilled: a hook that exits at once but leaves
// a background child holding stdout neither delays the verdict nor leaves
// the child running.
func TestCommandHandlerStragglersKilled(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := extWriteScript(t, dir, "bg.sh", "#!/bin/sh\nsleep 60 &\necho $! > \"$PIDFILE\"\necho '{\"decision\":\"allow\"}'\n")
	h := extCommandHandler(t, PreToolUse, HandlerSpec{Command: []string{script}, Env: map[string]string{"PIDFILE": pidFile}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	res, err := h.Handle(ctx, extToolEvent(nil))
	if err != nil || res.Decision != Allow {
		t.Fatalf("Handle = %+v, %v", res, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Handle took %v: waited for the background child", d)
	}
	raw, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	if pid <= 0 || !extProcessGone(pid, 2*time.Second) {
		t.Fatalf("background child %d outlived the hook", pid)
	}
}

// TestCommandHandlerStdoutFlood: a hook that writes without end is an error
// as soon as it passes the cap, not at the deadline, and memory stays
// bounded.
func TestCommandHandlerStdoutFlood(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	script := extWriteScript(t, dir, "flood.sh", "#!/bin/sh\nexec yes 'flood flood flood flood'\n")
	stderrFlood := extWriteScript(t, dir, "stderr-flood.sh", "#!/bin/sh\nhead -c 3000000 /dev/zero | tr '\\0' 'e' >&2\nexit 2\n")

	h := extCommandHandler(t, PreToolUse, HandlerSpec{Command: []string{script}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err := h.Handle(ctx, extToolEvent(nil))
	if !errors.Is(err, errStdoutTooLarge) {
		t.Fatalf("err = %v, want errStdoutTooLarge", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("flood detected only after %v", d)
	}

	h = extCommandHandler(t, PreToolUse, HandlerSpec{Command: []string{stderrFlood}})
	res, err := h.Handle(ctx, extToolEvent(nil))
	if err != nil || res.Decision != Block {
		t.Fatalf("stderr flood with exit 2 = %+v, %v; want block", res, err)
	}
	if len(res.Reason) > maxCommandStderr {
		t.Fatalf("reason is %d bytes, cap is %d", len(res.Reason), maxCommandStderr)
	}
}

// TestCommandHandlerEnvironment: the hook sees PATH and its spec's env, and
// none of the proxy's secrets.
func TestCommandHandlerEnvironment(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Setenv("OPENAI_API_KEY", "sk-canary-openai-0000")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-canary-1111")
	t.Setenv("HOOKGATE_ADMIN_TOKEN", "admin-canary-2222")
	dir := t.TempDir()
	envOut := filepath.Join(dir, "env.txt")
	script := extWriteScript(t, dir, "env.sh", "#!/bin/sh\ncat >/dev/null\nenv > \"$ENVOUT\"\n")
	h := extCommandHandler(t, PreToolUse, HandlerSpec{
		Command: []string{script},
		Env:     map[string]string{"ENVOUT": envOut, "POLICY_LEVEL": "strict"},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := h.Handle(ctx, extToolEvent(map[string]any{"command": "echo tool-arg-canary"})); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(envOut)
	if err != nil {
		t.Fatal(err)
	}
	env := string(raw)
	for _, secret := range []string{"OPENAI_API_KEY", "sk-canary-openai", "ANTHROPIC_API_KEY", "sk-ant-canary", "admin-canary", "tool-arg-canary"} {
		if strings.Contains(env, secret) {
			t.Errorf("hook environment contains %q:\n%s", secret, env)
		}
	}
	for _, want := range []string{"PATH=", "POLICY_LEVEL=strict"} {
		if !strings.Contains(env, want) {
			t.Errorf("hook environment lacks %q:\n%s", want, env)
		}
	}
}

func TestNewCommandHandlerValidation(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel := extWriteScript(t, dir, "rel.sh", "#!/bin/sh\n")
	tests := []struct {
		name    string
		event   EventName
		hs      HandlerSpec
		deps    Deps
		wantErr string
	}{
		{name: "empty", hs: HandlerSpec{}, wantErr: "empty"},
		{name: "missing file", hs: HandlerSpec{Command: []string{filepath.Join(dir, "nope")}}, wantErr: "no such file"},
		{name: "not executable", hs: HandlerSpec{Command: []string{notExec}}, wantErr: "not executable"},
		{name: "directory", hs: HandlerSpec{Command: []string{dir}}, wantErr: "not a regular file"},
		{name: "unknown bare name", hs: HandlerSpec{Command: []string{"no-such-hook-binary-xyz"}}, wantErr: "not found in PATH"},
		{name: "bare name", hs: HandlerSpec{Command: []string{"sh", "-c", "true"}}},
		{name: "relative to base dir", hs: HandlerSpec{Command: []string{"./" + filepath.Base(rel)}}, deps: Deps{BaseDir: dir}},
		{name: "unknown format", hs: HandlerSpec{Command: []string{"sh"}, Format: "cursor"}, wantErr: "unknown format"},
		{name: "claude_code on pre_response", event: PreResponse, hs: HandlerSpec{Command: []string{"sh"}, Format: formatClaudeCode}, wantErr: "no equivalent"},
		{name: "bad env name", hs: HandlerSpec{Command: []string{"sh"}, Env: map[string]string{"A=B": "x"}}, wantErr: "invalid variable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := tc.event
			if ev == "" {
				ev = PreToolUse
			}
			tc.hs.Type = "command"
			_, err := newCommandHandler(&Spec{ID: "v", Event: ev, Handler: tc.hs}, tc.deps)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestCommandHandlerCancelledBeforeStart: a context already done runs
// nothing.
func TestCommandHandlerCancelledBeforeStart(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := extWriteScript(t, dir, "mark.sh", "#!/bin/sh\ntouch \"$MARK\"\n")
	h := extCommandHandler(t, PreToolUse, HandlerSpec{Command: []string{script}, Env: map[string]string{"MARK": marker}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Handle(ctx, extToolEvent(nil)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("hook ran although the context was already done")
	}
}

func BenchmarkCommandHandler(b *testing.B) {
	dir := b.TempDir()
	script := extWriteScript(b, dir, "allow.sh", "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"allow\"}'\n")
	h := extCommandHandler(b, PreToolUse, HandlerSpec{Command: []string{script}})
	ev := extToolEvent(map[string]any{"command": "ls -la /tmp", "timeout": 30})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := h.Handle(ctx, ev)
		if err != nil || res.Decision != Allow {
			b.Fatalf("Handle = %+v, %v", res, err)
		}
	}
}
