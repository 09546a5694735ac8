package store

import (
	"context"
	"slices"
	"testing"
	"time"
)

func testExecution(hookID, eventID string) Execution {
	id := newExecutionID()
	return Execution{
		ID: id, HookID: hookID, SessionID: "s1", Event: "pre_tool_use",
		InputHash: "ab", Decision: "allow", HookVersion: "v1",
		Duration: 1500 * time.Microsecond, DedupKey: DedupKey(hookID, eventID),
		CreatedAt: time.Now(),
	}
}

func TestInsertExecutionsSkipsRedeliveries(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		st := tg.open(t, Options{})
		first := []Execution{testExecution("deny", "ev1"), testExecution("deny", "ev2"), testExecution("audit", "ev1")}
		n, err := st.InsertExecutions(ctx, first)
		if err != nil || n != 3 {
			t.Fatalf("inserted %d, %v", n, err)
		}
		// The same deliveries again (new row ids), in one batch with a new
		// one and a duplicate of it.
		again := []Execution{testExecution("deny", "ev1"), testExecution("deny", "ev2"), testExecution("deny", "ev3"), testExecution("deny", "ev3")}
		n, err = st.InsertExecutions(ctx, again)
		if err != nil || n != 1 {
			t.Fatalf("redelivery inserted %d, %v", n, err)
		}
		if c, _ := st.CountExecutions(ctx, ExecutionFilter{}); c != 4 {
			t.Fatalf("%d rows, want 4", c)
		}
	})
}

func TestDedupKeyIsUnambiguous(t *testing.T) {
	if DedupKey("a:b", "c") == DedupKey("a", "b:c") {
		t.Fatal("two pairs share a key")
	}
}

func TestListExecutionsRoundTripsAndFilters(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		st := tg.open(t, Options{})
		base := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		var xs []Execution
		for i, d := range []string{"allow", "block", "error", "allow"} {
			x := testExecution([]string{"h1", "h2"}[i%2], string(rune('a'+i)))
			x.SessionID = []string{"s1", "s2"}[i/2]
			x.Decision = d
			x.CreatedAt = base.Add(time.Duration(i) * time.Minute)
			xs = append(xs, x)
		}
		xs[2].Error = "boom"
		xs[2].ErrorDetail = []byte{1, 2, 3}
		xs[2].SideEffects = []string{"posted card", "wrote file"}
		if _, err := st.InsertExecutions(ctx, xs); err != nil {
			t.Fatal(err)
		}
		all, err := st.ListExecutions(ctx, ExecutionFilter{})
		if err != nil || len(all) != 4 {
			t.Fatalf("%d rows, %v", len(all), err)
		}
		if all[0].ID != xs[3].ID {
			t.Fatal("not newest first")
		}
		got := all[1]
		want := xs[2]
		if got.HookID != want.HookID || got.SessionID != "s2" || got.Decision != "error" || got.Error != "boom" ||
			string(got.ErrorDetail) != "\x01\x02\x03" || !slices.Equal(got.SideEffects, want.SideEffects) ||
			got.Duration != want.Duration || !got.CreatedAt.Equal(want.CreatedAt) || got.DedupKey != want.DedupKey ||
			got.HookVersion != "v1" || got.InputHash != "ab" {
			t.Fatalf("round trip:\ngot  %+v\nwant %+v", got, want)
		}
		for _, tc := range []struct {
			f    ExecutionFilter
			want int
		}{
			{ExecutionFilter{SessionID: "s1"}, 2},
			{ExecutionFilter{HookID: "h1"}, 2},
			{ExecutionFilter{Decision: "allow"}, 2},
			{ExecutionFilter{HookID: "h1", Decision: "allow"}, 1},
			{ExecutionFilter{Since: base.Add(2 * time.Minute)}, 2},
			{ExecutionFilter{Limit: 3}, 3},
		} {
			rows, err := st.ListExecutions(ctx, tc.f)
			if err != nil || len(rows) != tc.want {
				t.Errorf("%+v: %d rows, %v; want %d", tc.f, len(rows), err, tc.want)
			}
		}
	})
}

func TestDetachRemovedHooksKeepsTheRows(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		st := tg.open(t, Options{})
		if _, err := st.InsertExecutions(ctx, []Execution{
			testExecution("kept", "e1"), testExecution("removed", "e1"), testExecution("removed", "e2"),
		}); err != nil {
			t.Fatal(err)
		}
		n, err := st.DetachRemovedHooks(ctx, []string{"kept", "other"})
		if err != nil || n != 2 {
			t.Fatalf("detached %d, %v", n, err)
		}
		rows, _ := st.ListExecutions(ctx, ExecutionFilter{})
		if len(rows) != 3 {
			t.Fatalf("%d rows left, want 3", len(rows))
		}
		var kept, null int
		for _, r := range rows {
			switch r.HookID {
			case "kept":
				kept++
			case "":
				null++
			}
		}
		if kept != 1 || null != 2 {
			t.Fatalf("kept %d, null %d", kept, null)
		}
		// A redelivery of a removed hook's execution is still a duplicate.
		if n, _ := st.InsertExecutions(ctx, []Execution{testExecution("removed", "e1")}); n != 0 {
			t.Fatal("redelivery after detach inserted")
		}
		// No hooks configured: every row detached.
		if n, err := st.DetachRemovedHooks(ctx, nil); err != nil || n != 1 {
			t.Fatalf("detach all: %d, %v", n, err)
		}
	})
}
