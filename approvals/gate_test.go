package approvals

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hookgate/hookgate/channels"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/store"
)

// recordingChannel is a channel that keeps the cards it is given.
type recordingChannel struct {
	channels.Channel
	mu    sync.Mutex
	cards []channels.Card
}

func (r *recordingChannel) SendCard(_ context.Context, c channels.Card) (channels.MessageRef, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cards = append(r.cards, c)
	return channels.MessageRef{ID: c.ApprovalID}, nil
}

func (r *recordingChannel) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.cards)
}

func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), store.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func question(timeout time.Duration) hooks.ApprovalQuestion {
	return hooks.ApprovalQuestion{HookID: "pay-approval", Channel: "ops", Timeout: timeout, Event: &hooks.Event{
		Event: hooks.PreToolUse, SessionID: "s1", ToolName: "pay", ToolInput: map[string]any{"amount": 5000, "to": "acme"},
	}}
}

func newGate(t *testing.T, st *store.Store, ch *recordingChannel) *Gate {
	return New(st, Options{Poll: 20 * time.Millisecond, Channels: func() map[string]channels.Channel {
		return map[string]channels.Channel{"ops": ch}
	}})
}

// asked starts Ask and returns its result channel once the card is out.
func asked(t *testing.T, g *Gate, ch *recordingChannel, q hooks.ApprovalQuestion, cards int) chan hooks.ApprovalAnswer {
	t.Helper()
	out := make(chan hooks.ApprovalAnswer, 1)
	go func() {
		a, err := g.Ask(context.Background(), q)
		if err != nil {
			a.By = "error: " + err.Error()
		}
		out <- a
	}()
	deadline := time.Now().Add(10 * time.Second)
	for ch.count() < cards && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if ch.count() < cards {
		t.Fatal("no card was posted")
	}
	return out
}

func TestApproveReleasesTheCall(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "a.db"))
	ch := &recordingChannel{}
	g := newGate(t, st, ch)
	out := asked(t, g, ch, question(time.Minute), 1)
	card := ch.cards[0]
	if card.Title != "Approve pay?" || card.Fields[2].Value != `{"amount":5000,"to":"acme"}` {
		t.Fatalf("card %+v", card)
	}
	if _, err := g.Decide(context.Background(), card.ApprovalID, true, "alice"); err != nil {
		t.Fatal(err)
	}
	a := <-out
	if !a.Approved || a.By != "alice" || a.ID != card.ApprovalID {
		t.Fatalf("answer %+v", a)
	}
	// The loser of a second answer learns who won.
	if c, err := g.Decide(context.Background(), card.ApprovalID, false, "bob"); !errors.Is(err, store.ErrNotPending) || c.RespondedBy != "alice" {
		t.Fatalf("second answer: %v %+v", err, c)
	}
}

func TestExpiryBlocksAsExpiredNotRejected(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "a.db"))
	ch := &recordingChannel{}
	a := <-asked(t, newGate(t, st, ch), ch, question(150*time.Millisecond), 1)
	if a.Approved || !a.Expired || a.By != "" {
		t.Fatalf("answer %+v", a)
	}
}

func TestARestartReattachesAndHonoursAnAnswerGivenMeanwhile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	st := openStore(t, path)
	ch := &recordingChannel{}
	ctx, cancel := context.WithCancel(context.Background())
	go newGate(t, st, ch).Ask(ctx, question(time.Minute))
	for ch.count() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	cancel() // the proxy dies while the call waits

	// Restarted: the agent retries the same call; no second card.
	st2 := openStore(t, path)
	ch2 := &recordingChannel{}
	g2 := newGate(t, st2, ch2)
	out := make(chan hooks.ApprovalAnswer, 1)
	go func() { a, _ := g2.Ask(context.Background(), question(time.Minute)); out <- a }()
	time.Sleep(100 * time.Millisecond)
	if ch2.count() != 0 {
		t.Fatal("a retried call posted a second card")
	}
	// Answered through the command line (the store directly).
	if _, err := Decide(context.Background(), st2, ch.cards[0].ApprovalID, true, "cli", ""); err != nil {
		t.Fatal(err)
	}
	if a := <-out; !a.Approved || a.By != "cli" {
		t.Fatalf("answer %+v", a)
	}
	// A later retry of the same call is answered from the record.
	if a, err := g2.Ask(context.Background(), question(time.Minute)); err != nil || !a.Approved || ch2.count() != 0 {
		t.Fatalf("retry after the answer: %+v %v (cards %d)", a, err, ch2.count())
	}
}

func TestAnswerIsBoundToItsCall(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "a.db"))
	ch := &recordingChannel{}
	g := newGate(t, st, ch)
	q1 := question(time.Minute)
	out1 := asked(t, g, ch, q1, 1)
	q2 := question(time.Minute)
	q2.Event.ToolInput = map[string]any{"amount": 9_000_000, "to": "mallory"}
	out2 := asked(t, g, ch, q2, 2)
	if _, err := g.Decide(context.Background(), ch.cards[0].ApprovalID, true, "alice"); err != nil {
		t.Fatal(err)
	}
	if a := <-out1; !a.Approved {
		t.Fatalf("first call: %+v", a)
	}
	select {
	case a := <-out2:
		t.Fatalf("approving one call released another: %+v", a)
	case <-time.After(150 * time.Millisecond):
	}
	g.Decide(context.Background(), ch.cards[1].ApprovalID, false, "alice")
	if a := <-out2; a.Approved || a.By != "alice" {
		t.Fatalf("second call: %+v", a)
	}
}
