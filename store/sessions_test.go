package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestSessionSaveLoadExpire(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		clk := newClock()
		st := tg.open(t, Options{Now: clk.Now})
		l, err := st.LockSession(ctx, "s1")
		if err != nil || l.State != nil {
			t.Fatalf("new session: %+v %v", l, err)
		}
		if err := l.Save(ctx, []byte(`{"started":true,"context":"be kind"}`), clk.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		l.Release() // harmless after Save
		if err := l.Save(ctx, []byte(`{}`), clk.Now()); err == nil {
			t.Fatal("saved twice")
		}

		l, err = st.LockSession(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(l.State, &got); err != nil || got["context"] != "be kind" || got["started"] != true {
			t.Fatalf("state %s: %v", l.State, err)
		}
		if !l.ExpiresAt.Equal(clk.Now().Add(time.Hour)) {
			t.Fatalf("expires %s", l.ExpiresAt)
		}
		l.Release()

		clk.Add(2 * time.Hour)
		l, err = st.LockSession(ctx, "s1")
		if err != nil || l.State != nil {
			t.Fatalf("expired state still read: %s %v", l.State, err)
		}
		l.Release()
		n, err := st.ExpireSessions(ctx)
		if err != nil || n != 1 {
			t.Fatalf("expired %d, %v", n, err)
		}
		if st.locks.len() != 0 {
			t.Fatalf("%d session locks left", st.locks.len())
		}
	})
}

// Two instances incrementing one session's counter under its lock: no
// update is lost.
func TestSessionLockSerialisesInstances(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		instances := []*Store{tg.open(t, Options{})}
		if tg.name == "postgres" {
			instances = append(instances, tg.open(t, Options{}))
		}
		const workers, each = 4, 25
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st := instances[w%len(instances)]
				for range each {
					l, err := st.LockSession(ctx, "shared")
					if err != nil {
						errs <- err
						return
					}
					var s struct{ N int }
					if l.State != nil {
						json.Unmarshal(l.State, &s)
					}
					s.N++
					b, _ := json.Marshal(s)
					if err := l.Save(ctx, b, time.Now().Add(time.Hour)); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		l, err := instances[0].LockSession(ctx, "shared")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Release()
		var s struct{ N int }
		json.Unmarshal(l.State, &s)
		if s.N != workers*each {
			t.Fatalf("counter %d, want %d: updates lost", s.N, workers*each)
		}
	})
}

func TestSessionLockHonoursContext(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		st := tg.open(t, Options{})
		held, err := st.LockSession(context.Background(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, err := st.LockSession(ctx, "s1"); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("second lock: %v", err)
		}
		other, err := st.LockSession(context.Background(), "s2")
		if err != nil {
			t.Fatalf("another session waits for s1: %v", err)
		}
		other.Release()
		held.Release()
		again, err := st.LockSession(context.Background(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		again.Release()
	})
}

func TestSessionLockAcrossInstancesPostgres(t *testing.T) {
	for _, tg := range targets(t) {
		if tg.name != "postgres" {
			continue
		}
		a, b := tg.open(t, Options{}), tg.open(t, Options{})
		held, err := a.LockSession(context.Background(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan error, 1)
		go func() {
			l, err := b.LockSession(context.Background(), "s1")
			if err == nil {
				err = fmt.Errorf("state %s", l.State)
				if string(l.State) == `{"n": 1}` {
					err = nil
				}
				l.Release()
			}
			got <- err
		}()
		select {
		case err := <-got:
			t.Fatalf("the other instance got the lock while it was held: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
		if err := held.Save(context.Background(), []byte(`{"n":1}`), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := <-got; err != nil {
			t.Fatal(err)
		}
	}
}
