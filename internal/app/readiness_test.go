package app

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

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/testenv"
)

// startFile builds and starts hookgate on the configuration file at path.
func startFile(t *testing.T, path string) *App {
	t.Helper()
	cfg, err := config.Load(path)
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

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// getJSON GETs url (with a bearer token unless ""), decoding the answer.
func getJSON(t *testing.T, url, token string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("GET %s: %d, not JSON: %s", url, resp.StatusCode, b)
	}
	return resp.StatusCode, m
}

func baseConfig(dir string) string {
	return "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\n  tokens: [{name: ops, token_env: READY_TEST_TOKEN}]\n" +
		"upstreams: [{name: u, base_url: \"http://127.0.0.1:1\"}]\n"
}

// /readyz fails on the instance's own causes: its SQLite file gone
// (replaced by a folder nothing can write to) or draining; /healthz stays
// ok throughout. Both take no token; /admin/ does.
func TestReadyzFailsOnLocalCauses(t *testing.T) {
	t.Setenv("READY_TEST_TOKEN", "tok-ready")
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	path := filepath.Join(dir, "hookgate.yaml")
	writeFile(t, path, baseConfig(dir)+"store: {path: "+db+"}\n")
	a := startFile(t, path)

	status, rep := getJSON(t, a.AdminURL()+"/readyz", "")
	if status != 200 || rep["status"] != "ready" || rep["store"].(map[string]any)["ok"] != true {
		t.Fatalf("a fresh instance: %d %v", status, rep)
	}
	if _, has := rep["dependencies"]; has {
		t.Errorf("a SQLite instance without Redis reports dependencies: %v", rep)
	}

	// The store file is taken away (and its place made unwritable).
	if err := os.Rename(db, db+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(db, 0o500); err != nil {
		t.Fatal(err)
	}
	time.Sleep(readinessCacheFor + 100*time.Millisecond)
	status, rep = getJSON(t, a.AdminURL()+"/readyz", "")
	if status != 503 || rep["status"] != "not_ready" || !hasReason(rep, notReadyStore) {
		t.Fatalf("the store file gone: %d %v", status, rep)
	}
	if status, rep := getJSON(t, a.AdminURL()+"/healthz", ""); status != 200 || rep["status"] != "ok" {
		t.Errorf("/healthz with the store gone: %d %v", status, rep)
	}
	// It comes back.
	if err := os.Remove(db); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(db+".moved", db); err != nil {
		t.Fatal(err)
	}
	time.Sleep(readinessCacheFor + 100*time.Millisecond)
	if status, rep := getJSON(t, a.AdminURL()+"/readyz", ""); status != 200 {
		t.Fatalf("the store file back: %d %v", status, rep)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a.Drain(ctx, time.Hour) // returns at once: ctx is done
	status, rep = getJSON(t, a.AdminURL()+"/readyz", "")
	if status != 503 || !hasReason(rep, notReadyDraining) {
		t.Fatalf("draining: %d %v", status, rep)
	}
	if status, _ := getJSON(t, a.AdminURL()+"/healthz", ""); status != 200 {
		t.Errorf("/healthz while draining: %d", status)
	}
	// What is token-free is health, readiness and metrics only.
	if status, _ := getJSON(t, a.AdminURL()+"/admin/config/version", ""); status != 401 {
		t.Errorf("/admin/config/version without a token: %d", status)
	}
	if status, _ := getJSON(t, a.AdminURL()+"/debug/pprof/", ""); status != 404 {
		t.Errorf("an unknown admin path: %d", status)
	}
}

// Before Start nothing listens yet, and readiness says "starting".
func TestReadinessIsFalseBeforeStart(t *testing.T) {
	t.Setenv("READY_TEST_TOKEN", "tok-ready")
	dir := t.TempDir()
	path := filepath.Join(dir, "hookgate.yaml")
	writeFile(t, path, baseConfig(dir)+"store: {path: "+filepath.Join(dir, "h.db")+"}\n")
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Build(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ready, rep := a.ready.Ready(context.Background())
	if ready || !strings.Contains(strings.Join(rep.(readyReport).Reasons, ","), notReadyStarting) {
		t.Fatalf("before Start: ready=%v %+v", ready, rep)
	}
}

// PostgreSQL and Redis are reported, in /readyz and in
// hookgate_dependency_up, and never make the instance unready: a Redis
// that does not answer is down, and the instance stays ready.
func TestReadinessReportsSharedDependencies(t *testing.T) {
	dsn := testenv.Postgres(t)
	redisAddr := testenv.Redis(t)
	t.Setenv("READY_TEST_TOKEN", "tok-ready")
	t.Setenv("READY_PG_DSN", dsn)
	t.Setenv("HOOKGATE_REDIS_ADDR", redisAddr)
	t.Setenv("READY_DEAD_REDIS", "127.0.0.1:1")
	dir := t.TempDir()
	path := filepath.Join(dir, "hookgate.yaml")
	writeFile(t, path, baseConfig(dir)+"store: {driver: postgres, dsn: \"${READY_PG_DSN}\"}\n"+`hooks:
  - id: shared-budget
    event: pre_tool_use
    handler: {type: builtin, name: rate_limit, with: {limit: 5, window: 1m, redis: {}}}
  - id: dead-budget
    event: pre_tool_use
    handler: {type: builtin, name: rate_limit, with: {limit: 5, window: 1m, redis: {addr_env: READY_DEAD_REDIS}}}
`)
	a := startFile(t, path)
	status, rep := getJSON(t, a.AdminURL()+"/readyz", "")
	deps, _ := rep["dependencies"].(map[string]any)
	up := func(name string) any {
		d, _ := deps[name].(map[string]any)
		return d["up"]
	}
	if status != 200 || rep["status"] != "ready" || up("postgres") != true || up("redis") != true || up("redis:READY_DEAD_REDIS") != false {
		t.Fatalf("/readyz: %d %v", status, rep)
	}
	if _, has := rep["store"]; has {
		t.Errorf("a PostgreSQL store is reported as the instance's own: %v", rep)
	}
	if b, _ := json.Marshal(rep); strings.Contains(string(b), "127.0.0.1") || strings.Contains(string(b), "hookgate:") {
		t.Errorf("/readyz names an address or a DSN: %s", b)
	}
	want := `
# HELP hookgate_dependency_up Whether a shared dependency (postgres, redis) answered its last check: 1 up, 0 down. Reported, never a cause of unreadiness.
# TYPE hookgate_dependency_up gauge
hookgate_dependency_up{dependency="postgres"} 1
hookgate_dependency_up{dependency="redis"} 1
hookgate_dependency_up{dependency="redis:READY_DEAD_REDIS"} 0
`
	if err := testutil.GatherAndCompare(a.Registry, strings.NewReader(want), "hookgate_dependency_up"); err != nil {
		t.Error(err)
	}
}

func hasReason(rep map[string]any, reason string) bool {
	rs, _ := rep["reasons"].([]any)
	for _, r := range rs {
		if r == reason {
			return true
		}
	}
	return false
}
