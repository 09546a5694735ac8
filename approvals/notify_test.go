package approvals

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/hookgate/hookgate/channels"
	"github.com/hookgate/hookgate/internal/testenv"
	"github.com/hookgate/hookgate/store"
)

// pgInstance is one hookgate instance's store and gate on a shared
// PostgreSQL schema.
type pgInstance struct {
	st   *store.Store
	gate *Gate
	ch   *recordingChannel
}

func openPG(t testing.TB, dsn string, opts store.Options, poll time.Duration) pgInstance {
	t.Helper()
	opts.Driver, opts.DSN, opts.Listen = store.Postgres, dsn, true
	if opts.Logger == nil {
		opts.Logger = quiet()
	}
	st, err := store.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ch := &recordingChannel{}
	g := New(st, Options{Poll: poll, Channels: channelsOf(ch)})
	t.Cleanup(g.Close)
	return pgInstance{st: st, gate: g, ch: ch}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func channelsOf(ch *recordingChannel) func() map[string]channels.Channel {
	return func() map[string]channels.Channel { return map[string]channels.Channel{"ops": ch} }
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

// waiting reports whether a call of g waits on question id (registered
// for wake-ups).
func (g *Gate) waiting(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.waiters[id]) > 0
}

// heldOn asks on b and returns the call's answer channel and question id
// once the call waits, registered for wake-ups.
func heldOn(t *testing.T, b pgInstance) (chan hooksAnswer, string) {
	t.Helper()
	out := make(chan hooksAnswer, 1)
	go func() {
		a, err := b.gate.Ask(context.Background(), question(time.Hour))
		out <- hooksAnswer{a.Approved, a.Expired, a.By, err}
	}()
	eventually(t, "a card is posted", func() bool { return b.ch.count() == 1 })
	id := b.ch.cards[0].ApprovalID
	eventually(t, "the call waits", func() bool { return b.gate.waiting(id) })
	return out, id
}

type hooksAnswer struct {
	approved, expired bool
	by                string
	err               error
}

func released(t *testing.T, out chan hooksAnswer, within time.Duration) hooksAnswer {
	t.Helper()
	select {
	case a := <-out:
		if a.err != nil {
			t.Fatal(a.err)
		}
		return a
	case <-time.After(within):
		t.Fatalf("the held call was not released within %s", within)
	}
	return hooksAnswer{}
}

// An answer given on instance A releases the call held on instance B, by
// B's notification: B polls only once an hour, so nothing else could.
func TestAnswerOnAnotherInstanceReleasesTheHeldCall(t *testing.T) {
	dsn, _ := testenv.PostgresSchema(t)
	a := openPG(t, dsn, store.Options{}, time.Hour)
	b := openPG(t, dsn, store.Options{}, time.Hour)
	eventually(t, "B hears notifications", b.st.Live)
	out, id := heldOn(t, b)
	if _, err := a.gate.Decide(context.Background(), id, true, "alice"); err != nil {
		t.Fatal(err)
	}
	if got := released(t, out, 30*time.Second); !got.approved || got.by != "alice" {
		t.Fatalf("answer %+v", got)
	}
}

// B's listener connection is terminated; an answer given on A while B is
// reconnecting is seen by B once it hears notifications again (it looks
// once after each reconnection), though it polls only once an hour.
func TestAnswerGivenWhileTheListenerIsAwayIsSeenAfterReconnecting(t *testing.T) {
	dsn, app := testenv.PostgresSchema(t)
	a := openPG(t, dsn, store.Options{}, time.Hour)
	b := openPG(t, dsn, store.Options{ListenRetry: 5 * time.Second}, time.Hour)
	eventually(t, "B hears notifications", b.st.Live)
	out, id := heldOn(t, b)
	if n := testenv.TerminateBackends(t, app+" notify"); n != 2 {
		t.Fatalf("terminated %d listener connections, want A's and B's", n)
	}
	eventually(t, "B notices its listener is gone", func() bool { return !b.st.Live() })
	if _, err := a.gate.Decide(context.Background(), id, false, "alice"); err != nil {
		t.Fatal(err)
	}
	if b.st.Live() {
		t.Fatal("B reconnected before the answer was given; the gap was not tested")
	}
	if got := released(t, out, 60*time.Second); got.approved || got.expired || got.by != "alice" {
		t.Fatalf("answer %+v", got)
	}
}

// While B hears no notifications it falls back to polling.
func TestWithoutNotificationsAHeldCallPolls(t *testing.T) {
	dsn, app := testenv.PostgresSchema(t)
	a := openPG(t, dsn, store.Options{}, time.Hour)
	b := openPG(t, dsn, store.Options{ListenRetry: time.Hour}, 20*time.Millisecond)
	eventually(t, "B hears notifications", b.st.Live)
	out, id := heldOn(t, b)
	testenv.TerminateBackends(t, app+" notify")
	eventually(t, "B notices its listener is gone", func() bool { return !b.st.Live() })
	if _, err := a.gate.Decide(context.Background(), id, true, "alice"); err != nil {
		t.Fatal(err)
	}
	if got := released(t, out, 30*time.Second); !got.approved {
		t.Fatalf("answer %+v", got)
	}
}

// Only the holder of the expiry job's lead expires questions; another
// instance takes it over once it is released, and gives it up when its
// janitor stops.
func TestExpiryJobHasOneOwner(t *testing.T) {
	dsn, _ := testenv.PostgresSchema(t)
	ctx := context.Background()
	holder := openPG(t, dsn, store.Options{}, time.Hour)
	// B's clock runs two hours ahead: to its janitor, an hour-long
	// question is past its expiry.
	b := openPG(t, dsn, store.Options{Now: func() time.Time { return time.Now().Add(2 * time.Hour) }}, time.Hour)
	lead, err := holder.st.TryLead(ctx, JanitorJob)
	if err != nil || lead == nil {
		t.Fatalf("lead: %v, %v", lead, err)
	}
	c, _, err := holder.st.CreateConfirmation(ctx, store.NewConfirmation{Tool: "pay", SessionID: "s", ArgsHash: "h", Payload: "{}", ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	jctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); b.gate.Janitor(jctx, 10*time.Millisecond) }()
	defer func() { stop(); wg.Wait() }()
	time.Sleep(500 * time.Millisecond) // fifty of B's intervals
	if now, err := holder.st.GetConfirmation(ctx, c.ID); err != nil || now.Status != store.Pending {
		t.Fatalf("a janitor without the lead expired a question: %+v, %v", now, err)
	}
	if err := lead.Release(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "B's janitor takes the lead and expires the question", func() bool {
		now, err := holder.st.GetConfirmation(ctx, c.ID)
		return err == nil && now.Status == store.Expired
	})
	if l, err := holder.st.TryLead(ctx, JanitorJob); err != nil || l != nil {
		t.Fatalf("the lead is not B's while its janitor runs: %v, %v", l, err)
	}
	stop()
	wg.Wait()
	l, err := holder.st.TryLead(ctx, JanitorJob)
	if err != nil || l == nil {
		t.Fatalf("B's stopped janitor kept its lead: %v, %v", l, err)
	}
	l.Release(ctx)
}
