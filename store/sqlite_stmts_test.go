package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestStmtCacheSessions runs session round trips concurrently on a file
// and on an in-memory database (one connection for reads and writes,
// where preparing inside a transaction would wait for itself), and checks
// that the statements were prepared once and reused.
func TestStmtCacheSessions(t *testing.T) {
	for _, path := range []string{filepath.Join(t.TempDir(), "hookgate.db"), MemoryPath} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			st := openTest(t, Options{Driver: SQLite, Path: path})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			for g := range 8 {
				wg.Go(func() {
					for i := range 20 {
						id := fmt.Sprintf("s%d", (g+i)%5)
						l, err := st.LockSession(ctx, id)
						if err != nil {
							errs <- err
							return
						}
						if err := l.Save(ctx, []byte(fmt.Sprintf(`{"n":%d}`, i)), time.Now().Add(time.Hour)); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			b := st.b.(*sqliteBackend)
			for _, c := range []*stmtCache{b.rc, b.wc} {
				c.mu.RLock()
				n := len(c.m)
				c.mu.RUnlock()
				if n == 0 {
					t.Errorf("no statement cached on %p", c.db)
				}
			}
			l, err := st.LockSession(ctx, "s1")
			if err != nil || l.State == nil {
				t.Fatalf("state after the round trips: %v, %s", err, l.State)
			}
			l.Release()
		})
	}
}

func TestDataStatement(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT 1": true, "\n\tinsert INTO x": true, "UPDATE x": true, "delete from x": true,
		"CREATE TABLE x (a)": false, "PRAGMA x": false, "": false, "SEL": false,
	} {
		if got := dataStatement(q); got != want {
			t.Errorf("dataStatement(%q) = %v", q, got)
		}
	}
}
