package store

import (
	"context"
	"testing"
	"time"
)

// TestLockSessionKeepsItsDeadlineWhileNoConnectionIsFree: the session
// read skips ctx's cancellation only while a reader connection is free; on
// the in-memory database (one connection) held by a transaction, a caller
// whose deadline passes gets its error, not an unbounded wait (found in
// review).
func TestLockSessionKeepsItsDeadlineWhileNoConnectionIsFree(t *testing.T) {
	st := openTest(t, Options{Driver: SQLite, Path: MemoryPath})
	b := st.b.(*sqliteBackend)
	tx, err := b.w.BeginTx(context.Background(), nil) // holds the only connection
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		l, err := st.LockSession(ctx, "s1")
		if err == nil {
			l.Release()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("LockSession succeeded while the only connection was held")
		}
	case <-time.After(2 * time.Second):
		tx.Rollback()
		<-done
		t.Fatal("LockSession with a 100ms deadline was still waiting for the connection 2s later")
	}
}
