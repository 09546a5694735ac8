//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// extPython returns the absolute path of a python3 interpreter, so that the
// scripts' shebangs work in a hook's minimal environment, or skips.
func extPython(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skipf("python3 does not run: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// Claude Code-style hook scripts, written as people write them for Claude
// Code: python3 with json, or bash with grep (no jq).
const (
	ccPreToolUsePy = `import json, sys
data = json.load(sys.stdin)
if data.get("hook_event_name") != "PreToolUse":
    print("wrong event", file=sys.stderr); sys.exit(1)
cmd = data["tool_input"].get("command", "")
def out(**specific):
    specific["hookEventName"] = "PreToolUse"
    print(json.dumps({"hookSpecificOutput": specific}))
if "rm -rf" in cmd:
    out(permissionDecision="deny", permissionDecisionReason="destructive command: " + cmd)
elif cmd.startswith("git push"):
    out(permissionDecision="ask", permissionDecisionReason="pushing needs a human")
elif cmd.startswith("npm test"):
    new = dict(data["tool_input"])
    new["command"] = cmd + " --silent"
    out(permissionDecision="allow", permissionDecisionReason="quieter tests", updatedInput=new)
elif cmd.startswith("curl"):
    new = dict(data["tool_input"])
    del new["description"]
    out(permissionDecision="allow", updatedInput=new)
elif cmd == "date":
    out(additionalContext="the clock is UTC")
sys.exit(0)
`
	ccProtectEnvSh = `#!/bin/bash
input=$(cat)
if printf '%s' "$input" | grep -q '"file_path": *"[^"]*\.env"'; then
  echo "Blocked: .env files are protected" >&2
  exit 2
fi
exit 0
`
	ccPostToolUsePy = `import json, sys
data = json.load(sys.stdin)
resp = str(data.get("tool_response", ""))
if "password" in resp.lower():
    print(json.dumps({"decision": "block", "reason": "tool output contains a password"}))
elif data["tool_name"] == "mcp__db__query":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": resp.replace("alice@example.com", "[email]")}}))
else:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "lint passed for " + data["tool_input"].get("file_path", "?")}}))
`
	ccUserPromptSh = `#!/bin/bash
input=$(cat)
if printf '%s' "$input" | grep -qi 'secret'; then
  printf '{"decision":"block","reason":"prompt mentions a secret"}\n'
  exit 0
fi
if printf '%s' "$input" | grep -q 'halt'; then
  printf '{"continue":false,"stopReason":"halted by policy"}\n'
  exit 0
fi
echo "Project conventions: tabs, not spaces."
`
	ccSessionStartPy = `import json, sys
data = json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
    "additionalContext": "session %s started (%s), oncall: ops-team" % (data["session_id"], data["source"])}}))
`
	ccStopPy = `import json, sys
data = json.load(sys.stdin)
if not data.get("stop_hook_active"):
    print(json.dumps({"decision": "block", "reason": "tests are still failing"}))
`
	ccDumpSh = `#!/bin/sh
cat > "$DUMP"
`
)

type ccCase struct {
	name     string
	script   string
	ev       *Event
	want     Decision
	reason   string         // substring of Result.Reason
	context  string         // Result.AdditionalContext
	updated  map[string]any // Result.UpdatedInput, exactly
	result   *string        // Result.UpdatedResult
	errWants string
}

func ccStrPtr(s string) *string { return &s }

// TestClaudeCodeScripts runs Claude Code-style hook scripts unchanged, as
// format: claude_code command hooks, for PreToolUse, PostToolUse,
// UserPromptSubmit and SessionStart (plus Stop, which is recorded).
func TestClaudeCodeScripts(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	py := extPython(t)
	dir := t.TempDir()
	scripts := map[string]string{
		"pre":      extWriteScript(t, dir, "pre.py", "#!"+py+"\n"+ccPreToolUsePy),
		"protect":  extWriteScript(t, dir, "protect.sh", ccProtectEnvSh),
		"post":     extWriteScript(t, dir, "post.py", "#!"+py+"\n"+ccPostToolUsePy),
		"prompt":   extWriteScript(t, dir, "prompt.sh", ccUserPromptSh),
		"session":  extWriteScript(t, dir, "session.py", "#!"+py+"\n"+ccSessionStartPy),
		"stop":     extWriteScript(t, dir, "stop.py", "#!"+py+"\n"+ccStopPy),
		"fail":     extWriteScript(t, dir, "fail.sh", "#!/bin/sh\necho 'hook crashed' >&2\nexit 1\n"),
		"mismatch": extWriteScript(t, dir, "mismatch.sh", "#!/bin/sh\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\"}}'\n"),
		"chatty":   extWriteScript(t, dir, "chatty.sh", "#!/bin/sh\necho 'checking the command...'\n"),
	}
	bash := func(cmd string) *Event {
		return &Event{Event: PreToolUse, SessionID: "s-1", ToolName: "Bash", ToolCallID: "toolu_1",
			ToolInput: map[string]any{"command": cmd, "description": "run it", "timeout": 120000}}
	}
	cases := []ccCase{
		{name: "pre deny", script: "pre", ev: bash("rm -rf /"), want: Block, reason: "destructive command: rm -rf /"},
		{name: "pre ask is block", script: "pre", ev: bash("git push origin main"), want: Block, reason: "pushing needs a human"},
		{name: "pre allow", script: "pre", ev: bash("ls"), want: Allow},
		{name: "pre context", script: "pre", ev: bash("date"), want: Allow, context: "the clock is UTC"},
		{name: "pre updatedInput is a diff", script: "pre", ev: bash("npm test"), want: Rewrite,
			updated: map[string]any{"command": "npm test --silent"}},
		{name: "pre updatedInput drops a field", script: "pre", ev: bash("curl example.com"), want: Rewrite,
			updated: map[string]any{"description": nil}},
		{name: "pre exit 2", script: "protect", want: Block, reason: "Blocked: .env files are protected",
			ev: &Event{Event: PreToolUse, ToolName: "Read", ToolInput: map[string]any{"file_path": "/repo/.env"}}},
		{name: "pre exit 0", script: "protect", want: Allow,
			ev: &Event{Event: PreToolUse, ToolName: "Read", ToolInput: map[string]any{"file_path": "/repo/main.go"}}},
		{name: "post block", script: "post", want: Block, reason: "tool output contains a password",
			ev: &Event{Event: PostToolUse, ToolName: "Read", ToolInput: map[string]any{"file_path": "x"}, ToolResult: ccStrPtr("PASSWORD=hunter2")}},
		{name: "post context", script: "post", want: Allow, context: "lint passed for main.go",
			ev: &Event{Event: PostToolUse, ToolName: "Edit", ToolInput: map[string]any{"file_path": "main.go"}, ToolResult: ccStrPtr("ok")}},
		{name: "post rewrite mcp output", script: "post", want: Rewrite, result: ccStrPtr("rows: [email]"),
			ev: &Event{Event: PostToolUse, ToolName: "mcp__db__query", ToolInput: map[string]any{}, ToolResult: ccStrPtr("rows: alice@example.com")}},
		{name: "prompt block", script: "prompt", want: Block, reason: "prompt mentions a secret",
			ev: &Event{Event: UserPromptSubmit, SessionID: "s", Prompt: "print the SECRET key"}},
		{name: "prompt continue false", script: "prompt", want: Block, reason: "halted by policy",
			ev: &Event{Event: UserPromptSubmit, SessionID: "s", Prompt: "halt now"}},
		{name: "prompt plain stdout is context", script: "prompt", want: Allow, context: "Project conventions: tabs, not spaces.",
			ev: &Event{Event: UserPromptSubmit, SessionID: "s", Prompt: "refactor main.go"}},
		{name: "session start context", script: "session", want: Allow, context: "session s-42 started (startup), oncall: ops-team",
			ev: &Event{Event: SessionStart, SessionID: "s-42", Model: "claude-sonnet"}},
		{name: "stop block is recorded, not acted on", script: "stop", want: Allow, reason: "tests are still failing",
			ev: &Event{Event: Stop, SessionID: "s", Response: "done"}},
		{name: "exit 1 fails closed", script: "fail", ev: bash("ls"), errWants: "hookgate fails closed: hook crashed"},
		{name: "hookEventName mismatch", script: "mismatch", ev: bash("ls"), errWants: "hookEventName"},
		{name: "prose on PreToolUse", script: "chatty", ev: bash("ls"), errWants: "neither empty nor a JSON object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := extCommandHandler(t, tc.ev.Event, HandlerSpec{Command: []string{scripts[tc.script]}, Format: formatClaudeCode})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := h.Handle(ctx, tc.ev)
			if tc.errWants != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errWants) {
					t.Fatalf("err = %v, want one containing %q (result %+v)", err, tc.errWants, res)
				}
				return
			}
			if err != nil {
				t.Fatalf("Handle: %v", err)
			}
			if res.Decision != tc.want || !strings.Contains(res.Reason, tc.reason) || res.AdditionalContext != tc.context {
				t.Fatalf("result = %+v\nwant decision %s, reason containing %q, context %q", res, tc.want, tc.reason, tc.context)
			}
			if !reflect.DeepEqual(res.UpdatedInput, tc.updated) {
				t.Fatalf("updatedInput = %#v, want %#v", res.UpdatedInput, tc.updated)
			}
			if (res.UpdatedResult == nil) != (tc.result == nil) || (tc.result != nil && *res.UpdatedResult != *tc.result) {
				t.Fatalf("updatedResult = %v, want %v", res.UpdatedResult, tc.result)
			}
			if tc.ev.Event == Stop && len(res.SideEffects) == 0 {
				t.Fatal("a Stop hook's request to keep working left no side effect to audit")
			}
		})
	}
}

