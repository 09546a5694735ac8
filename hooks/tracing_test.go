package hooks

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Each hook that runs gets a span under the caller's, with its id, event,
// tool and decision; a hook the chain never reached gets none, and an
// untraced dispatch starts none.
func TestDispatchTracesEachHookExecution(t *testing.T) {
	reg := newEngRegistry(t)
	e, _ := engCompile(t, reg, []Spec{
		counterSpec("before", PreToolUse, 1, ""),
		counterSpec("blocker", PreToolUse, 2, Block),
		counterSpec("after", PreToolUse, 3, ""),
	}, Options{})
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	if out := e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": "SECRET-ARG"})); out.Decision != Block {
		t.Fatalf("untraced: %+v", out)
	}
	if n := len(exp.GetSpans()); n != 0 {
		t.Fatalf("an untraced dispatch exported %d spans", n)
	}

	ctx, parent := tp.Tracer("test").Start(context.Background(), "held call")
	out := e.Dispatch(ctx, toolEvent("exec", map[string]any{"command": "SECRET-ARG"}))
	parent.End()
	if out.Decision != Block {
		t.Fatalf("traced: %+v", out)
	}
	spans := exp.GetSpans()
	got := map[string]map[string]string{}
	for _, s := range spans[:len(spans)-1] {
		if s.Parent.SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %q is not under the caller's span", s.Name)
		}
		attrs := map[string]string{}
		for _, a := range s.Attributes {
			attrs[string(a.Key)] = a.Value.String()
			if a.Value.String() == "SECRET-ARG" {
				t.Errorf("span %q carries the tool's input", s.Name)
			}
		}
		got[s.Name] = attrs
	}
	if len(got) != 2 || got["hook before"] == nil || got["hook blocker"] == nil {
		t.Fatalf("hook spans %v, want before and blocker only", got)
	}
	for name, want := range map[string]map[string]string{
		"hook before":  {"hookgate.hook.id": "before", "hookgate.decision": "allow", "hookgate.decision.applied": "allow"},
		"hook blocker": {"hookgate.hook.id": "blocker", "hookgate.decision": "block", "hookgate.decision.applied": "block"},
	} {
		for k, v := range want {
			if got[name][k] != v {
				t.Errorf("%s: %s = %q, want %q", name, k, got[name][k], v)
			}
		}
		if got[name]["hookgate.hook.event"] != "pre_tool_use" || got[name]["gen_ai.tool.name"] != "exec" || got[name]["gen_ai.tool.call.id"] != "call-1" {
			t.Errorf("%s: %v", name, got[name])
		}
	}
}
