package hooks

import (
	"errors"
	"fmt"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
)

// Memory budgets of script executions.
//
// goja keeps no account of the memory a script allocates and has no way to
// bound it (its Runtime offers Interrupt and SetMaxCallStackSize, nothing
// more), so hookgate watches the process heap instead: one shared
// goroutine samples the heap's object bytes (runtime/metrics, a few
// hundred nanoseconds a read) every scriptMemoryTick while any script
// runs, and interrupts a script whose run coincides with heap growth over
// its budget. The caller is answered at once, blocked; the runtime is
// discarded when it returns, never reused.
//
// What this measures, and so what it cannot promise:
//   - Growth is the process heap's, not the script's own: goja cannot tell
//     whose allocation is whose. A script is charged with the growth from
//     the lowest heap sampled since its start (the start itself, or the
//     end of a GC cycle during its run, so that garbage collected
//     meanwhile, such as an earlier bomb's, does not hide its growth).
//     When several scripts are over budget at once the one running longest
//     is interrupted (it has seen the most growth, and a memory bomb needs
//     time to grow), and every other running script's starting point is
//     moved up to the heap at that moment, so the bomb's memory (garbage
//     until the next GC) is never charged to them as well. A stopped
//     script still inside its last native operation is charged once more,
//     for that operation's allocation.
//     A benign script that started before a bomb and is still running when
//     the bomb crosses its budget can be interrupted in the bomb's place;
//     the bomb is then caught one budget later. A hook that has overrun its
//     budget once is a suspect from then on and is interrupted first, so a
//     tenant that bombs again and again is the one that pays. Short scripts (micro- to
//     milliseconds, the usual hook) are practically never the longest
//     running, unless the whole process stalls with them (next points).
//   - A script that runs long (across a whole GC cycle) on a busy process
//     is charged with other goroutines' allocations too: garbage
//     accumulates between GC cycles up to about the live heap (GOGC=100).
//     While the live heap is below the budget that cannot trip a script on
//     its own; on a process whose live heap is larger, a benign script
//     that runs for seconds can be interrupted. Hook scripts that run for
//     micro- to milliseconds are not exposed to this.
//   - The heap is sampled, not metered: between two samples a script can
//     grow by what it allocates in one tick (and a single native operation,
//     such as a string concatenation, is not interrupted until it returns).
//     A doubling string is caught within one or two doublings of its
//     budget, so the overshoot is a small multiple of the budget, never
//     unbounded.
//   - A goroutine busy in one long native copy delays the garbage
//     collector's stop-the-world phases and its stack scan, and goroutines
//     that allocate meanwhile are parked in GC assists, for the whole
//     process until the copy ends; the budget keeps such copies to
//     budget-sized ones (tens of milliseconds; far longer under the race
//     detector or on an overloaded machine). The sampler allocates nothing
//     on its way to an interrupt, so such a stall cannot park it.
const (
	// DefaultScriptMaxMemory is the budget of a script execution when the
	// wiring sets none (config's limits.script_max_memory default).
	DefaultScriptMaxMemory = 64 << 20
	// minScriptMaxMemory is the smallest budget a hook may ask for: below
	// it, the heap's ordinary noise would interrupt any script.
	minScriptMaxMemory = 1 << 20
	// scriptMemoryTick is how often the heap is sampled while scripts run.
	scriptMemoryTick = 2 * time.Millisecond
	// scriptMemoryIdleTicks is how many ticks without a running script the
	// sampler waits before it stops (it starts again with the next script).
	scriptMemoryIdleTicks = 50
)

// ErrScriptMemory is matched (errors.Is) by the error of a script call
// whose memory budget tripped.
var ErrScriptMemory = errors.New("script memory budget exceeded")

// ScriptMemoryError is the error of a script interrupted by its memory
// budget. Its text leads with "script memory budget exceeded", which is
// what the audit row's error shows.
type ScriptMemoryError struct {
	// Budget is the execution's budget; Grew is the heap growth charged to
	// it when it was interrupted (bytes).
	Budget, Grew uint64
}

