package approvals

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/testenv"
	"github.com/hookgate/hookgate/store"
)

// BenchmarkCrossInstanceRelease measures how long a call held on
// instance B takes to be released after an approver answers on instance
// A, both on one PostgreSQL (HOOKGATE_PG_DSN): from the start of A's
// Decide to B's Ask returning. In notify, B polls once an hour, so the
// release is the notification's; in poll, B's store does not listen and
// B polls every DefaultPoll (the fallback). Reported as p50-ms, p90-ms
// and max-ms.
func BenchmarkCrossInstanceRelease(b *testing.B) {
	b.Run("notify", func(b *testing.B) { benchRelease(b, true, time.Hour) })
	b.Run("poll", func(b *testing.B) { benchRelease(b, false, DefaultPoll) })
}

func benchRelease(b *testing.B, listen bool, poll time.Duration) {
	dsn, _ := testenv.PostgresSchema(b)
	a := openPG(b, dsn, store.Options{}, time.Hour)
	h := openPG(b, dsn, store.Options{}, poll)
	if !listen {
		st, err := store.Open(context.Background(), store.Options{Driver: store.Postgres, DSN: dsn, Logger: quiet()})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		h.st = st
		h.gate = New(st, Options{Poll: poll, Channels: channelsOf(h.ch)})
		b.Cleanup(h.gate.Close)
	}
	for deadline := time.Now().Add(30 * time.Second); listen && !h.st.Live(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("B never hears notifications")
		}
	}
	lat := make([]time.Duration, 0, b.N)
	for i := 0; b.Loop(); i++ {
		q := question(time.Hour)
		ev := *q.Event
		ev.SessionID = fmt.Sprintf("bench-%d", i)
		q.Event = &ev
		out := make(chan error, 1)
		done := make(chan time.Time, 1)
		go func() {
			_, err := h.gate.Ask(context.Background(), q)
			done <- time.Now()
			out <- err
		}()
		var id string
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
			if n := h.ch.count(); n == i+1 {
				h.ch.mu.Lock()
				id = h.ch.cards[i].ApprovalID
				h.ch.mu.Unlock()
				if h.gate.waiting(id) {
					break
				}
			}
			if time.Now().After(deadline) {
				b.Fatal("the call never waits")
			}
		}
		if !listen {
			// A person answers at any phase of the poll.
			time.Sleep(rand.N(poll))
		}
		start := time.Now()
		if _, err := a.gate.Decide(context.Background(), id, true, "alice"); err != nil {
			b.Fatal(err)
		}
		end := <-done
		if err := <-out; err != nil {
			b.Fatal(err)
		}
		lat = append(lat, end.Sub(start))
	}
	reportLatencies(b, lat)
}

// reportLatencies reports the p50, p90 and maximum of lat in ms.
func reportLatencies(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*9/10]), "p90-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
}
