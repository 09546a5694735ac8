package hooks

import (
	"context"
	"strings"
	"testing"
)

// A hook with classes: [shell] applies to every agent's shell tool and to
// nothing else; beside a matcher it applies when either matches.
func TestClassesMatch(t *testing.T) {
	reg := newEngRegistry(t)
	shell := engSpec("shell", PreToolUse, "counter", map[string]any{"name": "shell"})
	shell.Classes = []string{"shell"}
	either := engSpec("either", PreToolUse, "counter", map[string]any{"name": "either"})
	either.Classes = []string{"file_write"}
	either.Matcher = "^deploy$"
	e, _ := engCompile(t, reg, []Spec{shell, either}, Options{})
	ctx := context.Background()
	for _, name := range []string{"Bash", "bash", "exec_command", "write_stdin", "shell", "shell_command", "run_shell_command", "Write", "apply_patch", "deploy", "exec", "BASH"} {
		e.Dispatch(ctx, toolEvent(name, map[string]any{}))
	}
	if n := reg.counter("shell").Load(); n != 7 {
		t.Errorf("shell hook ran %d times, want 7 (the shell tools, not exec or BASH)", n)
	}
	if n := reg.counter("either").Load(); n != 3 {
		t.Errorf("file_write-or-deploy hook ran %d times, want 3", n)
	}
	if !e.Wants(toolEvent("bash", nil)) || e.Wants(toolEvent("exec", nil)) {
		t.Error("Wants does not follow classes")
	}
}

