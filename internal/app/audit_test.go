package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/store"
)

const testAuditKey = "4242424242424242424242424242424242424242424242424242424242424242"

// auditConfig is a configuration with three pre_tool_use hooks: one that
// allows, one that blocks rm, one whose backend is down.
func auditConfig(t *testing.T, extra string) *config.Config {
	t.Helper()
	t.Setenv("HG_TEST_AUDIT_KEY", testAuditKey)
	t.Setenv("HG_TEST_UPSTREAM_KEY", "sk-upstreamCANARY0123456789")
	doc := `
upstreams:
  - name: mock
    base_url: http://127.0.0.1:9
    api_key_env: HG_TEST_UPSTREAM_KEY
audit:
  key_env: HG_TEST_AUDIT_KEY
` + extra + `
hooks:
  - id: allow-all
    event: pre_tool_use
    handler:
      type: script
      source: "function handle(e) { return {decision: 'allow'} }"
  - id: block-rm
    event: pre_tool_use
    matcher: "^exec$"
    handler:
      type: script
      source: "function handle(e) { return e.toolInput.command.indexOf('rm') >= 0 ? {decision: 'block', reason: 'no rm'} : {decision: 'allow'} }"
  - id: backend-down
    event: pre_tool_use
    on_timeout: allow
    handler:
      type: script
      source: "function handle(e) { throw new Error('policy backend refused key sk-upstreamCANARY0123456789') }"
`
	cfg, err := config.Parse([]byte(doc), "audit.yaml", os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	cfg.BaseDir = t.TempDir()
	return cfg
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func compileHooks(t *testing.T, specs []hooks.Spec, rec hooks.Recorder) *hooks.Engine {
	t.Helper()
	e, err := hooks.Compile(specs, hooks.Deps{Logger: quietLogger()}, hooks.Options{Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// The audit log of a real engine: one row per hook execution performed,
// a retried delivery's included, NULL hook ids once a hook is removed.
func TestAuditRecordsTheEngineExecutions(t *testing.T) {
	ctx := context.Background()
	cfg := auditConfig(t, "")
	reg := prometheus.NewRegistry()
	p, err := OpenPersistence(ctx, cfg, reg, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	if _, err := os.Stat(filepath.Join(cfg.BaseDir, "hookgate.db")); err != nil {
		t.Fatalf("the store is not beside the configuration: %v", err)
	}
	engine := compileHooks(t, cfg.Hooks, newHookMetrics(reg, p.Audit))
	if err := p.HooksConfigured(ctx, engine.Hooks()); err != nil {
		t.Fatal(err)
	}

	performed := 0
	events := []*hooks.Event{}
	for i := range 12 {
		cmd := "ls"
		if i%3 == 0 {
			cmd = "rm -rf /tmp/x"
		}
		ev := &hooks.Event{Event: hooks.PreToolUse, EventID: fmt.Sprint("call-", i), SessionID: "s1",
			ToolName: "exec", ToolCallID: fmt.Sprint("call-", i), ToolInput: map[string]any{"command": cmd}}
		events = append(events, ev)
		if err := p.Audit.Admit(ctx); err != nil {
			t.Fatal(err)
		}
		out := engine.Dispatch(ctx, ev)
		performed += len(out.Executions)
	}
	// The agent resends: the same events are judged again, and every run
	// is on record.
	for _, ev := range events[:5] {
		out := engine.Dispatch(ctx, ev)
		performed += len(out.Executions)
	}
	if err := p.Audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	n, err := p.Store.CountExecutions(ctx, store.ExecutionFilter{})
	if err != nil || n != int64(performed) {
		t.Fatalf("%d rows for %d executions performed (%v)", n, performed, err)
	}
	// rm is in events 0, 3, 6 and 9, and 0 and 3 were resent.
	if blocks, _ := p.Store.CountExecutions(ctx, store.ExecutionFilter{HookID: "block-rm", Decision: "block"}); blocks != 6 {
		t.Fatalf("%d block rows, want 6", blocks)
	}

	failed, _ := p.Store.ListExecutions(ctx, store.ExecutionFilter{HookID: "backend-down"})
	if len(failed) != 11 {
		t.Fatalf("%d rows of the failing hook, want 11 (8 and 3 resent; it never runs after a block)", len(failed))
	}
	key, _ := store.ParseAuditKey(testAuditKey)
	for _, r := range failed {
		if r.Decision != "error" || r.Error == "" || strings.Contains(r.Error, "CANARY") {
			t.Fatalf("error row %+v", r)
		}
		detail, err := key.Open(r.ID, r.ErrorDetail)
		if err != nil || !strings.Contains(detail, "policy backend refused key") || strings.Contains(detail, "CANARY") {
			t.Fatalf("detail %q: %v", detail, err)
		}
		hashed := false
		for _, ev := range events {
			if strings.HasPrefix(r.DedupKey, store.DedupKey("backend-down", ev.EventID)+"|") {
				want, _ := store.InputHash(ev)
				hashed = r.InputHash == want
			}
		}
		if !hashed {
			t.Fatalf("row %s: input hash %q is not the hash of its event", r.ID, r.InputHash)
		}
	}

	// backend-down leaves the configuration: its rows stay, unattributed.
	engine2 := compileHooks(t, cfg.Hooks[:2], p.Audit)
	if err := p.HooksConfigured(ctx, engine2.Hooks()); err != nil {
		t.Fatal(err)
	}
	if n2, _ := p.Store.CountExecutions(ctx, store.ExecutionFilter{}); n2 != n {
		t.Fatalf("rows went from %d to %d", n, n2)
	}
	if left, _ := p.Store.CountExecutions(ctx, store.ExecutionFilter{HookID: "backend-down"}); left != 0 {
		t.Fatalf("%d rows still name the removed hook", left)
	}
}

func TestAuditRecorderRefusesUnderBlockWhenTheQueueStaysFull(t *testing.T) {
	ctx := context.Background()
	cfg := auditConfig(t, "  on_full: block\n  queue_size: 1\n  max_wait: 50ms\n")
	cfg.Store.Path = filepath.Join(cfg.BaseDir, "a.db")
	p, err := OpenPersistence(ctx, cfg, prometheus.NewRegistry(), quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	// Hold the file's write lock as another process would.
	release := lockSQLite(t, cfg.Store.Path)
	defer release()
	ev := &hooks.Event{Event: hooks.PreToolUse, EventID: "e", SessionID: "s"}
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		p.Audit.HookExecuted(hooks.Execution{HookID: "h", Event: hooks.PreToolUse, EventID: fmt.Sprint(i), Decision: hooks.Allow, Input: ev})
		err := p.Audit.Admit(ctx)
		if errors.Is(err, store.ErrAuditBackpressure) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never refused: %v", err)
		}
	}
	release()
	if err := p.Audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Audit.Admit(ctx); err != nil {
		t.Fatalf("still refused after the store recovered: %v", err)
	}
}

func TestStoreOptionsResolveRelativePaths(t *testing.T) {
	cfg := &config.Config{BaseDir: "/etc/hookgate", Store: config.Store{Driver: "sqlite", Path: "data/hg.db"}}
	if got := StoreOptions(cfg, nil).Path; got != "/etc/hookgate/data/hg.db" {
		t.Fatalf("relative path: %s", got)
	}
	cfg.Store.Path = "/var/lib/hg.db"
	if got := StoreOptions(cfg, nil).Path; got != "/var/lib/hg.db" {
		t.Fatalf("absolute path: %s", got)
	}
	cfg.Store.Path = store.MemoryPath
	if got := StoreOptions(cfg, nil).Path; got != store.MemoryPath {
		t.Fatalf("memory path: %s", got)
	}
}

func TestAuditRecorderRefusesABadKey(t *testing.T) {
	cfg := auditConfig(t, "")
	cfg.Audit.Key = "not a key"
	st, err := OpenStore(context.Background(), cfg, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := NewAuditRecorder(cfg, st, nil, quietLogger()); err == nil || strings.Contains(err.Error(), "not a key") {
		t.Fatalf("bad key: %v", err)
	}
}

// lockSQLite takes a SQLite file's write lock from another connection.
func lockSQLite(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err == nil {
		_, err = conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
	}
	if err != nil {
		t.Fatal(err)
	}
	done := false
	return func() {
		if !done {
			done = true
			conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
			db.Close()
		}
	}
}
