package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/store"
)

// A running hookgate's admin listener: approvals answered with --admin
// and --comment go through POST /admin/approvals/{id}/approve|reject,
// are recorded under the admin token's name with the comment, and show
// with it in the admin API (what the console lists) and in
// `hookgate approvals list`; a wrong token is refused.
func TestApprovalsThroughTheAdminAPIWithAComment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HG_CLI_ALICE", "tok-alice-cli")
	t.Setenv("HG_CLI_UPSTREAM", "sk-upstream")
	cfgPath := filepath.Join(dir, "hookgate.yaml")
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\n  tokens:\n    - {name: alice, token_env: HG_CLI_ALICE}\n" +
		"upstreams: [{name: u, base_url: \"http://127.0.0.1:1\", api_key_env: HG_CLI_UPSTREAM}]\n" +
		"store: {path: " + filepath.Join(dir, "h.db") + "}\n"
	if err := os.WriteFile(cfgPath, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := app.Build(cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	st, err := app.OpenStore(context.Background(), cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ask := func(tool string) string {
		payload, _ := json.Marshal(map[string]string{"hook": "approve", "tool": tool, "session": "s1", "arguments": "{}"})
		c, _, err := st.CreateConfirmation(context.Background(), store.NewConfirmation{
			Tool: tool, SessionID: "s1", ArgsHash: "h-" + tool, Payload: string(payload), ExpiresAt: time.Now().Add(time.Hour),
		})
		if err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	pay, refund, deploy := ask("pay"), ask("refund"), ask("deploy")
	// Without --admin the comment is written to the store directly.
	if code, _, stderr := runCLI(t, "approvals", "approve", "--config", cfgPath, "--by", "ops", "--comment", "change window", deploy); code != 0 {
		t.Fatalf("approve in the store: exit %d, %s", code, stderr)
	}
	if c, _ := st.GetConfirmation(context.Background(), deploy); c.Comment != "change window" || c.RespondedBy != "ops" {
		t.Fatalf("approved in the store: by %q comment %q", c.RespondedBy, c.Comment)
	}

	t.Setenv(defaultAdminTokenEnv, "tok-wrong")
	if code, _, stderr := runCLI(t, "approvals", "approve", "--admin", a.AdminURL(), pay); code != 1 || !strings.Contains(stderr, "401") || strings.Contains(stderr, "tok-wrong") {
		t.Fatalf("a wrong token: exit %d, stderr %q; want 1, the 401, and no token", code, stderr)
	}
	t.Setenv(defaultAdminTokenEnv, "tok-alice-cli")
	if code, _, stderr := runCLI(t, "approvals", "approve", "--admin", a.AdminURL(), "--by", "mallory", pay); code != 2 {
		t.Fatalf("--by with --admin: exit %d, want 2 (%s)", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "approvals", "approve", "--admin", a.AdminURL(), "--comment", "checked with finance", pay)
	if code != 0 || !strings.Contains(stdout, "by alice") || !strings.Contains(stdout, `comment="checked with finance"`) {
		t.Fatalf("approve: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	t.Setenv("HG_OTHER_TOKEN", "tok-alice-cli")
	if code, stdout, stderr := runCLI(t, "approvals", "reject", "--admin", a.AdminURL(), "--token-env", "HG_OTHER_TOKEN", "--comment", "not this month", refund); code != 0 || !strings.Contains(stdout, "rejected") {
		t.Fatalf("reject: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, "approvals", "reject", "--admin", a.AdminURL(), pay); code != 1 || !strings.Contains(stderr, "409") {
		t.Fatalf("answering again: exit %d, stderr %q; want 1 and a 409", code, stderr)
	}

	for id, want := range map[string][2]string{pay: {"approved", "checked with finance"}, refund: {"rejected", "not this month"}} {
		c, err := st.GetConfirmation(context.Background(), id)
		if err != nil || string(c.Status) != want[0] || c.RespondedBy != "alice" || c.Comment != want[1] {
			t.Errorf("stored %s: %s by %q comment %q (%v); want %s by alice, %q", id, c.Status, c.RespondedBy, c.Comment, err, want[0], want[1])
		}
	}
	req, _ := http.NewRequest("GET", a.AdminURL()+"/admin/approvals?status=recent", nil)
	req.Header.Set("Authorization", "Bearer tok-alice-cli")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	listed, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(listed), `"comment":"checked with finance"`) || !strings.Contains(string(listed), `"comment":"not this month"`) {
		t.Errorf("the admin API's list lacks the comments: %s", listed)
	}
	if code, stdout, _ := runCLI(t, "approvals", "list", "--config", cfgPath, "--status", "all", "--json"); code != 0 || !strings.Contains(stdout, `"comment": "checked with finance"`) {
		t.Errorf("approvals list: exit %d\n%s", code, stdout)
	}
}
