package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func newPay(sessionID string, exp time.Time) NewConfirmation {
	return NewConfirmation{Tool: "pay", SessionID: sessionID, ArgsHash: "h-100eur", Payload: `{"amount":100}`, ExpiresAt: exp}
}

func TestConfirmationLifecycle(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		clk := newClock()
		st := tg.open(t, Options{Now: clk.Now})
		c, created, err := st.CreateConfirmation(ctx, newPay("s1", clk.Now().Add(2*time.Minute)))
		if err != nil || !created || c.Status != Pending || c.ID == "" || !c.CreatedAt.Equal(clk.Now()) {
			t.Fatalf("create: %+v %v %v", c, created, err)
		}
		// The same call again (a retry after a restart) re-attaches.
		again, created, err := st.CreateConfirmation(ctx, newPay("s1", clk.Now().Add(2*time.Minute)))
		if err != nil || created || again.ID != c.ID {
			t.Fatalf("re-create: %+v %v %v", again, created, err)
		}
		if f, err := st.findPendingConfirmation(ctx, "s1", "pay", "h-100eur"); err != nil || f.ID != c.ID {
			t.Fatalf("find: %+v %v", f, err)
		}
		if _, err := st.findPendingConfirmation(ctx, "s2", "pay", "h-100eur"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("find other session: %v", err)
		}
		if l, err := st.ListConfirmations(ctx, Pending, 0); err != nil || len(l) != 1 || l[0].Payload != `{"amount":100}` {
			t.Fatalf("list pending: %+v %v", l, err)
		}
		// Bound to tool and arguments.
		for _, v := range []Verdict{
			{ID: c.ID, Status: Approved, Tool: "transfer", ArgsHash: "h-100eur", By: "alice"},
			{ID: c.ID, Status: Approved, Tool: "pay", ArgsHash: "h-999eur", By: "alice"},
		} {
			if _, err := st.DecideConfirmation(ctx, v); !errors.Is(err, ErrMismatch) {
				t.Fatalf("mismatched verdict %+v: %v", v, err)
			}
		}
		clk.Add(10 * time.Second)
		d, err := st.DecideConfirmation(ctx, Verdict{ID: c.ID, Status: Approved, Tool: "pay", ArgsHash: "h-100eur", By: "alice"})
		if err != nil || d.Status != Approved || d.RespondedBy != "alice" || !d.RespondedAt.Equal(clk.Now()) {
			t.Fatalf("decide: %+v %v", d, err)
		}
		again, err = st.DecideConfirmation(ctx, Verdict{ID: c.ID, Status: Rejected, Tool: "pay", ArgsHash: "h-100eur", By: "bob"})
		if !errors.Is(err, ErrNotPending) || again.Status != Approved || again.RespondedBy != "alice" {
			t.Fatalf("second decision: %+v %v", again, err)
		}
		if g, err := st.GetConfirmation(ctx, c.ID); err != nil || g.Status != Approved {
			t.Fatalf("get: %+v %v", g, err)
		}
		for _, id := range []string{"not-a-uuid", "0b5c3f5e-9f1e-4d59-9a43-3a8f0a0c7d11"} {
			if _, err := st.GetConfirmation(ctx, id); !errors.Is(err, ErrNotFound) {
				t.Fatalf("get %s: %v", id, err)
			}
			if _, err := st.DecideConfirmation(ctx, Verdict{ID: id, Status: Approved, Tool: "pay", ArgsHash: "h-100eur"}); !errors.Is(err, ErrNotFound) {
				t.Fatalf("decide %s: %v", id, err)
			}
		}
		if _, err := st.DecideConfirmation(ctx, Verdict{ID: c.ID, Status: Pending}); err == nil {
			t.Fatal("decided to pending")
		}
		// Decided: the next identical call asks again.
		if n, created, err := st.CreateConfirmation(ctx, newPay("s1", clk.Now().Add(time.Minute))); err != nil || !created || n.ID == c.ID {
			t.Fatalf("create after decision: %+v %v %v", n, created, err)
		}
		if l, _ := st.ListConfirmations(ctx, "", 0); len(l) != 2 {
			t.Fatalf("list all: %d", len(l))
		}
		if l, _ := st.ListConfirmations(ctx, Approved, 1); len(l) != 1 || l[0].ID != c.ID {
			t.Fatalf("list approved: %+v", l)
		}
	})
}

