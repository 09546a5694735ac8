package interceptors

import (
	"context"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/tracing"
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

	// usage is the token counts the response reported, read only for a
	// traced request (noteUsage).
	usage struct {
		input, output int64
		ok            bool
	}
}

// Model is the model the request named (Describer).
func (x *exchangeState) Model() string {
	if x.id == nil {
		return ""
	}
	return x.id.model
}

// Usage is the token counts the response reported (Describer).
func (x *exchangeState) Usage() (input, output int64, ok bool) {
	return x.usage.input, x.usage.output, x.usage.ok
}

// noteUsageAt reads the usage member at path of doc (noteUsage), when
// ctx's request is traced.
func (x *exchangeState) noteUsageAt(ctx context.Context, doc []byte, path string) {
	if !tracing.Recording(ctx) {
		return
	}
	if u := gjson.GetBytes(doc, path); u.IsObject() {
		x.noteUsage(ctx, []byte(u.Raw))
	}
}

// noteUsage reads a usage member's token counts, under either
// vocabulary (prompt_tokens / completion_tokens, input_tokens /
// output_tokens), when ctx's request is traced. A later member replaces
// the counts it carries (a final chunk's totals).
func (x *exchangeState) noteUsage(ctx context.Context, raw []byte) {
	if len(raw) == 0 || !tracing.Recording(ctx) {
		return
	}
	for _, k := range [...]struct {
		key string
		dst *int64
	}{
		{"prompt_tokens", &x.usage.input}, {"input_tokens", &x.usage.input},
		{"completion_tokens", &x.usage.output}, {"output_tokens", &x.usage.output},
	} {
		if v := gjson.GetBytes(raw, k.key); v.Type == gjson.Number {
			*k.dst = v.Int()
			x.usage.ok = true
		}
	}
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
