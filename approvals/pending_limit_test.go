package approvals

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookgate/hookgate/channels"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/admission"
	"github.com/hookgate/hookgate/store"
)

// Over limits.max_pending_approvals a call is refused at once: no
// question stored, no card posted; once the waiting call ends, the next
// one is asked again.
func TestPendingLimitRefusesWithoutAsking(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "a.db"))
	ch := &recordingChannel{}
	lim := admission.New("approvals", 1, 0, nil)
	g := New(st, Options{Poll: 20 * time.Millisecond, Pending: lim, Channels: func() map[string]channels.Channel {
		return map[string]channels.Channel{"ops": ch}
	}})
	first := asked(t, g, ch, question(time.Minute), 1)

	other := question(time.Minute)
	other.Event.ToolInput = map[string]any{"amount": 7, "to": "other"}
	_, err := g.Ask(context.Background(), other)
	var over *hooks.OverloadError
	if !errors.As(err, &over) || over.Limit != "limits.max_pending_approvals" || over.Max != 1 {
		t.Fatalf("over the limit: %v", err)
	}
	if ch.count() != 1 {
		t.Fatalf("%d cards posted, want 1", ch.count())
	}
	if pending, _ := st.ListConfirmations(context.Background(), store.Pending, 0); len(pending) != 1 {
		t.Fatalf("%d questions pending, want 1", len(pending))
	}

	if _, err := g.Decide(context.Background(), ch.cards[0].ApprovalID, true, "alice"); err != nil {
		t.Fatal(err)
	}
	if a := <-first; !a.Approved {
		t.Fatalf("first answer %+v", a)
	}
	if lim.InUse() != 0 {
		t.Fatalf("%d pending slots held after the answer", lim.InUse())
	}
	again := asked(t, g, ch, other, 2)
	if _, err := g.Decide(context.Background(), ch.cards[1].ApprovalID, false, "alice"); err != nil {
		t.Fatal(err)
	}
	if a := <-again; a.Approved || a.By != "alice" {
		t.Fatalf("second answer %+v", a)
	}
}
