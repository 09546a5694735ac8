package admission

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestLimitRefusesOverTheBoundAndRecovers(t *testing.T) {
	var refusals atomic.Int64
	l := New("streams", 2, 0, func(name string) {
		if name != "streams" {
			t.Errorf("refusal named %q", name)
		}
		refusals.Add(1)
	})
	if first, second := l.TryAcquire(), l.TryAcquire(); !first || !second {
		t.Fatal("two slots of two refused")
	}
	if l.TryAcquire() || l.Check() {
		t.Fatal("a third slot of two admitted")
	}
	if refusals.Load() != 2 || l.InUse() != 2 {
		t.Fatalf("refusals %d, in use %d", refusals.Load(), l.InUse())
	}
	l.Release()
	if !l.Check() || !l.TryAcquire() {
		t.Fatal("a freed slot was not admitted")
	}
	l.SetMax(3)
	if !l.TryAcquire() || l.InUse() != 3 {
		t.Fatalf("raised bound not applied: in use %d", l.InUse())
	}
	l.SetMax(1)
	l.Release()
	if l.TryAcquire() {
		t.Fatal("admitted over a lowered bound")
	}
}

func TestLimitAcquireWaitsBoundedly(t *testing.T) {
	l := New("hooks", 1, 150*time.Millisecond, nil)
	l.TryAcquire()
	start := time.Now()
	if l.Acquire(context.Background()) {
		t.Fatal("admitted over the bound")
	}
	if d := time.Since(start); d < 140*time.Millisecond || d > 2*time.Second {
		t.Fatalf("waited %v, want about 150ms", d)
	}
	go func() { time.Sleep(30 * time.Millisecond); l.Release() }()
	if !l.Acquire(context.Background()) {
		t.Fatal("a slot freed during the wait was not taken")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if l.Acquire(ctx) {
		t.Fatal("admitted after the caller left")
	}
}

func TestLimitHoldsUnderContention(t *testing.T) {
	l := New("hooks", 3, 50*time.Millisecond, nil)
	var held, peak atomic.Int64
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if !l.Acquire(context.Background()) {
					continue
				}
				n := held.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				held.Add(-1)
				l.Release()
			}
		}()
	}
	wg.Wait()
	if peak.Load() > 3 || l.InUse() != 0 {
		t.Fatalf("peak %d (bound 3), in use after %d", peak.Load(), l.InUse())
	}
}

func TestNilLimitAdmitsEverything(t *testing.T) {
	var l *Limit
	if !l.TryAcquire() || !l.Acquire(context.Background()) || !l.Check() {
		t.Fatal("a nil limit refused")
	}
	l.Release()
	l.SetMax(1)
}
