package hooks

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// nonMatching builds n pre_tool_use hooks whose regex matchers reject the
// benchmark's tool name.
func nonMatching(n int) []Spec {
	specs := make([]Spec, n)
	for i := range specs {
		specs[i] = Spec{ID: fmt.Sprintf("h%d", i), Event: PreToolUse, Trusted: true, Priority: i % 7,
			Matcher: fmt.Sprintf("^(tool_%d|exec_%d|shell_[a-z]+%d)$", i, i, i),
			Handler: HandlerSpec{Type: "builtin", Name: "fixed", With: map[string]any{"result": map[string]any{"decision": "block"}}}}
	}
	return specs
}

// BenchmarkFilter100NonMatching: target < 2 µs and 0 allocs once the tool
// name has been seen.
func BenchmarkFilter100NonMatching(b *testing.B) {
	e, _ := engCompile(b, newEngRegistry(b), nonMatching(100), Options{})
	ev := toolEvent("read_file", map[string]any{"path": "/tmp/x"})
	ctx := context.Background()
	e.Dispatch(ctx, ev) // first call for the name fills the cache
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if out := e.Dispatch(ctx, ev); out.Decision != Allow {
			b.Fatal(out.Decision)
		}
	}
}

func TestFilterAllocatesNothing(t *testing.T) {
	e, _ := engCompile(t, newEngRegistry(t), nonMatching(100), Options{})
	ev := toolEvent("read_file", nil)
	ctx := context.Background()
	e.Dispatch(ctx, ev)
	if n := testing.AllocsPerRun(1000, func() { e.Dispatch(ctx, ev) }); n != 0 {
		t.Fatalf("%v allocations per filtered dispatch, want 0", n)
	}
	if n := testing.AllocsPerRun(1000, func() { e.Wants(ev) }); n != 0 {
		t.Fatalf("%v allocations per Wants, want 0", n)
	}
}

// BenchmarkCELCondition: one simple condition; target < 1 µs.
func BenchmarkCELCondition(b *testing.B) {
	c, err := compileCondition(`has(toolInput.command) && toolInput.command.contains('rm -rf')`, DefaultCELCostLimit)
	if err != nil {
		b.Fatal(err)
	}
	ev := toolEvent("exec", map[string]any{"command": "ls -la /tmp", "cwd": "/home"})
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := c.eval(ev); err != nil || ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkScriptHook: one pooled script call through the handler;
// target < 20 µs.
func BenchmarkScriptHook(b *testing.B) {
	h := engScript(b, `function handle(event) {
  var cmd = event.toolInput.command || '';
  if (cmd.indexOf('rm -rf') >= 0) { return { decision: 'block', reason: 'destructive command' }; }
  return { decision: 'allow' };
}`, 8)
	ev := toolEvent("exec", map[string]any{"command": "ls -la /tmp", "cwd": "/home"})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res, err := h.Handle(ctx, ev); err != nil || res.Decision != Allow {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkDispatchScriptHook: the same script as a hook through Dispatch
// (matcher, timeout context, record).
func BenchmarkDispatchScriptHook(b *testing.B) {
	e, err := Compile([]Spec{{ID: "s", Event: PreToolUse, Trusted: true, Matcher: "^exec$", Handler: HandlerSpec{Type: "script", Source: `function handle(event) {
  var cmd = event.toolInput.command || '';
  return cmd.indexOf('rm -rf') >= 0 ? { decision: 'block', reason: 'destructive' } : { decision: 'allow' };
}`}}}, Deps{}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ev := toolEvent("exec", map[string]any{"command": "ls -la /tmp"})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if out := e.Dispatch(ctx, ev); out.Decision != Allow {
			b.Fatal(out)
		}
	}
}

// BenchmarkScriptHookAfterIdle is BenchmarkScriptHook with the process
// idle for 200 µs before each call, as a held tool call's hook runs after
// a stream's quiet spell: on shared cores the caches and the scheduler's
// threads are cold then, and a call costs several times its warm time.
// Reported as call-p50-us and call-p90-us.
func BenchmarkScriptHookAfterIdle(b *testing.B) {
	h := engScript(b, `function handle(event) {
  var cmd = event.toolInput.command || '';
  if (cmd.indexOf('rm -rf') >= 0) { return { decision: 'block', reason: 'destructive command' }; }
  return { decision: 'allow' };
}`, 8)
	ev := toolEvent("exec", map[string]any{"command": "ls -la /tmp", "cwd": "/home"})
	ctx := context.Background()
	var took []float64
	for b.Loop() {
		b.StopTimer()
		time.Sleep(200 * time.Microsecond)
		b.StartTimer()
		start := time.Now()
		if res, err := h.Handle(ctx, ev); err != nil || res.Decision != Allow {
			b.Fatal(res, err)
		}
		took = append(took, float64(time.Since(start).Nanoseconds())/1000)
	}
	slices.Sort(took)
	b.ReportMetric(took[len(took)/2], "call-p50-us")
	b.ReportMetric(took[len(took)*9/10], "call-p90-us")
}
