package hooks

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func engScript(t testing.TB, src string, maxVMs int) *scriptHandler {
	t.Helper()
	h, err := newScriptHandlerN(&Spec{ID: "s", Handler: HandlerSpec{Type: "script", Source: src}}, Deps{}, maxVMs)
	if err != nil {
		t.Fatalf("script: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// engNoLeaks checks for leaked goroutines after the test's cleanups (which
// close the handlers) have run.
// The memory watchdog's sampler is the process's, not a test's: it stops
// on its own once no script has run for a while.
func engNoLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	sampler := goleak.IgnoreAnyFunction("github.com/hookgate/hookgate/hooks.(*scriptMemoryWatchdog).sample")
	t.Cleanup(func() { goleak.VerifyNone(t, ignore, sampler) })
}

func runScript(t testing.TB, h Handler, timeout time.Duration, ev *Event) (Result, time.Duration, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	res, err := h.Handle(ctx, ev)
	return res, time.Since(start), err
}

func TestScriptThroughTheEngine(t *testing.T) {
	engNoLeaks(t)
	spec := Spec{ID: "no-rm", Event: PreToolUse, Trusted: true, Matcher: "^exec$", AllowMutation: []string{"toolInput.command"},
		Handler: HandlerSpec{Type: "script", Source: `
function handle(event) {
  var cmd = event.toolInput.command || '';
  if (cmd.indexOf('rm -rf') >= 0) { return { decision: 'block', reason: 'destructive command' }; }
  if (cmd === 'ls') { return { decision: 'rewrite', updatedInput: { command: 'ls -la' }, sideEffects: ['widened ls'] }; }
  return { decision: 'allow', additionalContext: 'checked by ' + event.toolName };
}`}}
	e, err := Compile([]Spec{spec}, Deps{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	out := e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": "rm -rf /"}))
	if out.Decision != Block || out.Reason != "destructive command" {
		t.Fatalf("block: %+v", out)
	}
	out = e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": "ls"}))
	if out.Decision != Rewrite || out.ToolInput["command"] != "ls -la" || out.Executions[0].SideEffects[0] != "widened ls" {
		t.Fatalf("rewrite: %+v", out)
	}
	out = e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": "pwd"}))
	if out.Decision != Allow || out.Context != "checked by exec" {
		t.Fatalf("allow: %+v", out)
	}
}

func TestScriptFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.js"), []byte("function handle(e) { return {decision: 'block', reason: 'from file'} }"), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := Compile([]Spec{{ID: "f", Event: PreToolUse, Trusted: true, Handler: HandlerSpec{Type: "script", File: "p.js"}}}, Deps{BaseDir: dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if out := e.Dispatch(context.Background(), toolEvent("x", nil)); out.Reason != "from file" {
		t.Fatalf("%+v", out)
	}
}

// TestScriptInfiniteLoopFailsClosed: while(true){} is interrupted at the
// deadline, blocks, and its runtime is never reused.
func TestScriptInfiniteLoopFailsClosed(t *testing.T) {
	engNoLeaks(t)
	spec := Spec{ID: "loop", Event: PreToolUse, Trusted: true, TimeoutMS: 300,
		Handler: HandlerSpec{Type: "script", Source: `function handle(e) { if (e.toolName === 'spin') { while (true) {} } return {decision: 'allow'} }`}}
	e, err := Compile([]Spec{spec}, Deps{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	start := time.Now()
	out := e.Dispatch(context.Background(), toolEvent("spin", nil))
	if d := time.Since(start); d > 5*time.Second { // the loop never ends by itself
		t.Fatalf("took %s for a 300 ms timeout", d)
	}
	if out.Decision != Block || out.Executions[0].Decision != Timeout {
		t.Fatalf("%+v", out)
	}
	// The interrupted runtime is replaced in the background; under -race on
	// a loaded machine a build can outlast this hook's 300 ms, which is
	// the build's cost, not what this test is about: wait for the spare.
	waitIdleRuntime(t, e.hooks[0].handler.(*scriptHandler))
	if out := e.Dispatch(context.Background(), toolEvent("ok", nil)); out.Decision != Allow {
		t.Fatalf("next call after an interrupt: %+v", out)
	}
}

// TestScriptRuntimeDiscardedAfterThrowOrInterrupt proves the pool reuses a
// clean runtime and replaces one that threw or was interrupted.
func TestScriptRuntimeDiscardedAfterThrowOrInterrupt(t *testing.T) {
	engNoLeaks(t)
	h := engScript(t, `function handle(e) {
  if (e.toolName === 'throw') { throw new Error('boom'); }
  if (e.toolName === 'spin') { for (;;) {} }
  return {decision: 'allow'};
}`, 1)
	call := func(tool string) error {
		timeout := 5 * time.Second // room for building a replacement runtime under -race
		if tool == "spin" {
			timeout = 100 * time.Millisecond
		}
		_, _, err := runScript(t, h, timeout, &Event{ToolName: tool})
		return err
	}
	if err := call("ok"); err != nil || h.created.Load() != 1 {
		t.Fatalf("ok: %v, created %d", err, h.created.Load())
	}
	if err := call("ok"); err != nil || h.created.Load() != 1 {
		t.Fatalf("a clean runtime was not reused: created %d", h.created.Load())
	}
	if err := call("throw"); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("throw: %v", err)
	}
	if err := call("ok"); err != nil || h.created.Load() != 2 {
		t.Fatalf("runtime that threw was reused: created %d (%v)", h.created.Load(), err)
	}
	if err := call("spin"); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("spin: %v", err)
	}
	if err := call("ok"); err != nil || h.created.Load() != 3 {
		t.Fatalf("interrupted runtime was reused: created %d (%v)", h.created.Load(), err)
	}
}

// TestScriptStateDoesNotLeak runs two calls on the same runtime (pool of
// one): script variables, globals and prototype pollution of the first are
// invisible to the second.
func TestScriptStateDoesNotLeak(t *testing.T) {
	h := engScript(t, `
var calls = 0;
let seen = [];
function handle(e) {
  calls++;
  seen.push(e.toolInput.secret);
  var leaks = [];
  if (calls !== 1) leaks.push('script var ' + calls);
  if (seen.length !== 1) leaks.push('script let');
  if (({}).polluted !== undefined) leaks.push('Object.prototype');
  if ([].polluted !== undefined) leaks.push('Array.prototype');
  if (typeof stash !== 'undefined') leaks.push('implicit global');
  if (globalThis.stash2 !== undefined) leaks.push('globalThis');
  if ('x'.trim !== String.prototype.trim || typeof JSON.parse !== 'function' || JSON.parse('1') !== 1) leaks.push('built-in');
  if (typeof Math.evil !== 'undefined') leaks.push('Math');
  try { Object.prototype.polluted = e.toolInput.secret; } catch (x) {}
  try { Array.prototype.polluted = 1; } catch (x) {}
  try { stash = e.toolInput.secret; } catch (x) {}
  try { globalThis.stash2 = e.toolInput.secret; } catch (x) {}
  try { String.prototype.trim = function () { return 'pwned'; }; } catch (x) {}
  try { JSON.parse = function () { return 'pwned'; }; } catch (x) {}
  try { Math.evil = 1; } catch (x) {}
  try { Object.defineProperty(Object.prototype, 'polluted2', {value: 1}); } catch (x) {}
  try { Object.setPrototypeOf(Object.prototype, {}); } catch (x) {}
  if (({}).polluted2 !== undefined) leaks.push('defineProperty');
  return leaks.length ? {decision: 'block', reason: leaks.join(', ')} : {decision: 'allow'};
}`, 1)
	for i := range 3 {
		res, _, err := runScript(t, h, time.Second, &Event{ToolInput: map[string]any{"secret": "s3cret"}})
		if err != nil || res.Decision != Allow {
			t.Fatalf("call %d: %v %+v", i, err, res)
		}
	}
	if n := h.created.Load(); n != 1 {
		t.Fatalf("calls ran on %d runtimes; the test needs one reused runtime", n)
	}
}

// TestScriptOverridesStillWork: freezing the built-ins must not break
// ordinary code that shadows inherited properties on its own objects.
func TestScriptOverridesStillWork(t *testing.T) {
	h := engScript(t, `'use strict';
class PolicyError extends Error { constructor(m) { super(m); this.name = 'PolicyError'; } }
function handle(e) {
  var o = {}; o.toString = function () { return 'custom'; };
  var err = new PolicyError('x');
  var ok = String(o) === 'custom' && err.name === 'PolicyError' && err instanceof Error &&
    [3, 1, 2].sort().join('-') === '1-2-3' && JSON.stringify({a: [1, {b: 2}]}, null, 1).length > 0 &&
    JSON.stringify({a: 1, b: 2}, ['a']) === '{"a":1}' && Array.from('ab').length === 2 &&
    Math.max.apply(null, [1, 5, 2]) === 5 && 'a-b'.split('-').length === 2 && 'ab'.padStart(4, '*') === '**ab';
  return {decision: ok ? 'allow' : 'block'};
}`, 1)
	res, _, err := runScript(t, h, time.Second, &Event{})
	if err != nil || res.Decision != Allow {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestScriptSandboxEscapes(t *testing.T) {
	engNoLeaks(t)
	for name, body := range map[string]string{
		"constructor chain": `return this.constructor.constructor('return process')();`,
		"require":           `return require('child_process');`,
		"eval":              `return eval('1');`,
		"indirect eval":     `return (0, eval)('let leaked = 1');`,
		"Function global":   `var g = Function('return this')(); return g.process.exit(1);`,
		"timers":            `return setTimeout(function () {}, 1);`,
		"array buffer":      `return new ArrayBuffer(2 ** 31);`,
		"import":            `return import('fs');`,
	} {
		t.Run(name, func(t *testing.T) {
			spec := Spec{ID: "esc", Event: PreToolUse, Trusted: true, TimeoutMS: 500,
				Handler: HandlerSpec{Type: "script", Source: "function handle(e) { var r = (function () { " + body + " }).call(this); return {decision: 'allow', reason: String(r)}; }"}}
			e, err := Compile([]Spec{spec}, Deps{}, Options{})
			if err != nil {
				if name == "import" { // a parse error at load is just as good
					return
				}
				t.Fatal(err)
			}
			defer e.Close()
			out := e.Dispatch(context.Background(), toolEvent("x", nil))
			if out.Decision != Block || out.Executions[0].Decision != Error {
				t.Fatalf("escape %q was not blocked as an error: %+v", name, out)
			}
		})
	}
}

// TestScriptHugeNativeAllocations: goja cannot interrupt a native built-in,
// so the sandbox caps those asked for huge output. Each script must be
// blocked quickly and the heap must not balloon.
func TestScriptHugeNativeAllocations(t *testing.T) {
	engNoLeaks(t)
	for _, body := range []string{
		`'x'.repeat(2 ** 30)`,
		`'x'.padStart(2 ** 30)`,
		`''.padEnd(2 ** 30, 'ab')`,
		`Array(2 ** 30).join('x')`,
		`new Array(2 ** 32 - 1).join()`,
		`String(Array(2 ** 31))`,
		`Array(2 ** 30).fill(0)`,
		`Array.from({length: 2 ** 30})`,
		`Math.max.apply(null, {length: 2 ** 30})`,
		`Reflect.apply(Math.max, null, {length: 2 ** 30})`,
		`[].concat(Object.assign([], {length: 2 ** 31}))`,
		`Math.max(...Object.assign([], {length: 2 ** 31}))`,
		`JSON.stringify(Object.assign([], {length: 2 ** 31}))`,
		`'a'.repeat(2 ** 20).replace(/a/g, 'x'.repeat(2 ** 20))`,
		`'x'.repeat(2 ** 20).padEnd(2 ** 20 + 1).repeat(1000)`,
	} {
		t.Run(body, func(t *testing.T) {
			h := engScript(t, "function handle(e) { var r = "+body+"; return {decision: 'allow', reason: String(r.length)}; }", 2)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			res, took, err := runScript(t, h, 2*time.Second, &Event{})
			if err == nil || res.Decision == Allow {
				t.Fatalf("let through: %+v", res)
			}
			if took > time.Second || !strings.Contains(err.Error(), "exceeds the limit") {
				t.Fatalf("not stopped by a cap: %v after %s", err, took)
			}
			runtime.ReadMemStats(&after)
			if grew := int64(after.TotalAlloc) - int64(before.TotalAlloc); grew > 256<<20 {
				t.Fatalf("allocated %d MiB", grew>>20)
			}
		})
	}
}

func TestScriptResultDecodedStrictly(t *testing.T) {
	for name, ret := range map[string]string{
		"missing decision": `{reason: 'x'}`,
		"unknown decision": `{decision: 'maybe'}`,
		"timeout decision": `{decision: 'timeout'}`,
		"unknown key":      `{decision: 'allow', decison: 'block'}`,
		"wrong type":       `{decision: 'allow', reason: 5}`,
		"input not object": `{decision: 'allow', updatedInput: 'rm -rf /'}`,
		"side effects":     `{decision: 'allow', sideEffects: [1]}`,
		"undefined":        `undefined`,
		"string":           `'allow'`,
		"null decision":    `{decision: null}`,
		"cyclic":           `(function () { var o = {decision: 'allow'}; o.self = o; return o; })()`,
		"bigint":           `{decision: 'allow', reason: 1n}`,
	} {
		t.Run(name, func(t *testing.T) {
			h := engScript(t, "function handle(e) { return "+ret+"; }", 1)
			if _, _, err := runScript(t, h, time.Second, &Event{}); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestScriptEventSizeCapped(t *testing.T) {
	h := engScript(t, "function handle(e) { return {decision: 'allow'}; }", 1)
	_, _, err := runScript(t, h, time.Second, &Event{ToolInput: map[string]any{"blob": strings.Repeat("x", ScriptMaxEventBytes)}})
	if err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("err = %v", err)
	}
}

func TestScriptRecursionBounded(t *testing.T) {
	h := engScript(t, "function f(n) { return f(n + 1) + 1; } function handle(e) { f(0); return {decision: 'allow'}; }", 1)
	_, took, err := runScript(t, h, 2*time.Second, &Event{})
	if err == nil || took > time.Second {
		t.Fatalf("err = %v after %s", err, took)
	}
}

func TestScriptPoolExhausted(t *testing.T) {
	h := engScript(t, "function handle(e) { return {decision: 'allow'}; }", 1)
	vm, err := h.get(context.Background()) // hold the only runtime
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = runScript(t, h, 30*time.Millisecond, &Event{})
	if err == nil || !strings.Contains(err.Error(), "exhausted") {
		t.Fatalf("err = %v", err)
	}
	h.put(vm)
	if _, _, err := runScript(t, h, time.Second, &Event{}); err != nil {
		t.Fatal(err)
	}
}

func TestScriptCannotBreakOutOfItsWrapper(t *testing.T) {
	_, err := newScriptHandlerN(&Spec{ID: "w", Handler: HandlerSpec{Type: "script",
		Source: "}); let shared = []; (function () { function handle(e) { return {decision: 'allow'}; }"}}, Deps{}, 1)
	if err == nil {
		t.Fatal("a script that closes the wrapper was accepted")
	}
}

// waitIdleRuntime waits until a script handler has a clean runtime ready.
func waitIdleRuntime(t *testing.T, h *scriptHandler) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(h.idle) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no clean runtime was built after the interrupt")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestScriptBusyNativeAnswersAtDeadline: a native built-in cannot be
// interrupted (a backtracking regular expression runs to its end whatever
// the deadline), which is why a call runs on its runtime's goroutine: the
// caller still gets its answer at the deadline, and the runtime, busy
// until the built-in returns, is discarded rather than reused.
func TestScriptBusyNativeAnswersAtDeadline(t *testing.T) {
	engNoLeaks(t)
	h := engScript(t, `function handle(e) {
  if (e.toolName === 'busy') { /(a+)+b\1/.test('a'.repeat(21)); }
  return {decision: 'allow'};
}`, 2)
	// How long the built-in runs here, measured on the handler's own path
	// with a generous deadline.
	_, native, err := runScript(t, h, time.Minute, &Event{ToolName: "busy"})
	if err != nil {
		t.Fatal(err)
	}
	timeout := native / 5
	if timeout < time.Millisecond {
		t.Skipf("the built-in took only %s here", native)
	}
	created := h.created.Load()
	res, took, err := runScript(t, h, timeout, &Event{ToolName: "busy"})
	if err == nil || res.Decision == Allow {
		t.Fatalf("a call past its deadline answered %+v, %v", res, err)
	}
	if took > timeout+native/2 {
		t.Fatalf("answered after %s for a %s deadline while the built-in runs %s", took, timeout, native)
	}
	// The spare built at load answers the next call at once.
	waitIdleRuntime(t, h)
	if res, _, err := runScript(t, h, 5*time.Second, &Event{ToolName: "ok"}); err != nil || res.Decision != Allow {
		t.Fatalf("next call: %+v, %v", res, err)
	}
	// The busy runtime is replaced once its built-in returns.
	deadline := time.Now().Add(30 * time.Second)
	for h.created.Load() == created {
		if time.Now().After(deadline) {
			t.Fatal("the busy runtime was not replaced")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestScriptEventKeepsProtoKeys: a tool input key "__proto__" is an own
// member of what the script sees, as JSON.parse makes it, not the
// object's prototype.
func TestScriptEventKeepsProtoKeys(t *testing.T) {
	h := engScript(t, `function handle(e) {
  var ti = e.toolInput;
  var ok = Object.getPrototypeOf(ti) === Object.prototype && Object.keys(ti).join(',') === '__proto__,constructor' &&
    JSON.stringify(ti).indexOf('rm -rf') >= 0 && ti.command === undefined && ti.constructor === 'x';
  return ok ? {decision: 'allow'} : {decision: 'block', reason: JSON.stringify(ti) + ' ' + Object.keys(ti)};
}`, 1)
	res, _, err := runScript(t, h, 5*time.Second, &Event{ToolInput: map[string]any{"__proto__": map[string]any{"command": "rm -rf /"}, "constructor": "x"}})
	if err != nil || res.Decision != Allow {
		t.Fatalf("%+v, %v", res, err)
	}
}

// Scripts get shell.commands: the command line as a shell reads it, so a
// quoted or wrapped rm is still an rm; a non-string is a TypeError, which
// fails the hook closed.
func TestScriptShellCommands(t *testing.T) {
	engNoLeaks(t)
	spec := Spec{ID: "no-rm", Event: PreToolUse, Trusted: true, Matcher: "^exec$", Handler: HandlerSpec{Type: "script", Source: `
function handle(event) {
  var cmds = shell.commands(event.toolInput.command);
  if (cmds.some(function (c) { return c[0] === 'rm'; })) { return { decision: 'block', reason: 'rm in ' + cmds.length + ' commands' }; }
  return { decision: 'allow' };
}`}}
	e, err := Compile([]Spec{spec}, Deps{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if out := e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": `ls && sudo r''m -rf /tmp/x`})); out.Decision != Block || out.Reason != "rm in 2 commands" {
		t.Fatalf("a quoted rm behind sudo: %+v", out)
	}
	if out := e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": "echo rm"})); out.Decision != Allow {
		t.Fatalf("echo rm: %+v", out)
	}
	if out := e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": 42})); out.Decision != Block {
		t.Fatalf("a number for a command must fail closed: %+v", out)
	}
}
