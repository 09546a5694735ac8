package builtin

import (
	"context"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/hooks"
)

func newDeny(t *testing.T, with map[string]any) hooks.Handler {
	t.Helper()
	h, err := NewDenyPatterns(hooks.BuiltinConfig{HookID: "deny", Event: hooks.PreToolUse, With: with})
	if err != nil {
		t.Fatalf("NewDenyPatterns: %v", err)
	}
	return h
}

func decide(t *testing.T, h hooks.Handler, input map[string]any) hooks.Result {
	t.Helper()
	res, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, ToolName: "exec", ToolInput: input})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestDefaultSets(t *testing.T) {
	h := newDeny(t, map[string]any{"defaults": []any{"shell", "sql"}})
	blocked := map[string]string{
		"rm -rf /":                             "rm-root",
		"sudo rm -rf / ":                       "rm-root",
		"rm -fr /*":                            "rm-root",
		"rm -r -f /":                           "rm-root",
		`bash -c "rm -rf /"`:                   "rm-root",
		"rm -rf ~":                             "rm-root",
		"rm -rf $HOME":                         "rm-root",
		"cd /tmp && rm -rf / ; echo done":      "rm-root",
		"rm -rf --no-preserve-root /":          "rm-root",
		"rm --no-preserve-root -rf /x":         "rm-no-preserve-root",
		"rm -rf /etc":                          "rm-system-dir",
		"rm -r /usr/":                          "rm-system-dir",
		"mkfs.ext4 /dev/sda1":                  "mkfs",
		"mkfs -t xfs /dev/sdb":                 "mkfs",
		"dd if=/dev/zero of=/dev/sda bs=1M":    "dd",
		":(){ :|:& };:":                        "fork-bomb",
		"bomb(){ bomb|bomb& }; bomb":           "fork-bomb",
		"chmod -R 777 /":                       "chmod-777-root",
		"chmod 777 -R /":                       "chmod-777-root",
		"chmod --recursive 0777 /":             "chmod-777-root",
		"echo x > /dev/sda":                    "write-block-device",
		"DROP TABLE users;":                    "drop-table",
		"drop   table if exists users":         "drop-table",
		"DROP DATABASE prod":                   "drop-database",
		"TRUNCATE TABLE orders":                "truncate",
		"truncate orders;":                     "truncate",
		"DELETE FROM users":                    "delete-without-where",
		"delete from users;":                   "delete-without-where",
		"DELETE FROM public.users u ;":         "delete-without-where",
		"BEGIN; DELETE FROM sessions; COMMIT;": "delete-without-where",
	}
	for cmd, label := range blocked {
		res := decide(t, h, map[string]any{"command": cmd})
		if res.Decision != hooks.Block || !strings.Contains(res.Reason, `"`+label+`"`) {
			t.Errorf("%q: %s %q, want block by %s", cmd, res.Decision, res.Reason, label)
		}
	}
	allowed := []string{
		"rm -rf ./build", "rm -rf /tmp/x", "rm file.txt", "ls /", "chmod 755 script.sh",
		"chmod -R 777 ./public", "SELECT * FROM users", "DELETE FROM users WHERE id = 1",
		"delete from t\nwhere a = 1", "truncate -s 0 log.txt", "echo mkfsx", "git add -A",
		"UPDATE t SET a = 1 WHERE b = 2", "docker rm -f web",
	}
	for _, cmd := range allowed {
		if res := decide(t, h, map[string]any{"command": cmd}); res.Decision != hooks.Allow {
			t.Errorf("%q: blocked (%s)", cmd, res.Reason)
		}
	}
}

