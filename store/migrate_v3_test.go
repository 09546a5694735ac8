package store

import (
	"context"
	"reflect"
	"testing"
	"time"
)

// TestMigration3AddsToolTenantAgentReason opens a database at version 2
// with a row in it, then opens it with every migration: the row stays,
// with empty tool, tenant, agent and reason, the new columns take new
// rows, and the grouping indexes exist.
func TestMigration3AddsToolTenantAgentReason(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		all := migrations
		var upTo2 []migration
		for _, m := range all {
			if m.version <= 2 {
				upTo2 = append(upTo2, m)
			}
		}
		migrations = upTo2
		old := tg.open(t, Options{})
		migrations = all
		if v, err := old.SchemaVersion(ctx); err != nil || v != 2 {
			t.Fatalf("schema version %d, %v; want 2", v, err)
		}
		err := old.write(ctx, "old row", func(q querier) error {
			_, err := q.exec(ctx, `INSERT INTO hook_executions (id, hook_id, session_id, event, input_hash, decision, duration_ms, dedup_key, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, "old-1", "deny", "s1", "pre_tool_use", "ab", "block", 1.5, "k-old", old.at(time.Now()))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		old.Close()

		st := tg.open(t, Options{})
		if v, err := st.SchemaVersion(ctx); err != nil || v < 3 {
			t.Fatalf("schema version %d, %v; want at least 3", v, err)
		}
		xs, err := st.ListExecutions(ctx, ExecutionFilter{})
		if err != nil || len(xs) != 1 {
			t.Fatalf("rows %v, %v", xs, err)
		}
		if x := xs[0]; x.ID != "old-1" || x.Decision != "block" || x.Tool != "" || x.Tenant != "" || x.Agent != "" || x.Reason != "" {
			t.Errorf("old row after migration: %+v", x)
		}

		mk := func(hook, tool, tenant, agent, decision, reason string) Execution {
			x := testExecution(hook, newExecutionID())
			x.Tool, x.Tenant, x.Agent, x.Decision, x.Reason = tool, tenant, agent, decision, reason
			return x
		}
		rows := []Execution{
			mk("dry", "Bash", "acme", "coder", "would_block", "recursive delete"),
			mk("dry", "Bash", "acme", "coder", "would_block", "recursive delete"),
			mk("dry", "Bash", "beta", "coder", "would_allow", ""),
			mk("dry", "Write", "acme", "writer", "would_rewrite", "path moved"),
			mk("deny", "Bash", "acme", "coder", "block", "no"),
		}
		if n, err := st.InsertExecutions(ctx, rows); err != nil || n != int64(len(rows)) {
			t.Fatalf("inserted %d, %v", n, err)
		}
		got, err := st.ListExecutions(ctx, ExecutionFilter{Tool: "Write"})
		if err != nil || len(got) != 1 || got[0].Tenant != "acme" || got[0].Agent != "writer" || got[0].Reason != "path moved" {
			t.Fatalf("tool filter: %+v, %v", got, err)
		}
		if n, err := st.CountExecutions(ctx, ExecutionFilter{Tenant: "acme", Agent: "coder"}); err != nil || n != 3 {
			t.Errorf("tenant+agent filter: %d, %v; want 3", n, err)
		}
		groups, err := st.GroupExecutions(ctx, ExecutionFilter{DryRun: true}, []string{"hook", "tool", "decision"})
		if err != nil {
			t.Fatal(err)
		}
		var keys [][]string
		var counts []int64
		for _, g := range groups {
			keys, counts = append(keys, g.Keys), append(counts, g.Count)
		}
		// Largest first, then by key.
		wantKeys := [][]string{{"dry", "Bash", "would_block"}, {"dry", "Bash", "would_allow"}, {"dry", "Write", "would_rewrite"}}
		if !reflect.DeepEqual(keys, wantKeys) || !reflect.DeepEqual(counts, []int64{2, 1, 1}) {
			t.Errorf("groups %v counts %v; want %v [2 1 1]", keys, counts, wantKeys)
		}
		if groups[0].Reason != "recursive delete" {
			t.Errorf("group reason %q", groups[0].Reason)
		}
		if _, err := st.GroupExecutions(ctx, ExecutionFilter{}, []string{"arguments"}); err == nil {
			t.Error("an unknown group key was accepted")
		}

		for _, idx := range []string{"hook_executions_hook_tool", "hook_executions_tool", "hook_executions_tenant", "hook_executions_agent"} {
			q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = $1`
			if st.driver == Postgres {
				q = `SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1`
			}
			var n int
			if err := st.b.reader().queryRow(ctx, q, idx).Scan(&n); err != nil || n != 1 {
				t.Errorf("index %s: %d, %v", idx, n, err)
			}
		}
	})
}
