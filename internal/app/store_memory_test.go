package app

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/internal/testenv"
	"github.com/hookgate/hookgate/store"
)

func TestStoreMemorySurvivesRestart(t *testing.T) {
	ctx := context.Background()
	cfg := &config.Config{BaseDir: t.TempDir(), Store: config.Store{Driver: "sqlite", Path: "s.db"}}
	st, err := OpenStore(ctx, cfg, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	m := NewStoreMemory(st, time.Hour, quietLogger())
	s := mustLock(t, m, "sess")
	if s.Started || len(s.Prompts) != 0 {
		t.Fatalf("new session not empty: %+v", s)
	}
	rewritten := "[truncated]"
	s.Started, s.Context, s.SubagentStarted = true, "house rules", true
	s.Prompts["u0"] = "prompt context"
	s.Results["call-1"] = &rewritten
	s.Results["call-2"] = nil // fired, not rewritten
	m.Unlock(s)
	m.Close()
	st.Close()

	// A new process on the same file.
	st, err = OpenStore(ctx, cfg, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m = NewStoreMemory(st, time.Hour, quietLogger())
	defer m.Close()
	s = mustLock(t, m, "sess")
	defer m.Unlock(s)
	r1 := s.Results["call-1"]
	_, fired2 := s.Results["call-2"]
	if !s.Started || s.Context != "house rules" || !s.SubagentStarted || s.Prompts["u0"] != "prompt context" ||
		r1 == nil || *r1 != rewritten || !fired2 || s.Results["call-2"] != nil {
		t.Fatalf("after restart: %+v", s)
	}
}

func TestStoreMemorySharedBetweenInstancesOnPostgres(t *testing.T) {
	dsn := testenv.Postgres(t)
	ctx := context.Background()
	cfg := &config.Config{Store: config.Store{Driver: "postgres", DSN: dsn}}
	a, err := OpenStore(ctx, cfg, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenStore(ctx, cfg, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ma, mb := NewStoreMemory(a, time.Hour, quietLogger()), NewStoreMemory(b, time.Hour, quietLogger())
	defer ma.Close()
	defer mb.Close()
	id := "shared-" + time.Now().Format(time.RFC3339Nano)
	s := mustLock(t, ma, id)
	s.Started, s.Context = true, "from instance a"
	ma.Unlock(s)
	s = mustLock(t, mb, id)
	defer mb.Unlock(s)
	if !s.Started || s.Context != "from instance a" {
		t.Fatalf("instance b sees %+v", s)
	}
}

// A store that does not answer fails Lock, and a save that does not land
// fails Unlock: the session is not kept anywhere else, where it would
// never be written back.
func TestStoreMemoryFailsWhenTheStoreIsDown(t *testing.T) {
	st, err := store.Open(context.Background(), store.Options{Path: filepath.Join(t.TempDir(), "x.db"), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	m := NewStoreMemory(st, time.Hour, quietLogger())
	defer m.Close()
	s := mustLock(t, m, "s")
	st.Close()
	s.Started = true
	if err := m.Unlock(s); err == nil {
		t.Fatal("a save to a closed store succeeded")
	}
	if s, err := m.Lock("s"); err == nil || s != nil {
		t.Fatalf("Lock on a closed store: %v, %v", s, err)
	}
}

// mustLock locks a session of a store that answers.
func mustLock(t testing.TB, m *StoreMemory, id string) *interceptors.Session {
	t.Helper()
	s, err := m.Lock(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStoreMemoryUnchangedNotSaved: a request that changes nothing in its
// session does not write it (the baseline is the saved text on SQLite).
func TestStoreMemoryUnchangedNotSaved(t *testing.T) {
	ctx := context.Background()
	cfg := &config.Config{BaseDir: t.TempDir(), Store: config.Store{Driver: "sqlite", Path: "s.db"}}
	st, err := OpenStore(ctx, cfg, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := NewStoreMemory(st, time.Hour, quietLogger())
	defer m.Close()
	expiry := func() time.Time {
		l, err := st.LockSession(ctx, "sess")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Release()
		return l.ExpiresAt
	}
	s := mustLock(t, m, "sess")
	s.Started, s.Context = true, "house rules"
	s.Prompts["0:ab"] = ""
	m.Unlock(s)
	saved := expiry()
	time.Sleep(5 * time.Millisecond)
	s = mustLock(t, m, "sess")
	m.Unlock(s)
	if got := expiry(); !got.Equal(saved) {
		t.Fatalf("unchanged session saved again: expiry %v, was %v", got, saved)
	}
	s = mustLock(t, m, "sess")
	s.Prompts["1:cd"] = "more"
	m.Unlock(s)
	if got := expiry(); !got.After(saved) {
		t.Fatalf("changed session not saved: expiry %v, was %v", got, saved)
	}
}
