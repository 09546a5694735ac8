package interceptors

import (
	"context"
	"time"

	"github.com/hookgate/hookgate/hooks"
)

// exchangeState is what every wire format's exchange keeps: who the
// request comes from, and how long it waited for hooks and worked itself.
type exchangeState struct {
	engine  *hooks.Engine
	metrics Metrics // nil counts nothing
	id      *identity

	// hookTime is time spent waiting for hooks on the request and on a
	// plain response; work is time spent relaying a stream (hooks run
	// beside it and are not counted).
	hookTime time.Duration
	work     time.Duration
}

// Timing reports the time the exchange waited for hooks and the time it
// spent working on a stream itself, for hookgate_overhead_seconds.
func (x *exchangeState) Timing() (hooks, work time.Duration) { return x.hookTime, x.work }

// dispatch runs an event's hooks and adds their time to the exchange's.
func (x *exchangeState) dispatch(ctx context.Context, ev *hooks.Event) hooks.Outcome {
	start := time.Now()
	out := x.engine.Dispatch(ctx, ev)
	x.hookTime += time.Since(start)
	return out
}

// held counts tool calls held from the client (delta > 0) or released.
func (x *exchangeState) held(delta int) {
	if x.metrics != nil {
		x.metrics.Held(delta)
	}
}

// countToolCall counts a judged tool call by its decision.
func (x *exchangeState) countToolCall(tool string, d hooks.Decision) {
	if x.metrics != nil {
		x.metrics.ToolCall(tool, string(d))
	}
}
