package app

import (
	"context"
	"testing"
	"time"

	"github.com/hookgate/hookgate/approvals"
	"github.com/hookgate/hookgate/store"
)

func TestApprovalDeskListsEveryStatusForAll(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Path: store.MemoryPath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	exp := time.Now().Add(time.Hour)
	first, _, err := st.CreateConfirmation(ctx, store.NewConfirmation{Tool: "pay", SessionID: "s1", ArgsHash: "h1", Payload: `{}`, ExpiresAt: exp})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.CreateConfirmation(ctx, store.NewConfirmation{Tool: "pay", SessionID: "s2", ArgsHash: "h2", Payload: `{}`, ExpiresAt: exp}); err != nil {
		t.Fatal(err)
	}
	desk := approvalDesk{approvals.New(st, approvals.Options{})}
	if _, _, err := desk.Decide(ctx, first.ID, true, "tester", "", nil); err != nil {
		t.Fatal(err)
	}
	count := func(status string) int {
		t.Helper()
		v, err := desk.List(ctx, status, nil)
		if err != nil {
			t.Fatalf("list %q: %v", status, err)
		}
		return len(v.(map[string]any)["approvals"].([]map[string]any))
	}
	for status, want := range map[string]int{"all": 2, "": 2, "pending": 1, "approved": 1, "rejected": 0} {
		if got := count(status); got != want {
			t.Errorf("status=%q: %d questions, want %d", status, got, want)
		}
	}
}
