package hooks

import (
	"context"
	"fmt"
	"sync/atomic"
)

// Limiter bounds the synchronous hook executions in flight. One Limiter
// is shared by the engines of successive configurations, so that a reload
// does not double the bound. Acquire may wait briefly (and no longer than
// ctx) for a slot; false refuses the execution.
type Limiter interface {
	Acquire(ctx context.Context) bool
	Release()
	Max() int
}

// LimitExecutions bounds the engine's synchronous executions (blocking and
// contributing hooks, inline observers) with l. It must be called before
// the engine is first used. An execution refused for want of a slot fails
// closed, whatever the hook's on_timeout says: it is hookgate that did not
// run it, not the hook that failed. Asynchronous observers have their own
// bounded pool and are not counted.
func (e *Engine) LimitExecutions(l Limiter) { e.slots = l }

// OverloadError is the cause recorded when an admission limit refused to
// run a hook, or a handler refused for the same reason (the approval gate
// at limits.max_pending_approvals). The call fails closed, and the client's
// note names the limit, which is configuration, not internal detail.
type OverloadError struct {
	Limit string // the configuration key, e.g. limits.max_concurrent_hooks
	Max   int
}

func (e *OverloadError) Error() string {
	return fmt.Sprintf("hookgate is at %s (%d)", e.Limit, e.Max)
}

// execSlot is an execution's share of the Limiter, given back once.
type execSlot struct {
	l    Limiter
	done atomic.Bool
}

func (s *execSlot) release() {
	if s.done.CompareAndSwap(false, true) {
		s.l.Release()
	}
}

type execSlotKey struct{}

// YieldSlot gives back the execution slot of the hook running with ctx,
// for a handler that from now on waits for a person rather than works
// (the approval gate, which is bounded by limits.max_pending_approvals).
// Outside a bounded execution it does nothing.
func YieldSlot(ctx context.Context) {
	if s, ok := ctx.Value(execSlotKey{}).(*execSlot); ok {
		s.release()
	}
}
