package hooks

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// A dry_run hook is a blocking or contributing hook that is judged but
// never enforced, so that an operator can see what a new rule would do
// before turning it on:
//
//   - Dispatch does not run it. At its place in the chain it takes a copy
//     of the event as the hook would have seen it there (after the
//     enforcing rewrites before it; a dry run's own rewrites are never
//     passed on) and, once the chain is done, queues it to the observer
//     pool. The caller never waits for it; a full pool drops it, counted
//     (Recorder.ObserverDropped, DryRunRecorder.DryRunDropped, which the
//     audit recorder turns into a dry_run_dropped row) and logged.
//   - On the pool it runs as it would have (condition, handler, timeout,
//     mutation guard), without a slot of limits.max_concurrent_hooks, and
//     its verdict is recorded as a would-decision (WouldBlock,
//     WouldRewrite, WouldAllow) with its reason. Nothing it decided reaches
//     the Outcome: no block, no rewrite, no context, no appended text.
//   - A handler that asks a person (AskingHandler: the approval gate) is
//     not called at all: a dry-run approval posts no card and holds
//     nothing, and is recorded as WouldAsk when its condition matches.
//   - A chain stopped by an enforcing block before a dry_run hook's place
//     never reaches it: it would not have run.

// AskingHandler is an optional capability of a handler that holds a call
// until a person answers (the approval gate). A dry_run hook whose handler
// AsksPerson is never called; it is recorded as WouldAsk.
type AskingHandler interface {
	AsksPerson() bool
}

// dryRunJob is one dry_run hook and the event it would have seen.
type dryRunJob struct {
	h  *hook
	ev *Event
	// src is the chain's event ev copies: consecutive dry_run hooks that
	// saw the same one share ev.
	src *Event
}

// queueDryRun remembers h with the event at its place in the chain. The
// job keeps its own copy of the event struct: the caller may reuse its
// Event once Dispatch returns (the maps are shared, read-only: rewrites
// make new ones).
func queueDryRun(jobs []dryRunJob, h *hook, cur *Event) []dryRunJob {
	if n := len(jobs); n > 0 && jobs[n-1].src == cur {
		return append(jobs, dryRunJob{h: h, ev: jobs[n-1].ev, src: cur})
	}
	cp := *cur
	return append(jobs, dryRunJob{h: h, ev: &cp, src: cur})
}

// observeDryRun hands the dry_run hooks of one dispatch to the observer
// pool: one job per event they saw, or drops them.
func (e *Engine) observeDryRun(jobs []dryRunJob, parent trace.Span) {
	for start := 0; start < len(jobs); {
		end := start + 1
		for end < len(jobs) && jobs[end].ev == jobs[start].ev {
			end++
		}
		hs := make([]*hook, 0, end-start)
		for _, j := range jobs[start:end] {
			hs = append(hs, j.h)
		}
		ev := jobs[start].ev
		if e.pool == nil || !e.acquire() {
			e.dropDryRun(ev, hs)
		} else if !e.pool.submit(observerJob{ev: ev, hooks: hs, dry: true, parent: parent}) {
			e.release()
			e.dropDryRun(ev, hs)
		}
		start = end
	}
}

func (e *Engine) dropDryRun(ev *Event, hs []*hook) {
	for _, h := range hs {
		e.dryRunDropped(ev, h.id)
	}
}

// dryRunDropped counts one dry_run hook's run on ev that did not happen,
// and warns at most once per dryRunDropLogEvery.
func (e *Engine) dryRunDropped(ev *Event, hookID string) {
	event := ev.Event
	e.rec.ObserverDropped(event, hookID)
	if dr, ok := e.rec.(DryRunRecorder); ok {
		dr.DryRunDropped(ev, hookID)
	}
	now := time.Now().UnixNano()
	last := dryRunDropLogged.Load()
	if now-last >= int64(dryRunDropLogEvery) && dryRunDropLogged.CompareAndSwap(last, now) {
		e.log.Warn("dry-run hook not run: observer pool full; the audit records the drop, not the verdict",
			"hook", hookID, "event", event)
	}
}

// dryRunDropLogEvery spaces the warnings about dropped dry runs; every
// drop is counted.
const dryRunDropLogEvery = 10 * time.Second

var dryRunDropLogged atomic.Int64

// runDryRun judges one dry_run hook on the event it would have seen and
// records its would-decision. It runs on an observer worker.
func (e *Engine) runDryRun(ctx context.Context, h *hook, ev *Event) {
	var x Execution
	var sp trace.Span
	if h.asks {
		start := time.Now()
		x = e.newExecution(h, ev)
		if h.cond != nil {
			ok, err := h.cond.eval(ev)
			if err == nil && !ok {
				return
			}
			if err != nil {
				x.Cause = err
			}
		}
		x.Duration = time.Since(start)
		if x.Cause != nil {
			x.Decision, x.Reason = WouldBlock, failureNote(h.id, Error, x.Cause)
		} else {
			x.Decision, x.Reason = WouldAsk, "a person would have been asked"
		}
	} else {
		var res Result
		var ex Execution
		var ran bool
		res, ex, ran, sp = e.execute(ctx, h, ev, nil)
		if !ran {
			return
		}
		x = ex
		x.Decision, x.Reason = e.wouldDecide(h, ev, res, &x)
	}
	x.Applied, x.Observed, x.DryRun = Allow, true, true
	endHookSpan(sp, &x)
	e.rec.HookExecuted(x)
}

// wouldDecide folds a dry_run hook's execution as the chain would have
// (apply, on an outcome of its own that nothing reads) and names what that
// would have done, with the reason the agent would have read.
func (e *Engine) wouldDecide(h *hook, cur *Event, res Result, x *Execution) (Decision, string) {
	var out Outcome
	out.Decision = Allow
	next, _ := e.apply(h, cur, res, x, &out)
	switch {
	case out.Decision == Block || out.Decision == Error:
		return WouldBlock, out.Reason
	case next != cur:
		return WouldRewrite, res.Reason
	case len(out.Contributions) > 0:
		return WouldRewrite, res.Reason
	}
	if x.Cause != nil {
		// Failed under on_timeout: allow/skip: it would have let the call
		// go on; the cause stays in the record.
		return WouldAllow, e.failedReason(h, x)
	}
	return WouldAllow, res.Reason
}

// failedReason is the note a failed hook's record carries.
func (e *Engine) failedReason(h *hook, x *Execution) string {
	var over *OverloadError
	if errors.As(x.Cause, &over) {
		return "hook " + h.id + " could not run: hookgate is at " + over.Limit
	}
	return failureNote(h.id, x.Decision, x.Cause)
}

// checkDryRun: dry_run applies to hooks that change something when they
// are enforced; an observing hook already changes nothing.
func checkDryRun(spec *Spec, h *hook, _ *Options) []error {
	if !spec.DryRun {
		return nil
	}
	if spec.Class() == Observing {
		return one(errors.New("dry_run: only blocking and contributing hooks can run dry (" + string(spec.Event) + " hooks observe already and change nothing)"))
	}
	h.dryRun = true
	return nil
}
