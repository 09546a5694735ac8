package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/hooks"
)

func newInject(base string, trusted bool, with map[string]any) (hooks.Handler, error) {
	return NewInjectContext(hooks.BuiltinConfig{HookID: "ctx", Event: hooks.SessionStart, Trusted: trusted, With: with, Deps: hooks.Deps{BaseDir: base}})
}

func contextOf(t *testing.T, h hooks.Handler, ev *hooks.Event) string {
	t.Helper()
	res, err := h.Handle(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision != hooks.Allow {
		t.Fatalf("decision %s", res.Decision)
	}
	return res.AdditionalContext
}

func TestInjectContextText(t *testing.T) {
	h, err := newInject("", true, map[string]any{"text": "You work for ACME."})
	if err != nil {
		t.Fatal(err)
	}
	if got := contextOf(t, h, &hooks.Event{Event: hooks.SessionStart}); got != "You work for ACME." {
		t.Fatalf("%q", got)
	}
}

func TestInjectContextTemplate(t *testing.T) {
	h, err := newInject("", true, map[string]any{"template": "tenant={{.tenant}} agent={{.agent}} date={{.date}} session={{.session}}"})
	if err != nil {
		t.Fatal(err)
	}
	// 23:30 on 1 March in UTC-5 is already 2 March in UTC.
	h.(*injectContext).now = func() time.Time {
		return time.Date(2026, 3, 1, 23, 30, 0, 0, time.FixedZone("EST", -5*3600))
	}
	got := contextOf(t, h, &hooks.Event{Event: hooks.SessionStart, Tenant: "acme", Agent: "builder", SessionID: "s-1"})
	if want := "tenant=acme agent=builder date=2026-03-02 session=s-1"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// Fields that are absent render empty, not as "<no value>".
	got = contextOf(t, h, &hooks.Event{Event: hooks.SessionStart})
	if want := "tenant= agent= date=2026-03-02 session="; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestInjectContextFile(t *testing.T) {
	base := t.TempDir()
	outside := t.TempDir()
	write := func(dir, name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write(base, "ctx/acme.md", "# ACME\nBe careful.\n")
	secret := write(outside, "secret.txt", "host secret")
	if err := os.Symlink(secret, filepath.Join(base, "link.txt")); err != nil {
		t.Fatal(err)
	}
	write(base, "empty.md", " \n")
	write(base, "big.md", strings.Repeat("x", maxContextBytes+1))
	write(base, "binary.md", "\xff\xfe")

	for _, tc := range []struct {
		name    string
		trusted bool
		file    string
		want    string // "" : an error
	}{
		{"relative", true, "ctx/acme.md", "# ACME\nBe careful.\n"},
		{"relative, untrusted", false, "ctx/acme.md", "# ACME\nBe careful.\n"},
		{"absolute, trusted", true, secret, "host secret"},
		{"absolute, untrusted", false, secret, ""},
		{"escape, untrusted", false, "../" + filepath.Base(outside) + "/secret.txt", ""},
		{"symlink out, untrusted", false, "link.txt", ""},
		{"missing", true, "nope.md", ""},
		{"blank", true, "empty.md", ""},
		{"too big", true, "big.md", ""},
		{"not UTF-8", true, "binary.md", ""},
	} {
		h, err := newInject(base, tc.trusted, map[string]any{"file": tc.file})
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s: accepted", tc.name)
		case tc.want != "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "":
			if got := contextOf(t, h, &hooks.Event{Event: hooks.SessionStart}); got != tc.want {
				t.Errorf("%s: %q", tc.name, got)
			}
		}
	}
	// The file is read at load: a later change is not seen until a reload.
	h, err := newInject(base, true, map[string]any{"file": "ctx/acme.md"})
	if err != nil {
		t.Fatal(err)
	}
	write(base, "ctx/acme.md", "changed")
	if got := contextOf(t, h, &hooks.Event{Event: hooks.SessionStart}); got != "# ACME\nBe careful.\n" {
		t.Fatalf("%q", got)
	}
}

func TestInjectContextParams(t *testing.T) {
	for name, with := range map[string]map[string]any{
		"none":           {},
		"two":            {"text": "a", "template": "b"},
		"blank text":     {"text": "  "},
		"unknown key":    {"txt": "a"},
		"bad template":   {"template": "{{.tenant"},
		"unknown field":  {"template": "{{.tenat}}"},
		"unknown func":   {"template": "{{env \"HOME\"}}"},
		"wrong type":     {"text": 3},
		"template blank": {"template": " "},
	} {
		if _, err := newInject("", true, with); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := NewInjectContext(hooks.BuiltinConfig{Event: hooks.PreResponse, With: map[string]any{"text": "a"}}); err == nil {
		t.Error("accepted on pre_response")
	}
}

func TestInjectContextThroughTheEngine(t *testing.T) {
	e := compileOne(t, hooks.Spec{
		ID: "ctx", Event: hooks.SessionStart, Trusted: true,
		Handler: hooks.HandlerSpec{Type: "builtin", Name: InjectContextName, With: map[string]any{"template": "Tenant {{.tenant}}."}},
	}, hooks.Deps{})
	out := e.Dispatch(context.Background(), &hooks.Event{Event: hooks.SessionStart, Tenant: "acme"})
	if out.Context != "Tenant acme." {
		t.Fatalf("%+v", out)
	}
}
