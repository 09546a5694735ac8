package tracing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Attribute keys of hookgate's own (the GenAI ones come from semconv).
const (
	HookID    = attribute.Key("hookgate.hook.id")
	HookEvent = attribute.Key("hookgate.hook.event")
	Decision  = attribute.Key("hookgate.decision")
	// DecisionApplied is what the engine did with a hook's decision.
	DecisionApplied = attribute.Key("hookgate.decision.applied")
	Upstream        = attribute.Key("hookgate.upstream")
	HeldOutcome     = attribute.Key("hookgate.held.outcome")
	HookClass       = attribute.Key("hookgate.hook.class")
	// GenAISystem is the older name of gen_ai.provider.name, still read
	// by many backends.
	GenAISystem = attribute.Key("gen_ai.system")
)

// Recording reports whether ctx carries a span that records: only then
// is a child worth building.
func Recording(ctx context.Context) bool {
	return trace.SpanFromContext(ctx).IsRecording()
}

// Child starts a span under the recording span of ctx, with the tracer
// that started that one. Without one it returns ctx and nil, and starts
// nothing.
func Child(ctx context.Context, name string, kind trace.SpanKind) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, nil
	}
	return parent.TracerProvider().Tracer(Scope).Start(ctx, name, trace.WithSpanKind(kind))
}
