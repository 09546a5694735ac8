package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/testenv"
)

// changes collects what a store's watchers hear.
func changes(t *testing.T, st *Store) chan Change {
	t.Helper()
	ch := make(chan Change, 64)
	cancel := st.Watch(func(c Change) {
		select {
		case ch <- c:
		default:
			t.Errorf("watcher full; dropped %+v", c)
		}
	})
	t.Cleanup(cancel)
	return ch
}

// hear waits (generously) for a change of topic and returns it.
func hear(t *testing.T, ch chan Change, topic Topic) Change {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case c := <-ch:
			if c.Topic == topic {
				return c
			}
		case <-deadline:
			t.Fatalf("no %s change heard", topic)
		}
	}
}

func waitLive(t *testing.T, st *Store, want bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); st.Live() != want; {
		if time.Now().After(deadline) {
			t.Fatalf("Live() stayed %v", !want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func pgPair(t *testing.T, retry time.Duration) (a, b *Store, app string) {
	t.Helper()
	dsn, schema := testenv.PostgresSchema(t)
	a = openTest(t, Options{Driver: Postgres, DSN: dsn})
	b = openTest(t, Options{Driver: Postgres, DSN: dsn, Listen: true, ListenRetry: retry})
	return a, b, schema
}

func pendingOn(t *testing.T, st *Store) Confirmation {
	t.Helper()
	c, _, err := st.CreateConfirmation(context.Background(), NewConfirmation{
		Tool: "pay", SessionID: "s-" + time.Now().Format(time.RFC3339Nano), ArgsHash: "h", Payload: `{"arguments":"secret args"}`,
		ExpiresAt: time.Now().Add(time.Hour),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// An answer given on one instance is heard by another's listener, with
// the question's id as the whole payload; so is a thrown switch.
func TestNotifyReachesAnotherInstance(t *testing.T) {
	a, b, _ := pgPair(t, 0)
	heard := changes(t, b)
	waitLive(t, b, true)
	if !b.Live() || a.Live() {
		t.Fatalf("Live: listening store %v, store opened without Listen %v", b.Live(), a.Live())
	}
	c := pendingOn(t, a)
	if _, err := a.DecideConfirmation(context.Background(), Verdict{ID: c.ID, Status: Approved, Tool: c.Tool, ArgsHash: c.ArgsHash, By: "alice"}); err != nil {
		t.Fatal(err)
	}
	if got := hear(t, heard, TopicApproval); got.Payload != c.ID {
		t.Fatalf("approval payload %q, want the id %q only", got.Payload, c.ID)
	}
	on := true
	if err := a.SetTenantReadOnly(context.Background(), "acme", &on, "ops"); err != nil {
		t.Fatal(err)
	}
	if got := hear(t, heard, TopicSettings); got.Payload != "acme" {
		t.Fatalf("settings payload %q, want acme", got.Payload)
	}
	if err := a.SetTenantReadOnly(context.Background(), "", nil, "ops"); err != nil {
		t.Fatal(err)
	}
	if got := hear(t, heard, TopicSettings); got.Payload != "" {
		t.Fatalf("organisation's settings payload %q, want empty", got.Payload)
	}
	// A lost answer (already decided) notifies nothing new.
	if _, err := a.DecideConfirmation(context.Background(), Verdict{ID: c.ID, Status: Rejected, Tool: c.Tool, ArgsHash: c.ArgsHash, By: "bob"}); err == nil {
		t.Fatal("a second answer won")
	}
	if err := a.SetTenantReadOnly(context.Background(), "marker", &on, "ops"); err != nil {
		t.Fatal(err)
	}
	for c := range heard {
		if c.Topic == TopicApproval {
			t.Fatalf("a losing answer was notified: %+v", c)
		}
		if c.Topic == TopicSettings && c.Payload == "marker" {
			break
		}
	}
}

// A listener whose connection is terminated reconnects and says so
// (TopicResync), and hears changes again.
func TestNotifyListenerReconnects(t *testing.T) {
	a, b, app := pgPair(t, 50*time.Millisecond)
	heard := changes(t, b)
	hear(t, heard, TopicResync) // the first connection (the watcher was there before it)
	if n := testenv.TerminateBackends(t, app+" notify"); n != 1 {
		t.Fatalf("terminated %d listener connections, want 1", n)
	}
	hear(t, heard, TopicResync)
	waitLive(t, b, true)
	c := pendingOn(t, a)
	if _, err := a.DecideConfirmation(context.Background(), Verdict{ID: c.ID, Status: Rejected, Tool: c.Tool, ArgsHash: c.ArgsHash, By: "alice"}); err != nil {
		t.Fatal(err)
	}
	if got := hear(t, heard, TopicApproval); got.Payload != c.ID {
		t.Fatalf("after reconnecting heard %q, want %q", got.Payload, c.ID)
	}
}

// Two instances in another schema of the same database never hear each
// other.
func TestNotifyStaysInItsSchema(t *testing.T) {
	_, b, _ := pgPair(t, 0)
	other, _, _ := pgPair(t, 0)
	heard := changes(t, b)
	waitLive(t, b, true)
	on := true
	if err := other.SetTenantReadOnly(context.Background(), "elsewhere", &on, "ops"); err != nil {
		t.Fatal(err)
	}
	if err := b.SetTenantReadOnly(context.Background(), "here", &on, "ops"); err != nil {
		t.Fatal(err)
	}
	if got := hear(t, heard, TopicSettings); got.Payload != "here" {
		t.Fatalf("heard %q from another schema", got.Payload)
	}
}

// Of two instances, one holds a lead; the other takes it once it is
// released, or once the holder's connection ends.
func TestLeadHasOneOwner(t *testing.T) {
	a, b, app := pgPair(t, 0)
	ctx := context.Background()
	la, err := a.TryLead(ctx, "job")
	if err != nil || la == nil {
		t.Fatalf("first lead: %v, %v", la, err)
	}
	if lb, err := b.TryLead(ctx, "job"); err != nil || lb != nil {
		t.Fatalf("second instance took a held lead: %v, %v", lb, err)
	}
	if lo, err := b.TryLead(ctx, "other job"); err != nil || lo == nil {
		t.Fatalf("another job's lead: %v, %v", lo, err)
	} else {
		defer lo.Release(ctx)
	}
	if !la.Held(ctx) {
		t.Fatal("the holder lost its lead")
	}
	if err := la.Release(ctx); err != nil {
		t.Fatal(err)
	}
	lb, err := b.TryLead(ctx, "job")
	if err != nil || lb == nil {
		t.Fatalf("lead not taken after release: %v, %v", lb, err)
	}
	// The holder's connection ends: the lead is lost, and free.
	if n := testenv.TerminateBackends(t, app+" lead"); n < 1 {
		t.Fatalf("terminated %d lead connections", n)
	}
	if lb.Held(ctx) {
		t.Fatal("a lead whose connection was terminated is still held")
	}
	la, err = a.TryLead(ctx, "job")
	if err != nil || la == nil {
		t.Fatalf("lead not free after its holder's connection ended: %v, %v", la, err)
	}
	la.Release(ctx)
}

// SQLite hears nothing (waiters poll) and grants every lead (one process
// owns the file).
func TestSQLiteNeitherListensNorLocks(t *testing.T) {
	st := openTest(t, Options{Path: filepath.Join(t.TempDir(), "x.db"), Listen: true})
	if st.Live() {
		t.Fatal("SQLite reports live notifications")
	}
	l1, err := st.TryLead(context.Background(), "job")
	if err != nil || l1 == nil || !l1.Held(context.Background()) {
		t.Fatalf("SQLite lead: %v, %v", l1, err)
	}
	on := true
	if err := st.SetTenantReadOnly(context.Background(), "acme", &on, "ops"); err != nil {
		t.Fatal(err)
	}
	if err := l1.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
}
