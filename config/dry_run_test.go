package config

import (
	"strings"
	"testing"
)

func TestDryRunOnlyOnBlockingAndContributingHooks(t *testing.T) {
	doc := `
upstreams:
  - name: openai
    base_url: https://api.example.test
hooks:
  - id: dry-pre
    event: pre_tool_use
    dry_run: true
    handler: {type: builtin, name: deny_patterns}
  - id: dry-start
    event: session_start
    dry_run: true
    handler: {type: builtin, name: inject_context, with: {text: hi}}
  - id: dry-stop
    event: stop
    dry_run: true
    handler: {type: builtin, name: audit_log}
`
	_, err := Parse([]byte(doc), "c.yaml", env(nil))
	if err == nil {
		t.Fatal("an observing hook with dry_run was accepted")
	}
	msg := err.Error()
	if !strings.Contains(msg, "c.yaml:16") || !strings.Contains(msg, "hooks[2].dry_run") || !strings.Contains(msg, "stop hook observes already") {
		t.Errorf("error %q: want the stop hook's dry_run line", msg)
	}
	if strings.Contains(msg, "hooks[0]") || strings.Contains(msg, "hooks[1]") {
		t.Errorf("error %q names a blocking or contributing hook", msg)
	}
	cfg, err := Parse([]byte(doc[:strings.Index(doc, "  - id: dry-stop")]), "c.yaml", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Hooks[0].DryRun || !cfg.Hooks[1].DryRun {
		t.Errorf("dry_run not read: %+v", cfg.Hooks)
	}
}

func TestTenantDryRunOnObservingHookRefused(t *testing.T) {
	ten := &Tenant{ID: "acme"}
	_, err := ParseTenantHooks(ten, "acme.yaml", t.TempDir(), []byte(`
- id: acme-stop
  event: stop
  dry_run: true
  handler: {type: builtin, name: audit_log}
`))
	if err == nil || !strings.Contains(err.Error(), "[0].dry_run") {
		t.Fatalf("err %v: want the dry_run refused", err)
	}
}
