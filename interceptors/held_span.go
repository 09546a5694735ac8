package interceptors

import (
	"context"

	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/tracing"
)

// A held tool call's span runs from the call's first delta to its release
// (emitted as it came or rewritten) or its block, under the request's
// span that the proxy put in the stream's context. Its hooks' spans hang
// under it. It names the tool and the call, and says what was decided;
// never the arguments, nor a block's reason (which may quote them). A
// request that is not traced starts none: every helper takes a nil span.

// outcomeAbandoned ends the span of a call that was never emitted: the
// stream was truncated, failed, retried or its client left.
const outcomeAbandoned = "abandoned"

// startHeldSpan starts a held call's span; nil when ctx records none.
func startHeldSpan(ctx context.Context) trace.Span {
	_, sp := tracing.Child(ctx, "hold tool call", trace.SpanKindInternal)
	return sp
}

// heldContext is ctx carrying the call's span, for its hooks.
func heldContext(ctx context.Context, sp trace.Span) context.Context {
	if sp == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, sp)
}

// nameHeldSpan names the tool and the call once the call is complete.
func nameHeldSpan(sp trace.Span, tool, callID string) {
	if sp == nil {
		return
	}
	sp.SetName("hold " + tool)
	sp.SetAttributes(semconv.GenAIToolName(tool))
	if callID != "" {
		sp.SetAttributes(semconv.GenAIToolCallID(callID))
	}
}

// endHeldSpan ends a call's span with its verdict: the decision, and the
// hook that blocked it.
func endHeldSpan(sp trace.Span, v *verdict) {
	if sp == nil {
		return
	}
	sp.SetAttributes(tracing.Decision.String(string(v.Decision)), tracing.HeldOutcome.String("released"))
	if v.Decision == hooks.Block {
		sp.SetAttributes(tracing.HookID.String(v.HookID), tracing.HeldOutcome.String("blocked"))
	}
	sp.End()
}

// abandonHeldSpan ends the span of a call that was never emitted.
func abandonHeldSpan(sp trace.Span) {
	if sp == nil {
		return
	}
	sp.SetAttributes(tracing.HeldOutcome.String(outcomeAbandoned))
	sp.End()
}
