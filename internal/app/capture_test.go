package app

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/store"
)

// What audit.capture_events keeps of a dispatch: the event as hooks saw it
// without the request headers exposed in metadata, the verdict and each
// hook's part; bypassed events are not kept.
func TestCaptureKeepsTheEventAndVerdictWithoutHeaders(t *testing.T) {
	ctx := context.Background()
	cfg := auditConfig(t, "  capture_events: true\n")
	cfg.Interception.MetadataHeaders = []string{"X-Team-Token"}
	p, err := OpenPersistence(ctx, cfg, prometheus.NewRegistry(), quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	c := newEventCapture(cfg, p.Audit)
	e, err := hooks.Compile(cfg.Hooks, hooks.Deps{Logger: quietLogger()}, hooks.Options{Capture: c})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	md := map[string]any{"route": "/v1/chat/completions", "X-Team-Token": "team-token-CANARY"}
	e.Dispatch(ctx, &hooks.Event{Event: hooks.PreToolUse, EventID: "e1", SessionID: "s1", Tenant: "acme", Agent: "codex",
		ToolName: "exec", ToolInput: map[string]any{"command": "rm -rf /"}, Metadata: md})
	e.Dispatch(ctx, &hooks.Event{Event: hooks.PreToolUse, EventID: "e2", SessionID: "s1", Bypass: true,
		ToolName: "exec", ToolInput: map[string]any{"command": "rm -rf /"}})
	if err := p.Audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := p.Store.ListCaptures(ctx, store.CaptureFilter{})
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %d, %v; want the one not bypassed", len(rows), err)
	}
	r := rows[0]
	if r.Tenant != "acme" || r.Agent != "codex" || r.Tool != "exec" || r.Decision != "block" || r.DecidedBy != "block-rm" {
		t.Fatalf("row: %+v", r)
	}
	key, _ := store.ParseAuditKey(testAuditKey)
	plain, err := key.OpenCapture(r.ID, r.Sealed)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(plain), "CANARY") {
		t.Fatalf("a request header was captured: %s", plain)
	}
	var rec CapturedRecord
	if err := json.Unmarshal(plain, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Event.ToolInput["command"] != "rm -rf /" || rec.Event.Metadata["route"] != "/v1/chat/completions" || rec.Event.EventID != "e1" {
		t.Fatalf("event: %+v", rec.Event)
	}
	if rec.Outcome.Decision != hooks.Block || rec.Outcome.HookID != "block-rm" || rec.Outcome.Reason != "no rm" {
		t.Fatalf("outcome: %+v", rec.Outcome)
	}
	var ids []string
	for _, h := range rec.Outcome.Hooks {
		ids = append(ids, h.ID+"="+string(h.Decision))
	}
	if strings.Join(ids, ",") != "allow-all=allow,block-rm=block" {
		t.Fatalf("hooks: %v", ids)
	}
	if md["X-Team-Token"] != "team-token-CANARY" {
		t.Fatal("the capture modified the event's metadata")
	}
}

// The purge job deletes captured events once capture_ttl has passed, and
// leaves the others.
func TestCapturePurgerDeletesExpiredEvents(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	clock := func() time.Time { return now }
	st, err := store.Open(ctx, store.Options{Path: filepath.Join(t.TempDir(), "hookgate.db"), Now: clock, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key, _ := store.ParseAuditKey(testAuditKey)
	w, err := store.NewAuditWriter(st, store.AuditOptions{Key: key, CaptureTTL: time.Hour, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	w.Record(store.AuditEntry{At: now.Add(-2 * time.Hour), Capture: &store.CaptureRecord{SessionID: "old", Event: "pre_tool_use", Decision: "allow", Record: map[string]any{}}})
	w.Record(store.AuditEntry{At: now, Capture: &store.CaptureRecord{SessionID: "new", Event: "pre_tool_use", Decision: "allow", Record: map[string]any{}}})
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := st.CountCaptures(ctx); err != nil || n != 2 {
		t.Fatalf("%d captures kept, %v", n, err)
	}
	p := startCapturePurger(st, 10*time.Millisecond, quietLogger())
	defer p.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := st.CountCaptures(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d captures left after 30s of purging, want 1", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	rows, err := st.ListCaptures(ctx, store.CaptureFilter{})
	if err != nil || len(rows) != 1 || rows[0].SessionID != "new" {
		t.Fatalf("left: %+v, %v", rows, err)
	}
}
