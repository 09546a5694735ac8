package app

import (
	"context"
	"testing"
	"time"

	"github.com/hookgate/hookgate/config"
)

// BenchmarkStoreMemoryLock is what session memory costs a request of a
// known session on SQLite when nothing changes: Lock (the session's lock
// and its saved state read) and Unlock (no write).
func BenchmarkStoreMemoryLock(b *testing.B) {
	ctx := context.Background()
	cfg := &config.Config{BaseDir: b.TempDir(), Store: config.Store{Driver: "sqlite", Path: "s.db"}}
	st, err := OpenStore(ctx, cfg, quietLogger())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	m := NewStoreMemory(st, time.Hour, quietLogger())
	defer m.Close()
	s := mustLock(b, m, "fp-0123456789abcdef01234567")
	s.Started, s.Context = true, "You work for Example Corp. Production is read-only this week; never deploy."
	m.Unlock(s)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s := mustLock(b, m, "fp-0123456789abcdef01234567")
		if !s.Started {
			b.Fatal("session state lost")
		}
		m.Unlock(s)
	}
}
