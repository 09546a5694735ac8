package hooks

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// scriptBomb doubles a string 29 times: 512 Mi characters, about 1 GB of
// heap with its halves, if nothing stops it.
const scriptBomb = `function handle(event) { var s = 'x'; for (var i = 0; i < 29; i++) { s += s; } return { decision: 'allow', reason: '' + s.length }; }`

// heapPeak polls the process heap until stop is called and reports the
// peak growth over the heap at its start. It reads runtime/metrics, which
// needs no stop-the-world (a goroutine in one long native copy delays
// those), and runtime.ReadMemStats' HeapInuse, and keeps the larger.
func heapPeak(t *testing.T) (stop func() uint64) {
	t.Helper()
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := max(read(), ms.HeapInuse)
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	note := func(v uint64) {
		for {
			p := peak.Load()
			if v <= p || peak.CompareAndSwap(p, v) {
				return
			}
		}
	}
	// Tickers, not time.After: a goroutine that allocates while a bomb
	// holds up the garbage collector is parked in a GC assist.
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				note(read())
			}
		}
	}()
	go func() {
		defer wg.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				runtime.ReadMemStats(&ms)
				note(ms.HeapInuse)
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		if p := peak.Load(); p > base {
			return p - base
		}
		return 0
	}
}

// waitRuntimesQuiet waits until no script execution is watched, so that a
// bomb's runtime, still finishing its last native copy after its caller
// was answered, does not run into the next test.
func waitRuntimesQuiet(t *testing.T) {
	t.Helper()
	waitRuntimesDone(t)
	runtime.GC()
}

func waitRuntimesDone(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for scriptMemory.watched() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d script executions still running", scriptMemory.watched())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestScriptMemoryBombBlockedWithinBudget(t *testing.T) {
	engNoLeaks(t)
	const timeout = 5 * time.Second
	rec := &engRecorder{}
	e, err := Compile([]Spec{{ID: "bomb", Event: PreToolUse, Origin: "tenants/acme/hooks.yaml", Scope: "tenant:acme", TimeoutMS: int(timeout / time.Millisecond),
		Handler: HandlerSpec{Type: "script", Source: scriptBomb}}}, Deps{}, Options{Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	defer waitRuntimesQuiet(t)

	peak := heapPeak(t)
	start := time.Now()
	ev := toolEvent("exec", map[string]any{"command": "ls"})
	ev.Tenant = "acme"
	out := e.Dispatch(context.Background(), ev)
	took := time.Since(start)
	waitRuntimesDone(t) // the heap peak includes what the runtime did after the answer
	grew := peak()

	if out.Decision != Block || out.HookID != "bomb" || !errors.Is(out.Cause, ErrScriptMemory) {
		t.Errorf("outcome: %+v (cause %v), want a block by bomb for its memory budget", out.Decision, out.Cause)
	}
	// Generous for a loaded 2-core machine; unbounded, the bomb answers
	// only after its whole gigabyte has been copied.
	if took > timeout+2*time.Second {
		t.Errorf("answered after %s, past the %s deadline", took, timeout)
	}
	if grew > 512<<20 {
		t.Errorf("heap grew by %d MiB, want a bound near the 64 MiB budget (well under 1 GB)", grew>>20)
	}
	xs := rec.executions()
	if len(xs) != 1 {
		t.Fatalf("executions: %+v", xs)
	}
	x := xs[0]
	if x.Decision != Error || x.Applied != Block || !strings.HasPrefix(x.Cause.Error(), "script memory budget exceeded") {
		t.Errorf("execution: decision %s applied %s cause %v, want error/block with the budget's reason", x.Decision, x.Applied, x.Cause)
	}
	if x.Duration <= 0 || x.Duration > took {
		t.Errorf("execution duration %s, want the call's real duration (at most %s)", x.Duration, took)
	}
	t.Logf("answered after %s, heap peak +%d MiB: %v", took, grew>>20, x.Cause)
}

// TestScriptMemoryBombBesideBenignScripts runs one tenant's memory bomb
// three times while eight other hooks' scripts are called in a loop: the
// bomb is stopped each time, and not one benign call fails or times out.
func TestScriptMemoryBombBesideBenignScripts(t *testing.T) {
	engNoLeaks(t)
	const timeout = 5 * time.Second
	bomb, err := newScriptHandlerN(&Spec{ID: "bomb", Handler: HandlerSpec{Type: "script", Source: scriptBomb}}, Deps{ScriptMaxMemory: bombBesideBenignLimit}, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bomb.Close() })
	benign := make([]*scriptHandler, 8)
	for i := range benign {
		benign[i] = engScript(t, fmt.Sprintf(`function handle(event) {
  var parts = [];
  for (var i = 0; i < 50; i++) { parts.push({ n: i, cmd: event.toolInput.command + ' #' + i + ' tenant-%d' }); }
  var text = JSON.stringify(parts);
  return text.indexOf('rm -rf') >= 0 ? { decision: 'block', reason: 'no' } : { decision: 'allow', reason: 'ok ' + text.length };
}`, i), 4)
	}
	defer waitRuntimesQuiet(t)

	stop := make(chan struct{})
	var (
		wg       sync.WaitGroup
		calls    atomic.Int64
		failures atomic.Int64
		firstErr atomic.Value
	)
	for i, h := range benign {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ev := toolEvent("exec", map[string]any{"command": fmt.Sprintf("ls /srv/%d", i)})
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, _, err := runScript(t, h, timeout, ev)
				calls.Add(1)
				if err != nil || res.Decision != Allow {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("hook %d: %v %v", i, res.Decision, err))
				}
				time.Sleep(time.Duration(i%3) * time.Millisecond)
			}
		}()
	}
	peak := heapPeak(t)
	time.Sleep(50 * time.Millisecond) // the benign loops are under way
	for round := range 3 {
		res, took, err := runScript(t, bomb, timeout, toolEvent("exec", nil))
		if !errors.Is(err, ErrScriptMemory) {
			t.Errorf("bomb round %d: %+v %v, want the memory budget's error", round, res, err)
		}
		if took > timeout+2*time.Second {
			t.Errorf("bomb round %d answered after %s", round, took)
		}
		// The bomb's runtime finishes its last native copy on its own
		// after the answer; the next round starts once it has.
		for deadline := time.Now().Add(30 * time.Second); len(bomb.slots) > len(bomb.idle) && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	close(stop)
	wg.Wait()
	waitRuntimesDone(t)
	grew := peak()
	if n := failures.Load(); n > 0 {
		t.Errorf("%d of %d benign calls failed beside the bomb; first: %v", n, calls.Load(), firstErr.Load())
	}
	if calls.Load() < 8 {
		t.Errorf("only %d benign calls ran", calls.Load())
	}
	if grew > 768<<20 {
		t.Errorf("heap grew by %d MiB beside the bombs", grew>>20)
	}
	t.Logf("%d benign calls, heap peak +%d MiB", calls.Load(), grew>>20)
}

