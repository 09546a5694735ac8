package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStmtCacheKeepsAuditBatchesOut: every audit batch size is its own
// multi-row INSERT text; they stay out of the statement cache, so a
// burst of audit writes of many sizes neither fills it with one-off
// statements nor keeps a statement met afterwards (a tenant setting) from
// being cached (found in review).
func TestStmtCacheKeepsAuditBatchesOut(t *testing.T) {
	st := openTest(t, Options{Driver: SQLite, Path: filepath.Join(t.TempDir(), "hookgate.db")})
	ctx := context.Background()
	id := 0
	for size := 1; size <= maxCachedStmts+2; size++ {
		xs := make([]Execution, size)
		for i := range xs {
			id++
			xs[i] = Execution{ID: fmt.Sprintf("x%d", id), HookID: "h", SessionID: "s", Event: "pre_tool_use",
				InputHash: "00", Decision: "allow", DedupKey: fmt.Sprintf("d%d", id), CreatedAt: time.Now()}
		}
		if _, err := st.InsertExecutions(ctx, xs); err != nil {
			t.Fatal(err)
		}
	}
	on := true
	if err := st.SetTenantReadOnly(ctx, "t1", &on, "op"); err != nil {
		t.Fatal(err)
	}
	if err := st.SetTenantReadOnly(ctx, "t1", &on, "op"); err != nil {
		t.Fatal(err)
	}
	b := st.b.(*sqliteBackend)
	b.wc.mu.RLock()
	defer b.wc.mu.RUnlock()
	inserts, tenant := 0, false
	for q := range b.wc.m {
		if strings.HasPrefix(q, "INSERT INTO hook_executions") {
			inserts++
		}
		if strings.HasPrefix(q, "INSERT INTO tenant_settings") {
			tenant = true
		}
	}
	t.Logf("writer cache: %d entries, %d of them hook_executions INSERTs of distinct batch sizes", len(b.wc.m), inserts)
	if inserts > 1 {
		t.Fatalf("%d multi-row audit INSERTs were cached", inserts)
	}
	if !tenant {
		t.Fatalf("the writer's statement cache holds %d one-off audit INSERTs (of %d entries); the tenant-setting statement, run twice after them, was never cached", inserts, len(b.wc.m))
	}
}
