package app

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/store"
)

// hookgate's own records (a truncated stream, hooks.IncidentHookID) keep
// their hook id when a configuration is loaded again: the id is never
// configured, yet the records must stay findable by it.
func TestIncidentRecordsKeepTheirIDAcrossReloads(t *testing.T) {
	ctx := context.Background()
	cfg := auditConfig(t, "")
	reg := prometheus.NewRegistry()
	p, err := OpenPersistence(ctx, cfg, reg, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	engine := compileHooks(t, cfg.Hooks, newHookMetrics(reg, p.Audit))
	ev := &hooks.Event{Event: hooks.Stop, EventID: "ev-truncated", SessionID: "s-cut"}
	engine.RecordIncident(ev, "the upstream stream ended before it finished", errors.New("stream truncated: unexpected EOF"))
	if err := p.Audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 { // at start, then on a reload
		if err := p.HooksConfigured(ctx, engine.Hooks()); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := p.Store.ListExecutions(ctx, store.ExecutionFilter{HookID: hooks.IncidentHookID})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].SessionID != "s-cut" || rows[0].Decision != "error" || rows[0].Event != "stop" {
		t.Fatalf("want the one truncation row of s-cut under %s, got %+v", hooks.IncidentHookID, rows)
	}
}
