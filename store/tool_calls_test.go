package store

import (
	"context"
	"testing"
	"time"
)

func TestToolCallsRecordedOnce(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		st := tg.open(t, Options{})
		ctx := context.Background()
		row := ToolCall{ID: "s1/call_1", Tenant: "acme", SessionID: "s1", Tool: "exec", ArgsHash: "h", ResultBytes: 42, Latency: 1500 * time.Millisecond, CreatedAt: time.Now()}
		if n, err := st.InsertToolCalls(ctx, []ToolCall{row, row}); err != nil || n != 1 {
			t.Fatalf("insert: %d %v", n, err)
		}
		unknown := row
		unknown.ID, unknown.Latency = "s1/call_2", -1
		st.InsertToolCalls(ctx, []ToolCall{unknown})
		rows, err := st.ListToolCalls(ctx, "s1")
		if err != nil || len(rows) != 2 {
			t.Fatalf("list: %+v %v", rows, err)
		}
		if rows[0].ResultBytes != 42 || rows[0].Latency != 1500*time.Millisecond || rows[0].Tenant != "acme" {
			t.Errorf("row %+v", rows[0])
		}
		if rows[1].Latency != -1 {
			t.Errorf("unknown latency read back as %s", rows[1].Latency)
		}
	})
}

func TestTenantReadOnlySwitch(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		st := tg.open(t, Options{})
		ctx := context.Background()
		if _, set, err := st.TenantReadOnly(ctx, "acme"); err != nil || set {
			t.Fatalf("fresh: set=%v %v", set, err)
		}
		on, off := true, false
		for _, v := range []*bool{&on, &off, &on} {
			if err := st.SetTenantReadOnly(ctx, "acme", v, "alice"); err != nil {
				t.Fatal(err)
			}
			if got, set, err := st.TenantReadOnly(ctx, "acme"); err != nil || !set || got != *v {
				t.Fatalf("after %v: %v %v %v", *v, got, set, err)
			}
		}
		if _, set, _ := st.TenantReadOnly(ctx, ""); set {
			t.Fatal("the organisation's switch was thrown by a tenant's")
		}
		st.SetTenantReadOnly(ctx, "acme", nil, "alice")
		if _, set, _ := st.TenantReadOnly(ctx, "acme"); set {
			t.Fatal("clearing did not clear")
		}
	})
}