func TestClassesValidated(t *testing.T) {
	reg := newEngRegistry(t)
	bad := engSpec("bad", PreToolUse, "counter", map[string]any{"name": "x"})
	bad.Classes = []string{"shell", "Shell", "network"}
	wrongEvent := engSpec("wrong", SessionStart, "counter", map[string]any{"name": "y"})
	wrongEvent.Classes = []string{"shell"}
	_, err := Compile([]Spec{bad, wrongEvent}, Deps{}, Options{Builtins: reg.Builtins})
	if err == nil {
		t.Fatal("compiled unknown classes")
	}
	for _, want := range []string{`classes[1]: unknown tool class "Shell"`, `classes[2]: unknown tool class "network"`, "classes: only pre_tool_use and post_tool_use"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// CEL conditions and scripts see the normalised view beside the raw input.
func TestToolViewInConditionsAndScripts(t *testing.T) {
	reg := newEngRegistry(t)
	cel := engSpec("cel", PreToolUse, "fixed", map[string]any{"result": map[string]any{"decision": "block", "reason": "cel"}})
	cel.IfExpr = `tool.class == 'shell' && tool.command.matches('rm -rf /$') && toolName == 'shell'`
	script := Spec{ID: "script", Event: PreToolUse, Trusted: true, Priority: 1, Handler: HandlerSpec{Type: "script", Source: `
function handle(e) {
  if (e.tool && e.tool.class === 'file_write' && e.tool.paths.indexOf('/etc/passwd') >= 0) {
    return {decision: 'block', reason: 'script saw ' + e.tool.paths.join(',')};
  }
  return {decision: 'allow'};
}`}}
	plain := engSpec("plain", PreToolUse, "fixed", map[string]any{"result": map[string]any{"decision": "block", "reason": "no class"}})
	plain.IfExpr = `tool.class == '' && toolName == 'exec'`
	e, _ := engCompile(t, reg, []Spec{cel, script, plain}, Options{})
	ctx := context.Background()

	out := e.Dispatch(ctx, toolEvent("shell", map[string]any{"command": []any{"bash", "-lc", "rm -rf /"}}))
	if out.Decision != Block || out.Reason != "cel" {
		t.Fatalf("argv shell: %+v", out)
	}
	patch := "*** Begin Patch\n*** Update File: src/a.go\n*** Move to: /etc/passwd\n@@\n-a\n+b\n*** End Patch\n"
	out = e.Dispatch(ctx, toolEvent("apply_patch", map[string]any{"input": patch}))
	if out.Decision != Block || out.Reason != "script saw src/a.go,/etc/passwd" {
		t.Fatalf("apply_patch: %+v", out)
	}
	if out := e.Dispatch(ctx, toolEvent("exec", map[string]any{"command": "ls"})); out.Decision != Block || out.Reason != "no class" {
		t.Fatalf("unclassed tool: %+v", out)
	}
}

// The JSON command and http hooks receive carries the view.
func TestToolViewInEventJSON(t *testing.T) {
	e, _ := engCompile(t, newEngRegistry(t), nil, Options{})
	raw, err := encodeEventJSON(e.viewed(toolEvent("Bash", map[string]any{"command": "ls && rm -rf /"})))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"tool":{"class":"shell","command":"ls && rm -rf /"}`) {
		t.Fatalf("event JSON %s", raw)
	}
}

// A command typed into a terminal across several write_stdin calls is
// judged whole; a blocked call's characters are not remembered as typed.
func TestWriteStdinAcrossCallsThroughDispatch(t *testing.T) {
	reg := newEngRegistry(t)
	deny := engSpec("deny", PreToolUse, "fixed", map[string]any{"result": map[string]any{"decision": "block", "reason": "recursive delete"}})
	deny.Classes = []string{"shell"}
	deny.IfExpr = `tool.command.matches('\\brm\\s+-rf\\s+/x')`
	e, _ := engCompile(t, reg, []Spec{deny}, Options{})
	ctx := context.Background()
	call := func(id, session, chars string) Outcome {
		ev := toolEvent("write_stdin", map[string]any{"session_id": float64(3), "chars": chars})
		ev.ToolCallID, ev.SessionID, ev.Tenant = id, session, "acme"
		return e.Dispatch(ctx, ev)
	}
	if out := call("c1", "s1", "rm -r"); out.Decision != Allow {
		t.Fatalf("first part: %+v", out)
	}
	if out := call("c2", "s1", "f /x\n"); out.Decision != Block {
		t.Fatalf("completing call allowed: %+v", out)
	}
	// The blocked characters never reached the terminal: the line is
	// still "rm -r", which this hook allows.
	if out := call("c3", "s1", "\n"); out.Decision != Allow {
		t.Fatalf("after the block: %+v", out)
	}
	// Another hookgate session's terminal 3 is another terminal.
	if out := call("c4", "s1", "rm -r"); out.Decision != Allow {
		t.Fatal(out)
	}
	if out := call("c5", "s2", "f /x\n"); out.Decision != Allow {
		t.Fatalf("session s2 read session s1's line: %+v", out)
	}
	if out := call("c6", "s1", "f /x\r"); out.Decision != Block {
		t.Fatalf("carriage return: %+v", out)
	}
}

// A matcher naming one agent's shell tool judges the class-mates that
// differ from it only in case (so the look-alike guard, which refuses a
// case variant the policy does not want, never refuses them).
func TestCaseMatesShareMatchers(t *testing.T) {
	reg := newEngRegistry(t)
	claude := engSpec("claude", PreToolUse, "counter", map[string]any{"name": "claude"})
	claude.Matcher = "^Bash$"
	e, _ := engCompile(t, reg, []Spec{claude}, Options{})
	for _, name := range []string{"Bash", "bash"} {
		if !e.Wants(toolEvent(name, nil)) {
			t.Errorf("a ^Bash$ policy does not want %s", name)
		}
	}
	for _, name := range []string{"BASH", "bAsh", "exec"} {
		if e.Wants(toolEvent(name, nil)) {
			t.Errorf("a ^Bash$ policy wants %s", name)
		}
	}
	e.Dispatch(context.Background(), toolEvent("bash", map[string]any{"command": "ls"}))
	if n := reg.counter("claude").Load(); n != 1 {
		t.Fatalf("the Bash hook ran %d times on bash", n)
	}
}
