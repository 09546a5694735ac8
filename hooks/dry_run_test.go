package hooks

import (
	"context"
	"strings"
	"testing"
	"time"
)

// waitExecutions polls the recorder until n executions are recorded (the
// observer pool runs dry_run hooks off the caller's goroutine).
func waitExecutions(t *testing.T, rec *engRecorder, n int) []Execution {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		xs := rec.executions()
		if len(xs) >= n {
			return xs
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d executions recorded, want %d: %+v", len(xs), n, xs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func byHook(xs []Execution, id string) (Execution, bool) {
	for _, x := range xs {
		if x.HookID == id {
			return x, true
		}
	}
	return Execution{}, false
}

func TestDryRunHooksAreRecordedNeverApplied(t *testing.T) {
	reg := newEngRegistry(t)
	rewrite := engSpec("rewrite", PreToolUse, "fixed", map[string]any{"result": map[string]any{"decision": "rewrite", "updatedInput": map[string]any{"cwd": "/safe"}}})
	rewrite.AllowMutation = []string{"toolInput.cwd"}
	rewrite.Priority = 1
	dryBlock := engSpec("dry-block", PreToolUse, "fixed", map[string]any{"result": map[string]any{"decision": "block", "reason": "no rm"}})
	dryBlock.DryRun, dryBlock.Priority = true, 2
	dryRewrite := engSpec("dry-rewrite", PreToolUse, "fixed", map[string]any{"result": map[string]any{"decision": "rewrite", "updatedInput": map[string]any{"command": "echo"}}})
	dryRewrite.DryRun, dryRewrite.Priority, dryRewrite.AllowMutation = true, 3, []string{"toolInput.command"}
	seen := engSpec("dry-seen", PreToolUse, "counter", map[string]any{"name": "dry-seen"})
	seen.DryRun, seen.Priority = true, 4
	enforcing := engSpec("after", PreToolUse, "counter", map[string]any{"name": "after"})
	enforcing.Priority = 5
	e, rec := engCompile(t, reg, []Spec{rewrite, dryBlock, dryRewrite, seen, enforcing}, Options{})
	for _, hi := range e.Hooks() {
		if hi.DryRun != strings.HasPrefix(hi.ID, "dry-") {
			t.Errorf("Hooks(): %+v", hi)
		}
	}

	out := e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": "rm -rf /"}))
	if out.Decision != Rewrite || out.ToolInput["cwd"] != "/safe" || out.ToolInput["command"] != "rm -rf /" {
		t.Fatalf("outcome %+v: want only the enforcing rewrite", out)
	}
	for _, x := range out.Executions {
		if x.DryRun || strings.HasPrefix(x.HookID, "dry-") {
			t.Errorf("a dry-run execution is in the outcome: %+v", x)
		}
	}
	xs := waitExecutions(t, rec, 5)
	for id, want := range map[string]Decision{"dry-block": WouldBlock, "dry-rewrite": WouldRewrite, "dry-seen": WouldAllow, "rewrite": Rewrite, "after": Allow} {
		x, ok := byHook(xs, id)
		if !ok {
			t.Errorf("%s not recorded", id)
			continue
		}
		if x.Decision != want {
			t.Errorf("%s: decision %s, want %s", id, x.Decision, want)
		}
		if strings.HasPrefix(id, "dry-") && (!x.DryRun || !x.Observed || x.Applied != Allow) {
			t.Errorf("%s: %+v, want a dry-run record applied as allow", id, x)
		}
	}
	if x, _ := byHook(xs, "dry-block"); x.Reason != "no rm" {
		t.Errorf("dry-block reason %q", x.Reason)
	}
	// The dry-run hook saw the enforcing rewrite before it, never the dry
	// rewrite before it.
	in := reg.inputs("dry-seen")
	if len(in) != 1 || in[0]["cwd"] != "/safe" || in[0]["command"] != "rm -rf /" {
		t.Errorf("dry-seen saw %v", in)
	}
	if in := reg.inputs("after"); len(in) != 1 || in[0]["command"] != "rm -rf /" {
		t.Errorf("the enforcing hook after the dry runs saw %v", in)
	}
}

func TestDryRunHookFailingWouldBlock(t *testing.T) {
	reg := newEngRegistry(t)
	slow := engSpec("dry-slow", PreToolUse, "sleep", map[string]any{"ms": 2000})
	slow.DryRun, slow.TimeoutMS = true, 20
	e, rec := engCompile(t, reg, []Spec{slow}, Options{})
	if out := e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": "ls"})); out.Decision != Allow {
		t.Fatalf("outcome %+v", out)
	}
	x := waitExecutions(t, rec, 1)[0]
	if x.Decision != WouldBlock || x.Cause == nil || !strings.Contains(x.Reason, "timed out") {
		t.Errorf("%+v: want would_block with the timeout kept", x)
	}
}

func TestDryRunDroppedWhenPoolFull(t *testing.T) {
	reg := newEngRegistry(t)
	g := engSpec("dry-gate", PreToolUse, "gate", map[string]any{"name": "g"})
	g.DryRun = true
	e, rec := engCompile(t, reg, []Spec{g}, Options{ObserverWorkers: 1, ObserverQueue: 1})
	dispatch := func() {
		if out := e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": "ls"})); out.Decision != Allow {
			t.Fatalf("outcome %+v", out)
		}
	}
	dispatch()
	deadline := time.Now().Add(30 * time.Second)
	for reg.counter("g-entered").Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the first dry run never started")
		}
		time.Sleep(time.Millisecond)
	}
	for range 3 {
		dispatch()
	}
	// One runs (held by the gate), one waits in the queue, two are dropped.
	if n := rec.droppedCount(); n != 2 {
		t.Errorf("%d dropped, want 2", n)
	}
	close(reg.gate("g"))
	waitExecutions(t, rec, 2)
}

func TestDryRunOnlyOnBlockingAndContributingHooks(t *testing.T) {
	reg := newEngRegistry(t)
	s := engSpec("dry-stop", Stop, "counter", map[string]any{"name": "x"})
	s.DryRun = true
	_, err := Compile([]Spec{s}, Deps{}, Options{Builtins: reg.Builtins})
	if err == nil || !strings.Contains(err.Error(), "dry_run") {
		t.Fatalf("Compile: %v, want a dry_run error", err)
	}
	c := engSpec("dry-start", SessionStart, "fixed", map[string]any{"result": map[string]any{"decision": "allow", "additionalContext": "be careful"}})
	c.DryRun = true
	e, rec := engCompile(t, reg, []Spec{c}, Options{})
	out := e.Dispatch(context.Background(), &Event{Event: SessionStart, EventID: "ev", SessionID: "s"})
	if out.Decision != Allow || out.Context != "" {
		t.Fatalf("outcome %+v: no context may be injected", out)
	}
	if x := waitExecutions(t, rec, 1)[0]; x.Decision != WouldRewrite {
		t.Errorf("%+v: want would_rewrite", x)
	}
}
