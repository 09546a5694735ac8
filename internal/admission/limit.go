// Package admission bounds what one hookgate instance takes on at once:
// open streams, approval questions waiting for a person, hook executions
// in flight. Over a bound, work is refused at once (or after a short,
// bounded wait), never queued without end; the caller answers with a 503
// and Retry-After, or blocks the call it could not judge.
package admission

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Limit is a counting bound. Its zero value is not usable; build it with
// New. A nil *Limit admits everything, so that code paths without a
// configured bound (unit tests, tools) need no special case.
//
// The bound can be changed while slots are held (SetMax, on a reload):
// holders keep their slots and new ones are admitted once the count is
// below the new bound.
type Limit struct {
	name     string
	wait     time.Duration
	max      atomic.Int64
	inUse    atomic.Int64
	onRefuse func(name string)

	mu    sync.Mutex
	freed chan struct{} // closed (and replaced) when a slot frees up; nil with no waiter
}

// New returns a bound of max slots named name (the name is the label of
// the refusal metric and what error messages cite). Acquire waits up to
// wait for a slot; zero refuses at once. onRefuse, if not nil, is called
// with name on every refusal.
func New(name string, max int, wait time.Duration, onRefuse func(name string)) *Limit {
	l := &Limit{name: name, wait: wait, onRefuse: onRefuse}
	l.max.Store(int64(max))
	return l
}

// Name is the bound's name.
func (l *Limit) Name() string {
	if l == nil {
		return ""
	}
	return l.name
}

// Max is the bound in force.
func (l *Limit) Max() int {
	if l == nil {
		return 0
	}
	return int(l.max.Load())
}

// InUse is how many slots are held now.
func (l *Limit) InUse() int {
	if l == nil {
		return 0
	}
	return int(l.inUse.Load())
}

// SetMax changes the bound (a reload). Waiters look again at once.
func (l *Limit) SetMax(n int) {
	if l == nil {
		return
	}
	l.max.Store(int64(n))
	l.wake()
}

// TryAcquire takes a slot if one is free, without waiting. A refusal is
// counted.
func (l *Limit) TryAcquire() bool {
	if l == nil || l.take() {
		return true
	}
	l.refused()
	return false
}

// Acquire takes a slot, waiting up to the bound's wait (and no longer than
// ctx) for one to free up. A refusal is counted.
func (l *Limit) Acquire(ctx context.Context) bool {
	if l == nil || l.take() {
		return true
	}
	if l.wait <= 0 {
		l.refused()
		return false
	}
	t := time.NewTimer(l.wait)
	defer t.Stop()
	for {
		l.mu.Lock()
		if l.take() {
			l.mu.Unlock()
			return true
		}
		if l.freed == nil {
			l.freed = make(chan struct{})
		}
		freed := l.freed
		l.mu.Unlock()
		select {
		case <-freed:
		case <-t.C:
			l.refused()
			return false
		case <-ctx.Done():
			l.refused()
			return false
		}
	}
}

// Release gives back a slot taken by TryAcquire or Acquire.
func (l *Limit) Release() {
	if l == nil {
		return
	}
	l.inUse.Add(-1)
	l.wake()
}

// Check reports whether a slot is free now, without taking one; when none
// is, it counts a refusal. It is the door check of work that will need a
// slot later (a request whose hooks will run): refusing it before it
// starts costs the client one 503 instead of a blocked call.
func (l *Limit) Check() bool {
	if l == nil || l.inUse.Load() < l.max.Load() {
		return true
	}
	l.refused()
	return false
}

// take claims a slot if the count is below the bound.
func (l *Limit) take() bool {
	for {
		n := l.inUse.Load()
		if n >= l.max.Load() {
			return false
		}
		if l.inUse.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// wake tells the waiters, if any, to look again.
func (l *Limit) wake() {
	l.mu.Lock()
	if l.freed != nil {
		close(l.freed)
		l.freed = nil
	}
	l.mu.Unlock()
}

func (l *Limit) refused() {
	if l.onRefuse != nil {
		l.onRefuse(l.name)
	}
}