func TestConfirmationExpiry(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		clk := newClock()
		st := tg.open(t, Options{Now: clk.Now})
		if _, _, err := st.CreateConfirmation(ctx, newPay("s1", clk.Now())); err == nil {
			t.Fatal("created a request that is already expired")
		}
		a, _, _ := st.CreateConfirmation(ctx, newPay("s1", clk.Now().Add(time.Minute)))
		b, _, _ := st.CreateConfirmation(ctx, newPay("s2", clk.Now().Add(time.Minute)))
		c, _, _ := st.CreateConfirmation(ctx, newPay("s3", clk.Now().Add(time.Hour)))
		clk.Add(2 * time.Minute)

		// A late answer does not approve; the request is now expired.
		d, err := st.DecideConfirmation(ctx, Verdict{ID: a.ID, Status: Approved, Tool: "pay", ArgsHash: "h-100eur", By: "alice"})
		if !errors.Is(err, ErrExpired) || d.Status != Expired || d.RespondedBy != "" {
			t.Fatalf("late decision: %+v %v", d, err)
		}
		if _, err := st.findPendingConfirmation(ctx, "s2", "pay", "h-100eur"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("expired request found as pending: %v", err)
		}
		ids, err := st.ExpireConfirmations(ctx)
		if err != nil || len(ids) != 1 || ids[0] != b.ID {
			t.Fatalf("expire: %v %v (want [%s])", ids, err, b.ID)
		}
		if g, _ := st.GetConfirmation(ctx, c.ID); g.Status != Pending {
			t.Fatalf("unexpired request: %s", g.Status)
		}
		// Retrying an expired call makes a new request.
		n, created, err := st.CreateConfirmation(ctx, newPay("s2", clk.Now().Add(time.Minute)))
		if err != nil || !created || n.ID == b.ID {
			t.Fatalf("create after expiry: %+v %v %v", n, created, err)
		}
	})
}

// Approvers answering at once, through two store instances: exactly one
// wins, and the row shows the winner.
func TestConcurrentDecideHasOneWinner(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		instances := []*Store{tg.open(t, Options{}), tg.open(t, Options{})}
		for round := range 5 {
			c, _, err := instances[0].CreateConfirmation(ctx, newPay(fmt.Sprint("s", round), time.Now().Add(time.Minute)))
			if err != nil {
				t.Fatal(err)
			}
			const approvers = 16
			var wg sync.WaitGroup
			results := make([]error, approvers)
			start := make(chan struct{})
			for i := range approvers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					status := Approved
					if i%2 == 1 {
						status = Rejected
					}
					_, results[i] = instances[i%2].DecideConfirmation(ctx, Verdict{ID: c.ID, Status: status, Tool: "pay", ArgsHash: "h-100eur", By: fmt.Sprint("approver", i)})
				}()
			}
			close(start)
			wg.Wait()
			winner := -1
			for i, err := range results {
				switch {
				case err == nil:
					if winner >= 0 {
						t.Fatalf("round %d: approvers %d and %d both won", round, winner, i)
					}
					winner = i
				case !errors.Is(err, ErrNotPending):
					t.Fatalf("round %d: approver %d: %v", round, i, err)
				}
			}
			if winner < 0 {
				t.Fatalf("round %d: nobody won", round)
			}
			g, _ := instances[1].GetConfirmation(ctx, c.ID)
			if g.RespondedBy != fmt.Sprint("approver", winner) {
				t.Fatalf("round %d: row says %s, winner was approver%d", round, g.RespondedBy, winner)
			}
		}
	})
}

// The same call reaching two instances at once yields one request.
func TestConcurrentCreateMakesOneRequest(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		instances := []*Store{tg.open(t, Options{}), tg.open(t, Options{})}
		const callers = 8
		ids := make([]string, callers)
		createdN := 0
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, created, err := instances[i%2].CreateConfirmation(ctx, newPay("s1", time.Now().Add(time.Minute)))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				ids[i] = c.ID
				if created {
					createdN++
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		if createdN != 1 {
			t.Fatalf("%d requests created, want 1", createdN)
		}
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("callers got different requests: %v", ids)
			}
		}
	})
}
