package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// An answer's comment (migration 5) is stored with it, cut to CommentMax
// characters on a character boundary; the losing answer's comment is not.
func TestConfirmationCommentIsStoredWithTheAnswer(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		clk := newClock()
		st := tg.open(t, Options{Now: clk.Now})
		c, _, err := st.CreateConfirmation(ctx, newPay("s1", clk.Now().Add(2*time.Minute)))
		if err != nil {
			t.Fatal(err)
		}
		long := strings.Repeat("é", CommentMax+20)
		d, err := st.DecideConfirmation(ctx, Verdict{ID: c.ID, Status: Approved, Tool: "pay", ArgsHash: "h-100eur", By: "alice", Comment: long})
		if err != nil || utf8.RuneCountInString(d.Comment) != CommentMax || !utf8.ValidString(d.Comment) {
			t.Fatalf("decide: %d characters, %v", utf8.RuneCountInString(d.Comment), err)
		}
		lost, err := st.DecideConfirmation(ctx, Verdict{ID: c.ID, Status: Rejected, Tool: "pay", ArgsHash: "h-100eur", By: "bob", Comment: "no"})
		if !errors.Is(err, ErrNotPending) || lost.Comment != d.Comment || lost.RespondedBy != "alice" {
			t.Fatalf("the losing answer: %+v %v", lost, err)
		}
		if g, err := st.GetConfirmation(ctx, c.ID); err != nil || g.Comment != d.Comment {
			t.Fatalf("get: %q %v", g.Comment, err)
		}
		if r, err := st.ListEndedConfirmations(ctx, 10); err != nil || len(r) != 1 || r[0].Comment != d.Comment {
			t.Fatalf("recent: %+v %v", r, err)
		}
	})
}
