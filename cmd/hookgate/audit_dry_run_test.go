package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/store"
)

// dryRunFixture writes a configuration whose store holds dry-run and
// enforcing executions of two tenants, and returns its path.
func dryRunFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "hookgate.yaml")
	if err := os.WriteFile(cfgPath, []byte("upstreams:\n  - name: openai\n    base_url: https://api.example.test\nstore:\n  path: audit.db\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Path: filepath.Join(dir, "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w, err := store.NewAuditWriter(st, store.AuditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Minute)
	rec := func(hook, tool, tenant, agent, decision, reason string) {
		w.Record(store.AuditEntry{HookID: hook, Event: "pre_tool_use", EventID: "e-" + time.Now().String(), SessionID: "s",
			Decision: decision, Tool: tool, Tenant: tenant, Agent: agent, Reason: reason, Input: map[string]any{"command": "rm -rf /srv"}, At: at})
	}
	for range 3 {
		rec("no-recursive-delete", "Bash", "acme", "coder", "would_block", "recursive delete")
	}
	rec("no-recursive-delete", "Bash", "beta", "coder", "would_allow", "")
	rec("no-recursive-delete", "exec_command", "acme", "codex", "would_block", "recursive delete")
	rec("ask-payments", "pay", "acme", "coder", "would_ask", "a person would have been asked")
	rec("deny", "Bash", "acme", "coder", "block", "no")
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return cfgPath
}

func TestAuditDryRunReportGroupsByHookAndTool(t *testing.T) {
	cfg := dryRunFixture(t)
	code, out, errOut := runCLI(t, "audit", "--config", cfg, "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "HOOK") || !strings.Contains(lines[0], "WOULD_BLOCK") {
		t.Fatalf("report:\n%s", out)
	}
	want := [][]string{
		{"no-recursive-delete", "Bash", "3", "0", "0", "1", "4", "recursive delete"},
		{"ask-payments", "pay", "0", "0", "1", "0", "1"},
		{"no-recursive-delete", "exec_command", "1", "0", "0", "0", "1", "recursive delete"},
	}
	for i, w := range want {
		f := strings.Fields(lines[i+1])
		for j, cellWant := range w[:7] {
			if j >= len(f) || f[j] != cellWant {
				t.Errorf("line %d: %q, want %v", i+1, lines[i+1], w)
				break
			}
		}
		if len(w) > 7 && !strings.Contains(lines[i+1], w[7]) {
			t.Errorf("line %d lacks the reason: %q", i+1, lines[i+1])
		}
	}
	if strings.Contains(out, "deny") || strings.Contains(out, "rm -rf") {
		t.Errorf("the report shows an enforcing hook or arguments:\n%s", out)
	}

	// Filters and other keys, as JSON.
	code, out, errOut = runCLI(t, "audit", "--config", cfg, "--dry-run", "--tenant", "acme", "--group-by", "hook,agent", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []dryRunRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rows) != 3 || rows[0].Keys["agent"] != "coder" || rows[0].Counts["would_block"] != 3 || rows[0].Total != 3 {
		t.Errorf("rows %+v", rows)
	}
}

func TestAuditToolTenantAgentFiltersAndGroupBy(t *testing.T) {
	cfg := dryRunFixture(t)
	for _, tc := range []struct {
		args []string
		rows int
	}{
		{[]string{"--tool", "Bash"}, 5},
		{[]string{"--tenant", "beta"}, 1},
		{[]string{"--agent", "codex"}, 1},
		{[]string{"--tool", "Bash", "--tenant", "acme", "--decision", "block"}, 1},
	} {
		code, out, errOut := runCLI(t, append([]string{"audit", "--config", cfg, "--json"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if len(rows) != tc.rows {
			t.Errorf("%v: %d rows, want %d", tc.args, len(rows), tc.rows)
		}
		for _, r := range rows {
			if r["tool"] == nil || r["tenant"] == nil {
				t.Errorf("%v: row without tool or tenant: %v", tc.args, r)
			}
		}
	}
	code, out, errOut := runCLI(t, "audit", "--config", cfg, "--group-by", "tool,decision")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 || strings.Join(strings.Fields(lines[1])[:3], " ") != "Bash would_block 3" {
		t.Errorf("groups:\n%s", out)
	}
	if code, _, errOut := runCLI(t, "audit", "--config", cfg, "--group-by", "hook,arguments"); code != 2 || !strings.Contains(errOut, "arguments") {
		t.Errorf("bad key: %d %s", code, errOut)
	}
	if code, _, _ := runCLI(t, "audit", "--config", cfg, "--dry-run", "--group-by", "decision"); code != 2 {
		t.Errorf("--dry-run --group-by decision: exit %d, want 2", code)
	}
}

// Dropped dry runs (dry_run_dropped rows) are not counted as runs: the
// report counts them apart and says, per hook, that it undercounts.
func TestAuditDryRunReportSaysWhatWasDropped(t *testing.T) {
	cfg := dryRunFixture(t)
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Path: filepath.Join(filepath.Dir(cfg), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	w, err := store.NewAuditWriter(st, store.AuditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		w.TryRecord(store.AuditEntry{HookID: "no-recursive-delete", Event: "pre_tool_use", EventID: fmt.Sprint("d-", i), SessionID: "s",
			Decision: store.DecisionDryRunDropped, Tool: "Bash", Tenant: "acme", Agent: "coder"})
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, errOut := runCLI(t, "audit", "--config", cfg, "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	f := strings.Fields(lines[1])
	if !strings.Contains(lines[0], "DROPPED") || len(f) < 8 || f[0] != "no-recursive-delete" || f[6] != "4" || f[7] != "3" {
		t.Errorf("report:\n%s", out)
	}
	if !strings.Contains(out, "3 dry runs of no-recursive-delete were dropped (observer pool full): the report undercounts") {
		t.Errorf("the report does not say what was dropped:\n%s", out)
	}
	code, out, _ = runCLI(t, "audit", "--config", cfg, "--decision", "dry_run_dropped", "--json")
	var rows []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 3 {
		t.Errorf("--decision dry_run_dropped: exit %d:\n%s", code, out)
	}
}
