package hooks

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/admission"
)

// Over limits.max_concurrent_hooks an execution is refused after the
// limiter's short wait and fails closed, even for on_timeout: allow; the
// slot comes back when the running hook ends, and YieldSlot gives it back
// early.
func TestEngineLimitRefusesOverTheBoundAndFailsClosed(t *testing.T) {
	reg := newEngRegistry(t)
	gated := engSpec("slow", PreToolUse, "gate", map[string]any{"name": "g"})
	lenient := engSpec("lenient", PreToolUse, "counter", map[string]any{"name": "c"})
	lenient.Matcher, gated.Matcher = "^other$", "^exec$"
	lenient.OnTimeout = "allow"
	e, _ := engCompile(t, reg, []Spec{gated, lenient}, Options{})
	lim := admission.New("hooks", 1, 50*time.Millisecond, nil)
	e.LimitExecutions(lim)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); e.Dispatch(context.Background(), toolEvent("exec", nil)) }()
	for reg.counter("g-entered").Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	out := e.Dispatch(context.Background(), toolEvent("other", nil))
	var over *OverloadError
	if out.Decision != Block || !errors.As(out.Cause, &over) || over.Limit != "limits.max_concurrent_hooks" {
		t.Fatalf("over the bound: %+v", out)
	}
	if !strings.Contains(out.Reason, "limits.max_concurrent_hooks") || reg.counter("c").Load() != 0 {
		t.Fatalf("note %q, the refused hook ran %d times", out.Reason, reg.counter("c").Load())
	}
	close(reg.gate("g"))
	wg.Wait()
	if lim.InUse() != 0 {
		t.Fatalf("%d slots still held", lim.InUse())
	}
	if out := e.Dispatch(context.Background(), toolEvent("other", nil)); out.Decision != Allow {
		t.Fatalf("after the slot came back: %+v", out)
	}
}

func TestYieldSlotGivesTheSlotBackOnce(t *testing.T) {
	lim := admission.New("hooks", 1, 0, nil)
	reg := newEngRegistry(t)
	if err := reg.Register("yield", BuiltinFactoryFunc(func(BuiltinConfig) (Handler, error) {
		return handlerFunc(func(ctx context.Context, _ *Event) (Result, error) {
			YieldSlot(ctx)
			YieldSlot(ctx)
			if lim.InUse() != 0 {
				return Result{}, errors.New("slot still held after YieldSlot")
			}
			return Result{Decision: Allow}, nil
		}), nil
	})); err != nil {
		t.Fatal(err)
	}
	e, _ := engCompile(t, reg, []Spec{engSpec("y", PreToolUse, "yield", nil)}, Options{})
	e.LimitExecutions(lim)
	if out := e.Dispatch(context.Background(), toolEvent("exec", nil)); out.Decision != Allow {
		t.Fatalf("%+v", out)
	}
	if lim.InUse() != 0 {
		t.Fatalf("in use %d after the execution", lim.InUse())
	}
	YieldSlot(context.Background()) // outside an execution: nothing
}
