package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/store"
)

const cliAuditKey = "4242424242424242424242424242424242424242424242424242424242424242"

// auditFixture writes a configuration whose store holds three executions,
// one of them failed with a long error, and returns its path.
func auditFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "hookgate.yaml")
	// No upstream key in this shell: the audit command must not need it.
	os.WriteFile(cfgPath, []byte(`upstreams:
  - name: openai
    base_url: https://api.example.test
    api_key_env: HG_CLI_UNSET_UPSTREAM_KEY
store:
  path: audit.db
audit:
  key_env: HG_CLI_AUDIT_KEY
`), 0o600)
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Path: filepath.Join(dir, "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key, _ := store.ParseAuditKey(cliAuditKey)
	w, err := store.NewAuditWriter(st, store.AuditOptions{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour)
	w.Record(store.AuditEntry{HookID: "deny", Event: "pre_tool_use", EventID: "e1", SessionID: "s1", Decision: "block",
		Duration: 3 * time.Millisecond, Input: map[string]any{"command": "rm -rf /"}, At: base})
	w.Record(store.AuditEntry{HookID: "deny", Event: "pre_tool_use", EventID: "e2", SessionID: "s2", Decision: "allow",
		Input: map[string]any{"command": "ls"}, At: base.Add(time.Minute)})
	w.Record(store.AuditEntry{HookID: "policy-server", Event: "pre_tool_use", EventID: "e2", SessionID: "s2", Decision: "error",
		Cause: errors.New("policy server unreachable: " + strings.Repeat("x", 300) + " FULL-DETAIL-END"), At: base.Add(2 * time.Minute)})
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return cfgPath
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestAuditListsExecutions(t *testing.T) {
	cfg := auditFixture(t)
	code, out, errOut := runCLI(t, "audit", "--config", cfg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "TIME") {
		t.Fatalf("table:\n%s", out)
	}
	for _, want := range []string{"policy-server", "error", "s2", "policy server unreachable"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("newest row lacks %q: %s", want, lines[1])
		}
	}
	if strings.Contains(out, "FULL-DETAIL-END") {
		t.Fatal("the sealed detail shows without --decrypt")
	}
	if !strings.Contains(lines[3], "block") || !strings.Contains(lines[3], "3.0") {
		t.Errorf("oldest row: %s", lines[3])
	}
}

func TestAuditFilters(t *testing.T) {
	cfg := auditFixture(t)
	for _, tc := range []struct {
		args []string
		rows int
	}{
		{[]string{"--session", "s2"}, 2},
		{[]string{"--hook", "deny"}, 2},
		{[]string{"--decision", "block"}, 1},
		{[]string{"--hook", "deny", "--decision", "allow"}, 1},
		{[]string{"--limit", "1"}, 1},
		{[]string{"--since", "30m"}, 0},
		{[]string{"--since", "2h"}, 3},
	} {
		code, out, errOut := runCLI(t, append([]string{"audit", "--config", cfg, "--json"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, out)
		}
		if len(rows) != tc.rows {
			t.Errorf("%v: %d rows, want %d", tc.args, len(rows), tc.rows)
		}
	}
	if code, _, errOut := runCLI(t, "audit", "--config", cfg, "--decision", "blocked"); code != 2 || !strings.Contains(errOut, "want one of") {
		t.Fatalf("bad decision: %d %s", code, errOut)
	}
}

func TestAuditDecrypt(t *testing.T) {
	cfg := auditFixture(t)
	t.Setenv("HG_CLI_AUDIT_KEY", "")
	code, _, errOut := runCLI(t, "audit", "--config", cfg, "--decrypt")
	if code != 1 || !strings.Contains(errOut, "HG_CLI_AUDIT_KEY (audit.key_env) is not set") {
		t.Fatalf("without the key: exit %d: %s", code, errOut)
	}

	t.Setenv("HG_CLI_AUDIT_KEY", cliAuditKey)
	code, out, errOut := runCLI(t, "audit", "--config", cfg, "--decrypt")
	if code != 0 || !strings.Contains(out, "FULL-DETAIL-END") {
		t.Fatalf("with the key: exit %d: %s\n%s", code, errOut, out)
	}
	code, out, _ = runCLI(t, "audit", "--config", cfg, "--decrypt", "--json", "--decision", "error")
	var rows []struct {
		HookID      *string `json:"hook_id"`
		Error       string  `json:"error"`
		ErrorDetail string  `json:"error_detail"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 ||
		!strings.HasSuffix(rows[0].ErrorDetail, "FULL-DETAIL-END") || len(rows[0].Error) != store.ErrorMax {
		t.Fatalf("json detail: %s", out)
	}

	t.Setenv("HG_CLI_AUDIT_KEY", "9999999999999999999999999999999999999999999999999999999999999999")
	if _, out, _ := runCLI(t, "audit", "--config", cfg, "--decrypt"); !strings.Contains(out, "cannot decrypt") {
		t.Fatalf("wrong key:\n%s", out)
	}
}

func TestAuditShowsRemovedHooks(t *testing.T) {
	cfg := auditFixture(t)
	st, err := store.Open(context.Background(), store.Options{Path: filepath.Join(filepath.Dir(cfg), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	st.DetachRemovedHooks(context.Background(), []string{"deny"})
	st.Close()
	_, out, _ := runCLI(t, "audit", "--config", cfg)
	if !strings.Contains(out, "(removed)") {
		t.Fatalf("removed hook not shown:\n%s", out)
	}
	_, out, _ = runCLI(t, "audit", "--config", cfg, "--json", "--decision", "error")
	if !strings.Contains(out, `"hook_id": null`) {
		t.Fatalf("json: %s", out)
	}
}

func TestAuditRefusesABadStoreSection(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	os.WriteFile(path, []byte("store:\n  driver: postgres\n  dsn: ${HG_CLI_UNSET_DSN}\n"), 0o600)
	code, _, errOut := runCLI(t, "audit", "--config", path)
	if code != 1 || !strings.Contains(errOut, "HG_CLI_UNSET_DSN is not set") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	os.WriteFile(path, []byte("store:\n  path: nowhere/none.db\n"), 0o600)
	if code, _, errOut := runCLI(t, "audit", "--config", path); code != 1 || !strings.Contains(errOut, "no audit store at") {
		t.Fatalf("missing store: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); err == nil {
		t.Fatal("the audit command created a store")
	}
	os.WriteFile(path, []byte("store:\n  driver: mysql\n"), 0o600)
	if code, _, errOut := runCLI(t, "audit", "--config", path); code != 1 || !strings.Contains(errOut, "store.driver") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"24h":                  now.Add(-24 * time.Hour),
		"2026-05-01":           time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC),
		"2026-05-01T10:30:00Z": time.Date(2026, 5, 1, 10, 30, 0, 0, time.UTC),
	} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("%s: %s %v", in, got, err)
		}
	}
	for _, bad := range []string{"yesterday", "-1h"} {
		if _, err := parseSince(bad, now); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
