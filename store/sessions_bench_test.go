package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkLockSession is a session lookup of session memory: lock, read
// the saved state, release without a change.
func BenchmarkLockSession(b *testing.B) {
	st, err := Open(context.Background(), Options{Driver: SQLite, Path: filepath.Join(b.TempDir(), "hookgate.db"), Logger: quietLog()})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	l, err := st.LockSession(ctx, "s")
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Save(ctx, []byte(`{"started":true,"context":"You work for Example Corp."}`), time.Now().Add(time.Hour)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		l, err := st.LockSession(ctx, "s")
		if err != nil || l.State == nil {
			b.Fatal(err)
		}
		l.Release()
	}
}
