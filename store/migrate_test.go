package store

import (
	"context"
	"fmt"
	"testing"
)

func TestMigrationsAreIdempotent(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		st := tg.open(t, Options{})
		if v, err := st.SchemaVersion(ctx); err != nil || v != migrations[len(migrations)-1].version {
			t.Fatalf("schema version %d, %v", v, err)
		}
		if _, err := st.InsertExecutions(ctx, []Execution{testExecution("h", "e1")}); err != nil {
			t.Fatal(err)
		}
		// Again on the open store, then as a second instance: nothing is
		// applied twice and nothing is lost.
		if err := st.migrate(ctx); err != nil {
			t.Fatal(err)
		}
		st2 := tg.open(t, Options{})
		var versions int
		if err := st2.b.reader().queryRow(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&versions); err != nil {
			t.Fatal(err)
		}
		if versions != len(migrations) {
			t.Fatalf("%d versions recorded, want %d", versions, len(migrations))
		}
		if n, err := st2.CountExecutions(ctx, ExecutionFilter{}); err != nil || n != 1 {
			t.Fatalf("rows after re-migration: %d, %v", n, err)
		}
		for _, table := range []string{"hook_executions", "confirmation_requests", "sessions"} {
			var n int
			if err := st2.b.reader().queryRow(ctx, `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil {
				t.Fatalf("table %s: %v", table, err)
			}
		}
	})
}

func TestMigrationsRunConcurrently(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		// Instances starting together on a fresh database.
		opts := tg.fill(t, Options{Logger: quietLog()})
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				st, err := Open(context.Background(), opts)
				if err == nil {
					var v int
					if v, err = st.SchemaVersion(context.Background()); err == nil && v != migrations[len(migrations)-1].version {
						err = fmt.Errorf("schema version %d", v)
					}
					st.Close()
				}
				errs <- err
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
	})
}