func TestScriptMaxMemory(t *testing.T) {
	for _, tc := range []struct {
		name      string
		limit     int64
		maxMemory string
		trusted   bool
		want      uint64
		err       string
	}{
		{name: "default limit", want: DefaultScriptMaxMemory},
		{name: "operator limit", limit: 32 << 20, want: 32 << 20},
		{name: "lower asked", limit: 32 << 20, maxMemory: "16MiB", want: 16 << 20},
		{name: "equal asked", maxMemory: "64MiB", want: 64 << 20},
		{name: "decimal unit", maxMemory: "20MB", want: 20e6},
		{name: "higher asked by a tenant", maxMemory: "65MiB", err: "exceeds limits.script_max_memory (64 MiB)"},
		{name: "higher asked by the operator", trusted: true, limit: 32 << 20, maxMemory: "1GiB", err: "exceeds limits.script_max_memory (32 MiB)"},
		{name: "too small", maxMemory: "512KiB", err: "below the smallest budget"},
		{name: "junk", maxMemory: "lots", err: "invalid size"},
		{name: "negative", maxMemory: "-1MiB", err: "invalid size"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := Spec{ID: "m", Event: PreToolUse, Trusted: tc.trusted, Scope: "tenant:acme",
				Handler: HandlerSpec{Type: "script", MaxMemory: tc.maxMemory, Source: `function handle(e) { return {decision: 'allow'} }`}}
			e, err := Compile([]Spec{spec}, Deps{ScriptMaxMemory: tc.limit}, Options{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "max_memory") {
					if e != nil {
						e.Close()
					}
					t.Fatalf("err = %v, want a load error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if got := e.hooks[0].handler.(*scriptHandler).budget; got != tc.want {
				t.Errorf("budget %d, want %d", got, tc.want)
			}
		})
	}
}

// TestScriptMaxMemoryApplies: a script that holds about 24 MiB passes
// under the default budget and is stopped under a hook's 16 MiB.
func TestScriptMaxMemoryApplies(t *testing.T) {
	engNoLeaks(t)
	src := `function handle(event) {
  var keep = [];
  for (var i = 0; i < 24; i++) { keep.push(('' + i).padEnd(1 << 20, '.')); }
  return { decision: 'allow', reason: '' + keep.length };
}`
	for _, tc := range []struct {
		maxMemory string
		overrun   bool
	}{{"", false}, {"16MiB", true}} {
		h, err := newScriptHandler(&Spec{ID: "hold", Handler: HandlerSpec{Type: "script", Source: src, MaxMemory: tc.maxMemory}}, Deps{})
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := runScript(t, h, 30*time.Second, toolEvent("x", nil))
		if got := errors.Is(err, ErrScriptMemory); got != tc.overrun {
			t.Errorf("max_memory %q: %+v %v, want over budget %v", tc.maxMemory, res, err, tc.overrun)
		}
		if !tc.overrun && res.Decision != Allow {
			t.Errorf("max_memory %q: %+v %v", tc.maxMemory, res, err)
		}
		h.Close()
		waitRuntimesQuiet(t)
	}
}

// TestScriptMemoryBombAtTopLevelFailsLoad: the trial run at load time is
// budgeted too.
func TestScriptMemoryBombAtTopLevelFailsLoad(t *testing.T) {
	engNoLeaks(t)
	_, err := newScriptHandler(&Spec{ID: "top", Handler: HandlerSpec{Type: "script", MaxMemory: "16MiB",
		Source: `var s = 'x'; for (var i = 0; i < 29; i++) { s += s; } function handle(e) { return {decision: 'allow'} }`}}, Deps{})
	if !errors.Is(err, ErrScriptMemory) {
		t.Fatalf("load: %v, want the memory budget's error", err)
	}
	waitRuntimesQuiet(t)
}

// BenchmarkScriptMemoryWatch: what the budget adds to every script call
// (registering and unregistering with the shared sampler).
func BenchmarkScriptMemoryWatch(b *testing.B) {
	sb, err := newSandbox()
	if err != nil {
		b.Fatal(err)
	}
	c := newScriptCall()
	b.ReportAllocs()
	for b.Loop() {
		scriptMemory.watch(&c.scriptMemoryWatch, sb.rt, DefaultScriptMaxMemory, false)
		scriptMemory.unwatch(&c.scriptMemoryWatch)
	}
}