func (e *ScriptMemoryError) Error() string {
	return fmt.Sprintf("script memory budget exceeded: the heap grew by %s during the call, over its budget of %s",
		formatBytes(e.Grew), formatBytes(e.Budget))
}

// Is makes errors.Is(err, ErrScriptMemory) true.
func (e *ScriptMemoryError) Is(target error) bool { return target == ErrScriptMemory }

// scriptBudget returns the memory budget of the entry's script: the
// handler's max_memory, which may be lower than the limit (the operator's
// limits.script_max_memory, deps.ScriptMaxMemory) but never higher: a
// higher value is a load error, so that neither a tenant's file nor an
// operator's typo can raise the limit, and the file says what applies.
func scriptBudget(hs *HandlerSpec, deps Deps) (uint64, error) {
	limit := uint64(DefaultScriptMaxMemory)
	if deps.ScriptMaxMemory > 0 {
		limit = uint64(deps.ScriptMaxMemory)
	}
	if hs.MaxMemory == "" {
		return limit, nil
	}
	n, err := parseScriptMemory(hs.MaxMemory)
	if err != nil {
		return 0, fmt.Errorf("handler.max_memory: %w", err)
	}
	switch {
	case n < minScriptMaxMemory:
		return 0, fmt.Errorf("handler.max_memory: %s is below the smallest budget, %s", formatBytes(n), formatBytes(minScriptMaxMemory))
	case n > limit:
		return 0, fmt.Errorf("handler.max_memory: %s exceeds limits.script_max_memory (%s); a hook may ask for less, never more", formatBytes(n), formatBytes(limit))
	}
	return n, nil
}

// parseScriptMemory reads "16MiB", "512KiB", "16MB" or a plain number of
// bytes, as config's sizes are written.
func parseScriptMemory(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	mult := uint64(1)
	for _, u := range [...]struct {
		suffix string
		mult   uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q: want a number with an optional unit (KiB, MiB, GiB)", s)
	}
	return n * mult, nil
}

func formatBytes(n uint64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatUint(n>>20, 10) + " MiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	default:
		return strconv.FormatUint(n, 10) + " bytes"
	}
}

// scriptMemoryWatch is the watchdog's record of one running script
// execution. It is embedded in scriptCall, so watching a call allocates
// nothing.
type scriptMemoryWatch struct {
	// Set by watch, read by the sampler, under the watchdog's lock.
	rt     *goja.Runtime
	budget uint64
	base   uint64 // growth counts from here: the lowest heap seen since start, or since growth was charged to another call
	seq    uint64 // start order
	slot   int    // index in the watchdog's list
	// suspect is true when the call's hook has overrun its budget before:
	// among calls over budget at once, a suspect is interrupted first.
	suspect bool
	// spent is true once a call that was already stopped (over budget or
	// abandoned at its deadline) has been charged with one more overrun:
	// the native operation it was inside when it was stopped. It is not
	// charged again, so that a runtime stuck for long cannot shield the
	// calls that come after it.
	spent bool
	// state is the call's: 0 running, 1 finished, 2 abandoned at the
	// deadline, 3 interrupted by its budget (set only by the sampler).
	state atomic.Int32
	// over receives one token when the budget trips, so that the waiting
	// caller answers without waiting for the runtime.
	over chan struct{}
	// memErr is set before state becomes callOverBudget and read only
	// after seeing it. A value, so that the sampler allocates nothing: a
	// goroutine that allocates while a bomb holds up the garbage collector
	// can be parked in a GC assist for as long.
	memErr ScriptMemoryError
}

// Call states shared by the handler and the watchdog.
const (
	callRunning int32 = iota
	callFinished
	callAbandoned
	callOverBudget
)