// TestClaudeCodeInput checks what a Claude Code hook reads on stdin for
// each event: Claude Code's names, and nothing a proxy cannot know.
func TestClaudeCodeInput(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	dump := filepath.Join(dir, "stdin.json")
	script := extWriteScript(t, dir, "dump.sh", ccDumpSh)
	result := "file contents"
	tests := []struct {
		ev   *Event
		want map[string]any
	}{
		{
			ev: &Event{Event: PreToolUse, EventID: "e", SessionID: "s-1", Tenant: "acme", ToolName: "Bash", ToolCallID: "toolu_9",
				ToolInput: map[string]any{"command": "ls"}},
			want: map[string]any{"hook_event_name": "PreToolUse", "session_id": "s-1", "tool_name": "Bash", "tool_use_id": "toolu_9",
				"tool_input": map[string]any{"command": "ls"}},
		},
		{
			ev: &Event{Event: PostToolUse, SessionID: "s-1", ToolName: "Read", ToolCallID: "toolu_9", ToolResult: &result},
			want: map[string]any{"hook_event_name": "PostToolUse", "session_id": "s-1", "tool_name": "Read", "tool_use_id": "toolu_9",
				"tool_input": map[string]any{}, "tool_response": "file contents"},
		},
		{
			ev:   &Event{Event: UserPromptSubmit, SessionID: "s-1", Prompt: "hello"},
			want: map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s-1", "prompt": "hello"},
		},
		{
			ev:   &Event{Event: SessionStart, SessionID: "s-1", Model: "claude-opus"},
			want: map[string]any{"hook_event_name": "SessionStart", "session_id": "s-1", "source": "startup", "model": "claude-opus"},
		},
		{
			ev:   &Event{Event: Stop, SessionID: "s-1", Response: "all done"},
			want: map[string]any{"hook_event_name": "Stop", "session_id": "s-1", "stop_hook_active": false, "last_assistant_message": "all done"},
		},
		{
			ev:   &Event{Event: SubagentStop, SessionID: "sub-1", ParentSessionID: "s-1"},
			want: map[string]any{"hook_event_name": "SubagentStop", "session_id": "s-1", "agent_id": "sub-1", "stop_hook_active": false},
		},
	}
	for _, tc := range tests {
		t.Run(string(tc.ev.Event), func(t *testing.T) {
			_ = os.Remove(dump)
			h := extCommandHandler(t, tc.ev.Event, HandlerSpec{Command: []string{script}, Env: map[string]string{"DUMP": dump}, Format: formatClaudeCode})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, err := h.Handle(ctx, tc.ev); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(dump)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("stdin = %s\nwant   %v", raw, tc.want)
			}
		})
	}
}

