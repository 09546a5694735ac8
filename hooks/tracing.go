package hooks

import (
	"context"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookgate/hookgate/internal/tracing"
)

// startHookSpan starts the span of one hook execution under the span of
// ctx (a held tool call's, or the request's), when that one records. Its
// attributes name the hook, the event and the tool: never the tool's
// input, a prompt or a result.
func startHookSpan(ctx context.Context, h *hook, ev *Event) (context.Context, trace.Span) {
	if !tracing.Recording(ctx) {
		return ctx, nil
	}
	ctx, sp := tracing.Child(ctx, "hook "+h.id, trace.SpanKindInternal)
	sp.SetAttributes(
		tracing.HookID.String(h.id),
		tracing.HookEvent.String(string(h.event)),
		tracing.HookClass.String(h.class.String()),
	)
	if ev.ToolName != "" {
		sp.SetAttributes(semconv.GenAIToolName(ev.ToolName))
	}
	if ev.ToolCallID != "" {
		sp.SetAttributes(semconv.GenAIToolCallID(ev.ToolCallID))
	}
	return ctx, sp
}

// endHookSpan ends a hook's span with what the hook decided and what the
// engine applied. A failure's status names its kind, not its cause (a
// cause may quote the hook's input).
func endHookSpan(sp trace.Span, x *Execution) {
	if sp == nil {
		return
	}
	sp.SetAttributes(tracing.Decision.String(string(x.Decision)), tracing.DecisionApplied.String(string(x.Applied)))
	if x.Decision == Error || x.Decision == Timeout {
		sp.SetStatus(codes.Error, string(x.Decision))
	}
	sp.End()
}

// spanOf is the recording span of ctx, for observers that run after the
// caller has gone on; nil when none records.
func spanOf(ctx context.Context) trace.Span {
	if sp := trace.SpanFromContext(ctx); sp.IsRecording() {
		return sp
	}
	return nil
}