func TestFieldsAndNesting(t *testing.T) {
	// Default: every string value, recursively.
	h := newDeny(t, map[string]any{"defaults": []any{"shell"}})
	if res := decide(t, h, map[string]any{"argv": []any{"sh", "-c", "rm -rf /"}}); res.Decision != hooks.Block {
		t.Fatal("nested array value not scanned")
	}
	if res := decide(t, h, map[string]any{"opts": map[string]any{"script": "mkfs /dev/sda"}}); res.Decision != hooks.Block {
		t.Fatal("nested map value not scanned")
	}
	// Chosen fields only.
	h = newDeny(t, map[string]any{"defaults": []any{"shell"}, "fields": []any{"command", "toolInput.opts.script"}})
	if res := decide(t, h, map[string]any{"description": "never run rm -rf /"}); res.Decision != hooks.Allow {
		t.Fatal("a field outside fields was scanned")
	}
	if res := decide(t, h, map[string]any{"opts": map[string]any{"script": "rm -rf /"}}); res.Decision != hooks.Block {
		t.Fatal("dotted field not scanned")
	}
}

func TestOwnPatternsNeverEchoTheInput(t *testing.T) {
	h := newDeny(t, map[string]any{"patterns": []any{
		`sk-[A-Za-z0-9]{20,}`,
		map[string]any{"label": "prod-db", "regex": `(?i)prod[-_]db`},
	}})
	secret := "sk-ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	res := decide(t, h, map[string]any{"command": "curl -H 'Authorization: " + secret + "'"})
	if res.Decision != hooks.Block || strings.Contains(res.Reason, secret) || !strings.Contains(res.Reason, "patterns[0]") {
		t.Fatalf("%+v", res)
	}
	res = decide(t, h, map[string]any{"command": "psql PROD_DB"})
	if res.Decision != hooks.Block || res.Reason != `matched deny pattern "prod-db"` {
		t.Fatalf("%+v", res)
	}
}

func TestHugeValueFailsClosed(t *testing.T) {
	h := newDeny(t, map[string]any{"defaults": []any{"sql"}})
	if res := decide(t, h, map[string]any{"q": strings.Repeat("a", maxScanBytes+1)}); res.Decision != hooks.Block {
		t.Fatal("an unscanned value was allowed")
	}
}

func TestParamsValidatedAtLoad(t *testing.T) {
	for name, with := range map[string]map[string]any{
		"unknown set":   {"defaults": []any{"nosql"}},
		"bad regex":     {"patterns": []any{"("}},
		"unknown key":   {"patern": []any{"x"}},
		"nothing":       {},
		"bad field":     {"defaults": []any{"sql"}, "fields": []any{"a..b"}},
		"bad type":      {"patterns": "x"},
		"pattern shape": {"patterns": []any{map[string]any{"re": "x"}}},
	} {
		if _, err := NewDenyPatterns(hooks.BuiltinConfig{Event: hooks.PreToolUse, With: with}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := NewDenyPatterns(hooks.BuiltinConfig{Event: hooks.Stop, With: map[string]any{"defaults": []any{"sql"}}}); err == nil {
		t.Error("accepted on stop")
	}
}

// TestThroughTheEngine registers the package and compiles a YAML-shaped
// entry, as the wiring does.
func TestThroughTheEngine(t *testing.T) {
	reg := hooks.NewBuiltins()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	e, err := hooks.Compile([]hooks.Spec{{
		ID: "no-destructive", Event: hooks.PreToolUse, Matcher: "^(exec|shell|bash)$", Trusted: true,
		Handler: hooks.HandlerSpec{Type: "builtin", Name: DenyPatternsName, With: map[string]any{"defaults": []any{"shell", "sql"}}},
	}}, hooks.Deps{}, hooks.Options{Builtins: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	out := e.Dispatch(context.Background(), &hooks.Event{Event: hooks.PreToolUse, ToolName: "bash", ToolInput: map[string]any{"command": "rm -rf /"}})
	if !out.Blocked() || out.HookID != "no-destructive" {
		t.Fatalf("%+v", out)
	}
	if _, err := hooks.Compile([]hooks.Spec{{ID: "x", Event: hooks.PreToolUse, Trusted: true, Line: 7,
		Handler: hooks.HandlerSpec{Type: "builtin", Name: DenyPatternsName, With: map[string]any{"defaults": []any{"nosql"}}}}},
		hooks.Deps{}, hooks.Options{Builtins: reg}); err == nil || !strings.Contains(err.Error(), "line 7") {
		t.Fatalf("err = %v", err)
	}
}
