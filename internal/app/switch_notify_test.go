package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/testenv"
)

// startOnPostgres builds and starts an instance on the PostgreSQL schema
// of dsn, with the admin token "tok-switch".
func startOnPostgres(t testing.TB, dsn string) *App {
	t.Helper()
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\n  tokens: [{name: ops, token_env: SWITCH_TEST_TOKEN}]\n" +
		"upstreams: [{name: u, base_url: \"http://127.0.0.1:1\"}]\n" +
		"store:\n  driver: postgres\n  dsn: ${SWITCH_TEST_DSN}\n"
	env := map[string]string{"SWITCH_TEST_TOKEN": "tok-switch", "SWITCH_TEST_DSN": dsn}
	cfg, err := config.Parse([]byte(doc), "switch.yaml", func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	a, err := Build(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// throwSwitch throws the organisation's read-only switch through a's
// admin API.
func throwSwitch(t testing.TB, a *App, value string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, a.AdminURL()+"/admin/tenants/*/readonly", strings.NewReader(`{"read_only": `+value+`}`))
	req.Header.Set("Authorization", "Bearer tok-switch")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("switch %s: %d", value, resp.StatusCode)
	}
}

func orgReadOnly(t testing.TB, a *App) bool {
	t.Helper()
	v, _, err := a.readOnly.ReadOnly(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func untilReadOnly(t *testing.T, a *App, want bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); orgReadOnly(t, a) != want; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

// A switch thrown on instance A is seen on instance B although B has its
// answer cached: while B hears notifications its cache is kept until a
// change is heard, so only the notification can refresh it. After B's
// listener connection is terminated, a switch thrown meanwhile is seen
// too.
func TestSwitchThrownOnOneInstanceIsSeenOnAnother(t *testing.T) {
	dsn, app := testenv.PostgresSchema(t)
	a, b := startOnPostgres(t, dsn), startOnPostgres(t, dsn)
	for _, inst := range []*App{a, b} {
		for deadline := time.Now().Add(30 * time.Second); !inst.persistence.Store.Live(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("an instance never hears notifications")
			}
		}
	}
	want := "# HELP hookgate_store_notifications_live 1 while the store's listener hears other instances' approval answers and switch changes; 0 while they are polled.\n# TYPE hookgate_store_notifications_live gauge\nhookgate_store_notifications_live 1\n"
	if err := testutil.GatherAndCompare(b.Registry, strings.NewReader(want), "hookgate_store_notifications_live"); err != nil {
		t.Fatal(err)
	}
	if orgReadOnly(t, b) {
		t.Fatal("read-only before any switch")
	}
	throwSwitch(t, a, "true")
	untilReadOnly(t, b, true, "B sees the switch thrown on A")
	if !orgReadOnly(t, a) {
		t.Fatal("A does not see its own switch")
	}
	if n := testenv.TerminateBackends(t, app+" notify"); n != 2 {
		t.Fatalf("terminated %d listener connections, want 2", n)
	}
	throwSwitch(t, a, "false")
	untilReadOnly(t, b, false, "B sees the switch thrown while its listener was away")
}