// scriptMemoryWatchdog samples the heap for every running script.
type scriptMemoryWatchdog struct {
	mu      sync.Mutex
	calls   []*scriptMemoryWatch
	seq     uint64
	running bool          // the sampler goroutine is on
	last    atomic.Uint64 // the latest sample
	tick    time.Duration
}

// scriptMemory is the process's one watchdog: the heap is the process's.
var scriptMemory = &scriptMemoryWatchdog{tick: scriptMemoryTick}

func readHeapObjects(s []metrics.Sample) uint64 {
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

func heapSample() []metrics.Sample {
	return []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
}

// watch starts charging heap growth to the call running on rt.
func (w *scriptMemoryWatchdog) watch(c *scriptMemoryWatch, rt *goja.Runtime, budget uint64, suspect bool) {
	w.mu.Lock()
	if !w.running {
		w.running = true
		w.last.Store(readHeapObjects(heapSample()))
		go w.sample()
	}
	w.seq++
	c.rt, c.budget, c.base, c.seq, c.slot, c.suspect = rt, budget, w.last.Load(), w.seq, len(w.calls), suspect
	w.calls = append(w.calls, c)
	w.mu.Unlock()
}

// unwatch stops watching c. Once it returns the watchdog no longer touches
// c; if the budget tripped, c's state is callOverBudget.
func (w *scriptMemoryWatchdog) unwatch(c *scriptMemoryWatch) {
	w.mu.Lock()
	last := len(w.calls) - 1
	moved := w.calls[last]
	w.calls[c.slot], moved.slot = moved, c.slot
	w.calls[last] = nil
	w.calls = w.calls[:last]
	c.rt = nil
	w.mu.Unlock()
}

// sample runs while scripts run, and a little longer.
func (w *scriptMemoryWatchdog) sample() {
	s := heapSample()
	t := time.NewTicker(w.tick)
	defer t.Stop()
	idle := 0
	for range t.C {
		h := readHeapObjects(s)
		w.last.Store(h)
		w.mu.Lock()
		if len(w.calls) == 0 {
			if idle++; idle >= scriptMemoryIdleTicks {
				w.running = false
				w.mu.Unlock()
				return
			}
			w.mu.Unlock()
			continue
		}
		idle = 0
		w.check(h)
		w.mu.Unlock()
	}
}

// check interrupts the longest-running call over its budget at heap h, and
// charges the growth so far to it alone. A call already stopped (over
// budget, or abandoned at its deadline) but still inside one native
// operation is a candidate once more (charged, not interrupted again): the
// allocation of that operation must not be charged to others.
// Called with w.mu held.
func (w *scriptMemoryWatchdog) check(h uint64) {
	var victim *scriptMemoryWatch
	for _, c := range w.calls {
		c.base = min(c.base, h)
		if h > c.base && h-c.base > c.budget && !c.spent && (victim == nil || c.before(victim)) {
			victim = c
		}
	}
	if victim == nil {
		return
	}
	if victim.state.Load() != callRunning {
		victim.spent = true
	}
	// Interrupting a runtime and signalling a buffered channel allocate
	// nothing.
	if victim.state.Load() == callRunning {
		victim.memErr = ScriptMemoryError{Budget: victim.budget, Grew: h - victim.base}
		if victim.state.CompareAndSwap(callRunning, callOverBudget) {
			victim.rt.Interrupt(&victim.memErr)
			select {
			case victim.over <- struct{}{}:
			default:
			}
		}
	}
	for _, c := range w.calls {
		c.base = max(c.base, h)
	}
}

// before orders the candidates for an interrupt: a suspect first, then the
// longest running.
func (c *scriptMemoryWatch) before(o *scriptMemoryWatch) bool {
	if c.suspect != o.suspect {
		return c.suspect
	}
	return c.seq < o.seq
}

// watched reports how many calls are watched, for tests.
func (w *scriptMemoryWatchdog) watched() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.calls)
}
