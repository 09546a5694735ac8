package hooks

import (
	"context"
	"slices"
	"testing"
	"time"
)

// An observing hook's rewrite is never applied; it is stripped, counted
// and recorded as the allow that took effect, not as a rewrite.
func TestObservingRewriteIsStrippedAndRecordedAsAllow(t *testing.T) {
	reg := newEngRegistry(t)
	mk := func(id string, trusted bool) Spec {
		s := engSpec(id, PostToolUse, "fixed", map[string]any{"result": map[string]any{"decision": "rewrite", "updatedResult": "rewritten by " + id}})
		s.Trusted = trusted
		if !trusted {
			s.Scope = "tenant:acme"
		}
		return s
	}
	same := engSpec("same", PostToolUse, "fixed", map[string]any{"result": map[string]any{"decision": "allow", "updatedResult": "the result"}})
	e, rec := engCompile(t, reg, []Spec{mk("tenant", false), mk("no-allow", true), same}, Options{})
	result := "the result"
	out := e.Dispatch(context.Background(), &Event{Event: PostToolUse, EventID: "ev-1", Tenant: "acme", ToolName: "read", ToolResult: &result})
	if out.Decision != Allow || out.ToolResult != nil {
		t.Fatalf("outcome %s %v: an observer's rewrite was applied", out.Decision, out.ToolResult)
	}
	for end := time.Now().Add(5 * time.Second); len(rec.executions()) < 3 && time.Now().Before(end); {
		time.Sleep(5 * time.Millisecond)
	}
	xs := rec.executions()
	if len(xs) != 3 {
		t.Fatalf("%d executions recorded, want 3", len(xs))
	}
	for _, x := range xs {
		if x.Decision != Allow || x.Applied != Allow {
			t.Errorf("%s recorded %s applied %s, want allow (the decision that took effect)", x.HookID, x.Decision, x.Applied)
		}
		want := []string{mutationToolResult}
		if x.HookID == "same" {
			want = nil // handing back the result unchanged is no rewrite
		}
		if !slices.Equal(x.Stripped, want) {
			t.Errorf("%s: stripped %v, want %v", x.HookID, x.Stripped, want)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.stripped["tenant"]) != 1 || len(rec.stripped["no-allow"]) != 1 || rec.stripped["same"] != nil {
		t.Fatalf("counted strips: %v", rec.stripped)
	}
}
