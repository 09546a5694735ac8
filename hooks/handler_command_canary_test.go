//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestCommandHandlerCanary sends tool arguments built to execute something
// if they ever reached a shell (`;`, `$(...)`, backticks, newlines, a
// leading `--`, pipes) and proves they reach the hook only inside the JSON
// on stdin, intact, and that nothing was executed: the canary files they
// would create never appear, argv is exactly what the operator configured,
// and the environment carries none of them.
func TestCommandHandlerCanary(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	canary := filepath.Join(dir, "canary")
	input := map[string]any{
		"command":   "ls; touch " + canary + "-semicolon",
		"path":      "$(touch " + canary + "-subst)",
		"pattern":   "`touch " + canary + "-backtick`",
		"content":   "line one\ntouch " + canary + "-newline\n",
		"flag":      "--exec=touch " + canary + "-dashdash",
		"args":      []any{"--", "-rf", "&& touch " + canary + "-and", "| touch " + canary + "-pipe"},
		"redirect":  "> " + canary + "-redirect",
		"nested":    map[string]any{"x": "'; touch " + canary + "-quote; echo '"},
		"unicode":   "naïve — ✓ <b>&amp;</b>",
		"nul_bytes": "a\x00b",
	}
	stdinOut := filepath.Join(dir, "stdin.json")
	argsOut := filepath.Join(dir, "argv.txt")
	envOut := filepath.Join(dir, "env.txt")
	script := extWriteScript(t, dir, "record.sh", `#!/bin/sh
cat > "$STDIN_OUT"
printf '%s\n' "$#" "$@" > "$ARGS_OUT"
env > "$ENV_OUT"
`)
	env := map[string]string{"STDIN_OUT": stdinOut, "ARGS_OUT": argsOut, "ENV_OUT": envOut}

	commands := map[string][]string{
		"argv":           {script, "--fixed-flag", "value with space"},
		"operator shell": {"sh", "-c", script + ` --fixed-flag "value with space"`},
	}
	for name, command := range commands {
		t.Run(name, func(t *testing.T) {
			for _, f := range []string{stdinOut, argsOut, envOut} {
				_ = os.Remove(f)
			}
			h := extCommandHandler(t, PreToolUse, HandlerSpec{Command: command, Env: env})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			res, err := h.Handle(ctx, extToolEvent(input))
			if err != nil || res.Decision != Allow {
				t.Fatalf("Handle = %+v, %v", res, err)
			}

			matches, _ := filepath.Glob(canary + "*")
			if len(matches) > 0 {
				t.Fatalf("tool arguments were executed: %v", matches)
			}

			raw, err := os.ReadFile(stdinOut)
			if err != nil {
				t.Fatal(err)
			}
			var got Event
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("stdin is not the event JSON: %v\n%s", err, raw)
			}
			if !reflect.DeepEqual(got.ToolInput, input) {
				t.Fatalf("tool input changed on its way:\n got %#v\nwant %#v", got.ToolInput, input)
			}

			argv, _ := os.ReadFile(argsOut)
			if want := "2\n--fixed-flag\nvalue with space\n"; string(argv) != want {
				t.Fatalf("argv = %q, want %q", argv, want)
			}
			envRaw, _ := os.ReadFile(envOut)
			for _, needle := range []string{"canary", "touch", "fixed-flag"} {
				if strings.Contains(string(envRaw), needle) {
					t.Fatalf("environment carries %q:\n%s", needle, envRaw)
				}
			}
		})
	}
}
