package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/store"
)

// gatedPolicy is an http policy server that answers allow once its gate
// is open, and counts the requests it got.
func gatedPolicy(t *testing.T) (url string, hits *atomic.Int64, open func()) {
	t.Helper()
	gate := make(chan struct{})
	hits = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		hits.Add(1)
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"decision":"allow"}`)
	}))
	var closed atomic.Bool
	open = func() {
		if closed.CompareAndSwap(false, true) {
			close(gate)
		}
	}
	t.Cleanup(func() { open(); srv.Close() })
	return srv.URL, hits, open
}

// A dry run the observer pool drops is on record: a dry_run_dropped row
// with its hook, event, tool, tenant, agent and session, and no input
// (the hash of none), written by the real audit writer to a real SQLite store; the
// dispatch never waits for it, and the metric counts it too.
func TestDroppedDryRunIsAudited(t *testing.T) {
	ctx := context.Background()
	policy, hits, open := gatedPolicy(t)
	doc := "upstreams: [{name: mock, base_url: \"http://127.0.0.1:9\"}]\n" +
		"hooks:\n  - id: dry-gate\n    event: pre_tool_use\n    dry_run: true\n    timeout_ms: 60000\n" +
		"    handler: {type: http, url: \"" + policy + "/verdict\"}\n"
	cfg, err := config.Parse([]byte(doc), "t.yaml", os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	cfg.BaseDir = t.TempDir()
	reg := prometheus.NewRegistry()
	p, err := OpenPersistence(ctx, cfg, reg, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	metrics := newHookMetrics(reg, p.Audit)
	engine, err := hooks.Compile(cfg.Hooks, hooks.Deps{Logger: quietLogger()},
		hooks.Options{Recorder: metrics, ObserverWorkers: 1, ObserverQueue: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close() })

	dispatch := func(i int) {
		t.Helper()
		ev := &hooks.Event{Event: hooks.PreToolUse, EventID: fmt.Sprint("call-", i), SessionID: "s1", Tenant: "acme", Agent: "coder",
			ToolName: "exec", ToolCallID: fmt.Sprint("call-", i), ToolInput: map[string]any{"command": "rm -rf /srv/secret-path"}}
		start := time.Now()
		if out := engine.Dispatch(ctx, ev); out.Decision != hooks.Allow {
			t.Fatalf("outcome %+v", out)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Fatalf("dispatch %d waited %v: a dry run held the request", i, d)
		}
	}
	dispatch(0)
	for deadline := time.Now().Add(30 * time.Second); hits.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first dry run never reached its policy server")
		}
	}
	// One runs (held by the gate), one waits in the queue, three drop.
	for i := 1; i <= 4; i++ {
		dispatch(i)
	}
	open()
	if err := p.Audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	dropped, err := p.Store.ListExecutions(ctx, store.ExecutionFilter{Decision: store.DecisionDryRunDropped})
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 3 {
		t.Fatalf("%d dry_run_dropped rows, want 3: %+v", len(dropped), dropped)
	}
	noInput, _ := store.InputHash(nil)
	for _, r := range dropped {
		if r.HookID != "dry-gate" || r.Event != "pre_tool_use" || r.Tool != "exec" || r.Tenant != "acme" || r.Agent != "coder" ||
			r.SessionID != "s1" || r.InputHash != noInput || strings.Contains(fmt.Sprintf("%+v", r), "secret-path") {
			t.Errorf("row %+v", r)
		}
	}
	if n := testutil.ToFloat64(metrics.dryDropped.WithLabelValues("dry-gate", "pre_tool_use")); n != 3 {
		t.Errorf("hookgate_dry_run_dropped_total %v, want 3", n)
	}
	// The dry-run filter (the report's, the console's) keeps them beside
	// the would-decisions of the two runs that happened.
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := p.Store.CountExecutions(ctx, store.ExecutionFilter{DryRun: true, HookID: "dry-gate"})
		if err != nil {
			t.Fatal(err)
		}
		if n == 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d dry-run rows, want 5 (2 run, 3 dropped)", n)
		}
		time.Sleep(20 * time.Millisecond)
		if err := p.Audit.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// With the audit queue full as well, recording a drop does not wait, even
// under audit.on_full: block with an hour's max_wait: the metric is then
// the only record.
func TestDroppedDryRunNeverWaitsForTheAuditQueue(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Path: store.MemoryPath})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	w, err := store.NewAuditWriter(st, store.AuditOptions{OnFull: store.OnFullBlock, QueueSize: 1, MaxWait: time.Hour, Registerer: reg, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_ = w.Close(cctx)
	}()
	// The store is down: the writer takes the first record and retries
	// it; the second fills the queue.
	_ = st.Close()
	w.Record(store.AuditEntry{HookID: "h", Event: "pre_tool_use", EventID: "e0", Decision: "allow"})
	for deadline := time.Now().Add(30 * time.Second); unlabelledCounter(t, reg, "hookgate_audit_write_errors_total") == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the writer never tried the first record")
		}
	}
	w.Record(store.AuditEntry{HookID: "h", Event: "pre_tool_use", EventID: "e1", Decision: "allow"})
	if d := unlabelledGauge(t, reg, "hookgate_audit_queue_depth"); d != 1 {
		t.Fatalf("hookgate_audit_queue_depth %v, want 1 (full)", d)
	}
	rec := &AuditRecorder{w: w}
	done := make(chan struct{})
	go func() {
		rec.DryRunDropped(&hooks.Event{Event: hooks.PreToolUse, EventID: "e2", ToolName: "exec"}, "dry-gate")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("recording a dropped dry run waited for room in a full audit queue")
	}
	if n := counterValue(t, reg, "hookgate_audit_records_dropped_total", "queue_full"); n != 1 {
		t.Errorf("hookgate_audit_records_dropped_total{reason=queue_full} %v, want 1", n)
	}
}

// unlabelledCounter reads an unlabelled counter from reg.
func unlabelledCounter(t *testing.T, reg *prometheus.Registry, name string) float64 {
	return unlabelledMetric(t, reg, name).GetCounter().GetValue()
}

// unlabelledGauge reads an unlabelled gauge from reg.
func unlabelledGauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	return unlabelledMetric(t, reg, name).GetGauge().GetValue()
}

// unlabelledMetric finds an unlabelled metric in reg; a metric not yet
// reported reads as zero.
func unlabelledMetric(t *testing.T, reg *prometheus.Registry, name string) *dto.Metric {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) > 0 {
			return mf.GetMetric()[0]
		}
	}
	return &dto.Metric{}
}

// counterValue reads one labelled counter from reg.
func counterValue(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetValue() == label {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
