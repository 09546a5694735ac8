package store

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// A revocation made through one instance is seen by another on the same
// database; an expired one is purged by the next revocation.
func TestConsoleRevocations(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		var now atomic.Int64
		now.Store(time.Now().UnixNano())
		clock := func() time.Time { return time.Unix(0, now.Load()) }
		a := tg.open(t, Options{Now: clock})
		b := tg.open(t, Options{Now: clock})
		if got, err := b.ConsoleSessionRevoked(ctx, "s-1"); err != nil || got {
			t.Fatalf("before any logout: %v, %v", got, err)
		}
		if err := a.RevokeConsoleSession(ctx, "s-1", "alice", clock().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := a.RevokeConsoleSession(ctx, "s-1", "alice", clock().Add(time.Minute)); err != nil {
			t.Fatalf("revoked twice: %v", err)
		}
		if got, err := b.ConsoleSessionRevoked(ctx, "s-1"); err != nil || !got {
			t.Fatalf("the other instance after logout: %v, %v", got, err)
		}
		if got, _ := b.ConsoleSessionRevoked(ctx, "s-2"); got {
			t.Fatal("another session is revoked too")
		}
		if err := a.RevokeConsoleSession(ctx, "", "alice", clock()); err == nil {
			t.Fatal("an empty id was revoked")
		}
		// Past the longer expiry the row goes with the next revocation.
		now.Add(int64(2 * time.Hour))
		if err := b.RevokeConsoleSession(ctx, "s-3", "bob", clock().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if n, err := a.CountConsoleRevocations(ctx); err != nil || n != 1 {
			t.Fatalf("%d revocations kept after expiry, want 1 (%v)", n, err)
		}
	})
}

// How long the check each console request makes takes, with 1000
// revocations kept, on SQLite and (with HOOKGATE_PG_DSN) PostgreSQL:
// go test ./store -run '^$' -bench ConsoleSessionRevoked
func BenchmarkConsoleSessionRevoked(b *testing.B) {
	dbs := map[string]Options{"sqlite": {Driver: SQLite, Path: filepath.Join(b.TempDir(), "hookgate.db")}}
	if dsn := os.Getenv(pgDSNEnv); dsn != "" {
		dbs["postgres"] = Options{Driver: Postgres, DSN: pgSchema(b, dsn)}
	}
	for name, opts := range dbs {
		b.Run(name, func(b *testing.B) {
			opts.Logger = quietLog()
			st, err := Open(context.Background(), opts)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			ctx := context.Background()
			for i := range 1000 {
				if err := st.RevokeConsoleSession(ctx, "s-"+strconv.Itoa(i), "bench", time.Now().Add(time.Hour)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := st.ConsoleSessionRevoked(ctx, "live-"+strconv.Itoa(i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
