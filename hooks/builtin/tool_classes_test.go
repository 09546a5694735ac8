package builtin

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/hooks/toolclass"
	"go.yaml.in/yaml/v3"
)

// compileYAML compiles hook entries written as an operator would.
func compileYAML(t *testing.T, src string) *hooks.Engine {
	t.Helper()
	var specs []hooks.Spec
	if err := yaml.Unmarshal([]byte(src), &specs); err != nil {
		t.Fatal(err)
	}
	for i := range specs {
		specs[i].Trusted = true
	}
	reg := hooks.NewBuiltins()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	e, err := hooks.Compile(specs, hooks.Deps{}, hooks.Options{Builtins: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func dispatch(e *hooks.Engine, tool, callID string, input map[string]any) hooks.Outcome {
	return e.Dispatch(context.Background(), &hooks.Event{Event: hooks.PreToolUse, SessionID: "s1", Tenant: "acme", ToolName: tool, ToolCallID: callID, ToolInput: input})
}

// One shell-class hook with the shipped shell set blocks rm -rf / in every
// agent's shell shape, with no per-agent regex.
func TestShellClassBlocksEveryAgentsShape(t *testing.T) {
	e := compileYAML(t, `
- id: no-wipe
  event: pre_tool_use
  classes: [shell]
  handler: {type: builtin, name: deny_patterns, with: {defaults: [shell]}}
`)
	shapes := map[string]struct {
		tool  string
		input map[string]any
	}{
		"claude code Bash":      {"Bash", map[string]any{"command": "rm -rf /"}},
		"codex exec_command":    {"exec_command", map[string]any{"cmd": "rm -rf /", "workdir": "/srv"}},
		"codex shell argv":      {"shell", map[string]any{"command": []any{"rm", "-rf", "/"}}},
		"codex shell bash -lc":  {"shell", map[string]any{"command": []any{"bash", "-lc", "rm -rf /"}}},
		"codex shell_command":   {"shell_command", map[string]any{"command": "rm -rf /"}},
		"gemini run_shell":      {"run_shell_command", map[string]any{"command": "rm -rf /"}},
		"opencode and pi bash":  {"bash", map[string]any{"command": "rm -rf /", "description": "clean"}},
		"codex write_stdin one": {"write_stdin", map[string]any{"session_id": float64(1), "chars": "rm -rf /\n"}},
	}
	for label, sh := range shapes {
		if out := dispatch(e, sh.tool, "c-"+label, sh.input); out.Decision != hooks.Block || !strings.Contains(out.Reason, "rm-root") {
			t.Errorf("%s: %s %q", label, out.Decision, out.Reason)
		}
		safe := map[string]any{}
		for k, v := range sh.input {
			safe[k] = v
		}
		switch sh.tool {
		case "shell":
			safe["command"] = []any{"ls", "-la", "/"}
		case "exec_command":
			safe["cmd"] = "ls /"
		case "write_stdin":
			safe["chars"] = "ls /\n"
		default:
			safe["command"] = "ls /"
		}
		if out := dispatch(e, sh.tool, "s-"+label, safe); out.Decision != hooks.Allow {
			t.Errorf("%s: ls / %s %q", label, out.Decision, out.Reason)
		}
	}
	// Typed across two write_stdin calls: the second completes rm -rf /.
	if out := dispatch(e, "write_stdin", "t1", map[string]any{"session_id": float64(9), "chars": "rm -rf"}); out.Decision != hooks.Allow {
		t.Fatalf("first half: %+v", out)
	}
	if out := dispatch(e, "write_stdin", "t2", map[string]any{"session_id": float64(9), "chars": " /\n"}); out.Decision != hooks.Block {
		t.Fatalf("second half: %+v", out)
	}
	// Terminal input hookgate cannot replay is blocked unjudged.
	if out := dispatch(e, "write_stdin", "t3", map[string]any{"session_id": float64(4), "chars": "m -rf /\x01r\n"}); out.Decision != hooks.Block || !strings.Contains(out.Reason, "control characters") {
		t.Fatalf("cursor movement: %+v", out)
	}
}

func TestRecursiveDeleteSet(t *testing.T) {
	h := newDeny(t, map[string]any{"defaults": []any{"recursive_delete"}})
	blocked := map[string]string{
		"rm -r ./build":                                     "rm-recursive",
		"rm -rf ./build":                                    "rm-recursive",
		"rm -R ~/project":                                   "rm-recursive",
		"rm --recursive x":                                  "rm-recursive",
		"rm -f -r x":                                        "rm-recursive",
		"cd /srv && /bin/rm -fr data":                       "rm-recursive",
		"git rm -r --cached dir":                            "rm-recursive",
		"find . -name '*.o' -delete":                        "find-delete",
		"find /srv -type f -exec rm {} +":                   "find-delete",
		"git clean -fdx":                                    "git-clean-force",
		"git -C repo clean --force -d":                      "git-clean-force",
		"shred -u secrets.txt":                              "shred",
		"rsync -a --delete empty/ /srv/data/":               "rsync-delete",
		"mv ./data /dev/null":                               "mv-to-dev-null",
		`python3 -c "import shutil; shutil.rmtree('/srv')"`: "rmtree",
		"npx rimraf node_modules":                           "rmtree",
		`node -e "fs.rmSync('x', {recursive: true})"`:       "rmtree",
	}
	for cmd, label := range blocked {
		res := decide(t, h, map[string]any{"command": cmd})
		if res.Decision != hooks.Block || !strings.Contains(res.Reason, `"`+label+`"`) {
			t.Errorf("%q: %s %q, want block by %s", cmd, res.Decision, res.Reason, label)
		}
	}
	for _, cmd := range []string{
		"rm file.txt", "rm -f build.o", "ls -R /srv", "docker run --rm -it alpine sh", "cp -r a b",
		"find . -name '*.go'", "git clean -n", "git status", "grep -r rm .", "perform -r x",
	} {
		if res := decide(t, h, map[string]any{"command": cmd}); res.Decision != hooks.Allow {
			t.Errorf("%q: blocked (%s)", cmd, res.Reason)
		}
	}
}

// recursive_delete blocks a shell started to be typed into; the default
// shell set does not.
func TestInteractiveShellRule(t *testing.T) {
	e := compileYAML(t, `
- id: strict
  event: pre_tool_use
  classes: [shell]
  handler: {type: builtin, name: deny_patterns, with: {defaults: [recursive_delete]}}
`)
	for _, cmd := range []string{"bash", "cd /srv; exec bash", "sh -i"} {
		out := dispatch(e, "exec_command", "c", map[string]any{"cmd": cmd, "tty": true})
		if out.Decision != hooks.Block || !strings.Contains(out.Reason, InteractiveShellRule) {
			t.Errorf("%q: %s %q", cmd, out.Decision, out.Reason)
		}
	}
	if out := dispatch(e, "exec_command", "c", map[string]any{"cmd": "npm test", "tty": true}); out.Decision != hooks.Allow {
		t.Errorf("npm test: %+v", out)
	}
	loose := compileYAML(t, `
- id: floor
  event: pre_tool_use
  classes: [shell]
  handler: {type: builtin, name: deny_patterns, with: {defaults: [shell]}}
`)
	if out := dispatch(loose, "exec_command", "c", map[string]any{"cmd": "bash", "tty": true}); out.Decision != hooks.Allow {
		t.Errorf("the shell set blocked an interactive shell: %+v", out)
	}
}

// fields: [tool.command] scans only the normalised command.
func TestDenyFieldsToolCommand(t *testing.T) {
	h := newDeny(t, map[string]any{"defaults": []any{"recursive_delete"}, "fields": []any{"tool.command"}})
	ev := &hooks.Event{Event: hooks.PreToolUse, ToolName: "Write", ToolInput: map[string]any{"file_path": "Makefile", "content": "clean:\n\trm -rf build\n"}}
	if res, _ := h.Handle(context.Background(), ev); res.Decision != hooks.Allow {
		t.Fatalf("a file's content was scanned as a command: %+v", res)
	}
	ev = &hooks.Event{Event: hooks.PreToolUse, ToolName: "shell", ToolInput: map[string]any{"command": []any{"rm", "-r", "x"}}}
	if res, _ := h.Handle(context.Background(), ev); res.Decision != hooks.Block {
		t.Fatalf("argv rm -r allowed: %+v", res)
	}
}

// readonly_guard takes every agent's file-writing tool as a write, and
// names the paths; a shell command is not a write unless classes says so.
func TestReadOnlyGuardClasses(t *testing.T) {
	state := &memReadOnly{m: map[string]bool{"acme": true}}
	h := newReadOnly(t, map[string]any{"tools": []any{"deploy"}}, state)
	patch := "*** Begin Patch\n*** Delete File: config/prod.yaml\n*** End Patch\n"
	for tool, input := range map[string]map[string]any{
		"Write":       {"file_path": "/srv/a"},
		"apply_patch": {"input": patch},
		"write_file":  {"file_path": "/srv/a"},
		"edit":        {"filePath": "/srv/a"},
		"deploy":      {},
		"shell":       {"command": []any{"apply_patch", patch}},
	} {
		res, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: tool, ToolInput: input})
		if err != nil || res.Decision != hooks.Block {
			t.Errorf("%s: %+v %v", tool, res, err)
		}
		if tool == "apply_patch" && !strings.Contains(res.Reason, "config/prod.yaml") {
			t.Errorf("reason %q does not name the path", res.Reason)
		}
	}
	for tool, input := range map[string]map[string]any{"Bash": {"command": "touch x"}, "Read": {"file_path": "/srv/a"}} {
		if res, _ := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: tool, ToolInput: input}); res.Decision != hooks.Allow {
			t.Errorf("%s blocked: %+v", tool, res)
		}
	}
	shellToo := newReadOnly(t, map[string]any{"classes": []any{"file_write", "shell"}}, state)
	if res, _ := shellToo.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: "bash", ToolInput: map[string]any{"command": "ls"}}); res.Decision != hooks.Block {
		t.Errorf("classes [shell]: bash allowed: %+v", res)
	}
	none := newReadOnly(t, map[string]any{"tools": []any{"deploy"}, "classes": []any{}}, state)
	if res, _ := none.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: "Write", ToolInput: map[string]any{"file_path": "x"}}); res.Decision != hooks.Allow {
		t.Errorf("classes []: Write blocked: %+v", res)
	}
	if _, err := NewReadOnlyGuard(hooks.BuiltinConfig{Event: hooks.PreToolUse, With: map[string]any{"classes": []any{"files"}}}); err == nil || !strings.Contains(err.Error(), `unknown tool class "files"`) {
		t.Errorf("unknown class: %v", err)
	}
}

