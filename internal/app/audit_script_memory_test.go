package app

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/store"
)

// A script stopped by its memory budget (limits.script_max_memory, from the
// configuration) is blocked and on record as an error that says so, with
// its real duration; a script stopped by its deadline is on record as a
// timeout. A hook asking for more than the limit does not load.
func TestAuditRecordsTheScriptMemoryBudget(t *testing.T) {
	ctx := context.Background()
	cfg := auditConfig(t, "limits:\n  script_max_memory: 16MiB\n")
	reg := prometheus.NewRegistry()
	p, err := OpenPersistence(ctx, cfg, reg, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)

	specs, err := config.Parse([]byte(`
upstreams:
  - name: mock
    base_url: http://127.0.0.1:9
hooks:
  - id: bomb
    event: pre_tool_use
    matcher: "^bomb$"
    timeout_ms: 5000
    handler:
      type: script
      source: "function handle(e) { var s = 'x'; for (var i = 0; i < 29; i++) { s += s; } return {decision: 'allow'} }"
  - id: spin
    event: pre_tool_use
    matcher: "^spin$"
    timeout_ms: 300
    handler:
      type: script
      source: "function handle(e) { for (;;) {} }"
`), "memory.yaml", os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	engine, err := buildEngine(cfg, specs.Hooks, quietLogger(), &services{recorder: newHookMetrics(reg, p.Audit)})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()

	start := time.Now()
	out := engine.Dispatch(ctx, &hooks.Event{Event: hooks.PreToolUse, EventID: "call-bomb", SessionID: "s1", ToolName: "bomb", ToolCallID: "call-bomb"})
	took := time.Since(start)
	if !out.Blocked() || out.HookID != "bomb" {
		t.Fatalf("bomb: %+v", out)
	}
	if out := engine.Dispatch(ctx, &hooks.Event{Event: hooks.PreToolUse, EventID: "call-spin", SessionID: "s1", ToolName: "spin", ToolCallID: "call-spin"}); !out.Blocked() {
		t.Fatalf("spin: %+v", out)
	}
	if err := p.Audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := p.Store.ListExecutions(ctx, store.ExecutionFilter{HookID: "bomb"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("bomb rows: %+v (%v)", rows, err)
	}
	r := rows[0]
	if r.Decision != "error" || !strings.HasPrefix(r.Error, "script memory budget exceeded") || !strings.Contains(r.Error, "budget of 16 MiB") {
		t.Errorf("bomb row: decision %q error %q, want error with the 16 MiB budget's reason", r.Decision, r.Error)
	}
	if r.Duration <= 0 || r.Duration > took {
		t.Errorf("bomb row duration %s, want the real duration (answered after %s)", r.Duration, took)
	}
	rows, err = p.Store.ListExecutions(ctx, store.ExecutionFilter{HookID: "spin"})
	if err != nil || len(rows) != 1 || rows[0].Decision != "timeout" || strings.Contains(rows[0].Error, "memory") {
		t.Errorf("spin rows: %+v (%v), want one timeout", rows, err)
	}

	over := specs.Hooks[:1]
	over[0].Handler.MaxMemory = "32MiB"
	if e, err := buildEngine(cfg, over, quietLogger(), &services{}); err == nil || !strings.Contains(err.Error(), "exceeds limits.script_max_memory (16 MiB)") {
		if e != nil {
			e.Close()
		}
		t.Fatalf("max_memory over the limit: %v, want a load error", err)
	}
}
