package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/approvals"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/hooks/builtin"
	"github.com/hookgate/hookgate/store"
)

// A call held for approval whose client gave up, then resent (the same
// event), re-attaches to the pending question; a person approves it and
// the call goes on. Both runs of the hook are on record, the error of the
// attempt whose client left and the allow that took effect, each in its
// own row.
func TestAuditKeepsTheDecisionOfAReattachedApproval(t *testing.T) {
	ctx := context.Background()
	cfg := auditConfig(t, "")
	p, err := OpenPersistence(ctx, cfg, prometheus.NewRegistry(), quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	gate := approvals.New(p.Store, approvals.Options{Poll: 20 * time.Millisecond, Logger: quietLogger()})
	specs := []hooks.Spec{{
		ID: "approve-pay", Event: hooks.PreToolUse, Trusted: true,
		Handler: hooks.HandlerSpec{Type: "builtin", Name: "approval", With: map[string]any{"timeout_s": 60}},
	}}
	reg := hooks.NewBuiltins()
	if err := builtin.Register(reg); err != nil {
		t.Fatal(err)
	}
	engine, err := hooks.Compile(specs, hooks.Deps{Logger: quietLogger(), Approver: gate}, hooks.Options{Recorder: p.Audit, Builtins: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	if err := p.HooksConfigured(ctx, engine.Hooks()); err != nil {
		t.Fatal(err)
	}
	newEvent := func() *hooks.Event {
		return &hooks.Event{Event: hooks.PreToolUse, EventID: "ev-pay-1", SessionID: "s1",
			ToolName: "pay", ToolCallID: "call_1", ToolInput: map[string]any{"amount": 10}}
	}
	pending := func() store.Confirmation {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			rows, err := gate.List(ctx, store.Pending)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) == 1 {
				return rows[0]
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatal("no pending question")
		return store.Confirmation{}
	}

	// The client gives up while the call is held.
	gone, leave := context.WithCancel(ctx)
	first := make(chan hooks.Outcome, 1)
	go func() { first <- engine.Dispatch(gone, newEvent()) }()
	q := pending()
	leave()
	if out := <-first; out.Decision == hooks.Allow {
		t.Fatalf("the abandoned attempt was allowed: %+v", out)
	}

	// It resends; the resent call re-attaches and is approved.
	second := make(chan hooks.Outcome, 1)
	go func() { second <- engine.Dispatch(ctx, newEvent()) }()
	if again := pending(); again.ID != q.ID {
		t.Fatalf("the resent call asked question %s, not %s", again.ID, q.ID)
	}
	time.Sleep(50 * time.Millisecond) // the resent call is waiting on the question
	if _, err := gate.Decide(ctx, q.ID, true, "alice"); err != nil {
		t.Fatal(err)
	}
	if out := <-second; out.Decision != hooks.Allow {
		t.Fatalf("the approved attempt: %+v", out)
	}

	if err := p.Audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := p.Store.ListExecutions(ctx, store.ExecutionFilter{HookID: "approve-pay"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2 (the abandoned attempt and the approved one): %+v", len(rows), rows)
	}
	byDecision := map[string]store.Execution{}
	for _, r := range rows {
		byDecision[r.Decision] = r
	}
	abandoned, approved := byDecision["error"], byDecision["allow"]
	if abandoned.ID == "" || !strings.HasSuffix(abandoned.Error, context.Canceled.Error()) {
		t.Fatalf("no error row of the abandoned attempt: %+v", rows)
	}
	if approved.ID == "" || approved.Error != "" {
		t.Fatalf("no allow row of the approved attempt: %+v", rows)
	}
	if approved.CreatedAt.Before(abandoned.CreatedAt) {
		t.Fatalf("the allow (%v) is recorded before the error (%v)", approved.CreatedAt, abandoned.CreatedAt)
	}

	// A third delivery of the same event is a run of its own too.
	if out := engine.Dispatch(ctx, newEvent()); out.Decision != hooks.Allow {
		t.Fatalf("the honoured answer: %+v", out)
	}
	if err := p.Audit.Flush(ctx); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if n, _ := p.Store.CountExecutions(ctx, store.ExecutionFilter{HookID: "approve-pay"}); n != 3 {
		t.Fatalf("%d rows after a third delivery, want 3", n)
	}
}