// TestClaudeCodeOutputDecoding covers the output rules without processes.
func TestClaudeCodeOutputDecoding(t *testing.T) {
	pre := &Event{Event: PreToolUse, ToolName: "Bash", ToolInput: map[string]any{"command": "ls", "timeout": 5}}
	tests := []struct {
		name     string
		ev       *Event
		code     int
		stdout   string
		stderr   string
		want     Decision
		reason   string
		errWants string
	}{
		{name: "empty", ev: pre, want: Allow},
		{name: "exit 2 no stderr", ev: pre, code: 2, want: Block, reason: "exited 2"},
		{name: "exit 2 on stop recorded", ev: &Event{Event: Stop}, code: 2, stderr: "keep going", want: Allow, reason: "keep going"},
		{name: "exit 1", ev: pre, code: 1, errWants: "fails closed"},
		{name: "signal", ev: pre, code: -1, errWants: "fails closed"},
		{name: "approve is allow", ev: pre, stdout: `{"decision":"approve","reason":"ok"}`, want: Allow},
		{name: "deny without reason", ev: pre, stdout: `{"hookSpecificOutput":{"permissionDecision":"deny"}}`, want: Block, reason: "denied"},
		{name: "defer is block", ev: pre, stdout: `{"hookSpecificOutput":{"permissionDecision":"defer"}}`, want: Block, reason: "defer"},
		{name: "any block wins", ev: pre, stdout: `{"decision":"block","reason":"r","hookSpecificOutput":{"permissionDecision":"allow"}}`, want: Block, reason: "r"},
		{name: "continue false default reason", ev: pre, stdout: `{"continue":false}`, want: Block, reason: "continue: false"},
		{name: "unchanged updatedInput is allow", ev: pre, stdout: `{"hookSpecificOutput":{"updatedInput":{"command":"ls","timeout":5}}}`, want: Allow},
		{name: "updatedInput not an object", ev: pre, stdout: `{"hookSpecificOutput":{"updatedInput":["ls"]}}`, errWants: "not a JSON object"},
		{name: "unknown permissionDecision", ev: pre, stdout: `{"hookSpecificOutput":{"permissionDecision":"maybe"}}`, errWants: "permissionDecision"},
		{name: "unknown decision", ev: pre, stdout: `{"decision":"deny"}`, errWants: "not one of block, approve"},
		{name: "wrong type", ev: pre, stdout: `{"continue":"no"}`, errWants: "decode stdout"},
		{name: "broken JSON", ev: pre, stdout: `{"decision":"block"`, errWants: "decode stdout"},
		{name: "trailing data", ev: pre, stdout: `{} {}`, errWants: "trailing"},
		{name: "broken JSON on prompt is not context", ev: &Event{Event: UserPromptSubmit}, stdout: `{"additionalContext": `, errWants: "decode stdout"},
		{name: "unknown fields ignored", ev: pre, stdout: `{"suppressOutput":true,"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","extra":1}}`, want: Allow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := decodeClaudeCodeOutput(tc.ev, tc.code, []byte(tc.stdout), []byte(tc.stderr))
			if tc.errWants != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errWants) {
					t.Fatalf("err = %v, want one containing %q", err, tc.errWants)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != tc.want || !strings.Contains(res.Reason, tc.reason) {
				t.Fatalf("result = %+v, want %s with reason containing %q", res, tc.want, tc.reason)
			}
		})
	}
}