// secret_guard reads a credential typed into a terminal across two
// write_stdin calls, which neither call holds whole.
func TestSecretGuardTerminalLine(t *testing.T) {
	e := compileYAML(t, `
- id: secrets
  event: pre_tool_use
  classes: [shell]
  handler: {type: builtin, name: secret_guard}
`)
	key := fake("ghp_", alnum, 36)
	if out := dispatch(e, "write_stdin", "k1", map[string]any{"session_id": float64(2), "chars": "export GH=" + key[:20]}); out.Decision != hooks.Allow {
		t.Fatalf("first half: %+v", out)
	}
	out := dispatch(e, "write_stdin", "k2", map[string]any{"session_id": float64(2), "chars": key[20:] + "\n"})
	if out.Decision != hooks.Block || !strings.Contains(out.Reason, "tool.command") || strings.Contains(out.Reason, key) {
		t.Fatalf("second half: %+v", out)
	}
}

// A half-typed line forgotten under load is not judged as a fresh one: the
// call that would complete it is blocked, until ^C discards it.
func TestForgottenTerminalLineIsBlocked(t *testing.T) {
	var specs []hooks.Spec
	if err := yaml.Unmarshal([]byte(`
- id: no-wipe
  event: pre_tool_use
  classes: [shell]
  handler: {type: builtin, name: deny_patterns, with: {defaults: [shell]}}
`), &specs); err != nil {
		t.Fatal(err)
	}
	specs[0].Trusted = true
	reg := hooks.NewBuiltins()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	e, err := hooks.Compile(specs, hooks.Deps{}, hooks.Options{Builtins: reg, Terminals: toolclass.NewTerminals(2, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	typeInto := func(id string, terminal float64, chars string) hooks.Outcome {
		return dispatch(e, "write_stdin", id, map[string]any{"session_id": terminal, "chars": chars})
	}
	if out := typeInto("a", 1, "rm -rf"); out.Decision != hooks.Allow {
		t.Fatal(out)
	}
	for i := range 3 { // other terminals push terminal 1's line out
		if out := typeInto(fmt.Sprint("b", i), float64(10+i), "echo"); out.Decision != hooks.Allow {
			t.Fatal(out)
		}
	}
	if out := typeInto("c", 1, " /\n"); out.Decision != hooks.Block || !strings.Contains(out.Reason, "could not keep whole") {
		t.Fatalf("completing a forgotten line: %+v", out)
	}
	if out := typeInto("d", 1, "\x03ls\n"); out.Decision != hooks.Allow {
		t.Fatalf("after ^C: %+v", out)
	}
	if out := typeInto("e", 1, "ls\n"); out.Decision != hooks.Allow {
		t.Fatalf("afterwards: %+v", out)
	}
}
