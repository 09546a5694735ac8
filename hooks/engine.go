package hooks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hookgate/hookgate/hooks/toolclass"
)

// Engine runs the hooks of one configuration. It is built by Compile,
// immutable afterwards, and safe for concurrent use. On a reload the wiring
// builds a new Engine, swaps it in atomically and closes the old one; Close
// waits for the dispatches still running on it.
type Engine struct {
	chains [len(allEventsArray)]*chain
	hooks  []*hook // declaration order
	rec    Recorder
	log    *slog.Logger
	pool   *observerPool
	// terminals remembers lines typed into terminal sessions (write_stdin).
	terminals *toolclass.Terminals
	slots     Limiter // bounds synchronous executions; nil: unbounded

	// refs is 1 (the owner) plus the dispatches and observer jobs in
	// flight; the handlers are closed when it drops to zero.
	refs      atomic.Int64
	closeOnce sync.Once
	done      chan struct{}
	closeErr  error

	// capture is Options.Capture, or nil.
	capture Capturer
}

// allEventsArray sizes Engine.chains.
var allEventsArray = [8]EventName{}

func newEngine(hooks []*hook, log *slog.Logger, opts *Options) *Engine {
	e := &Engine{hooks: hooks, log: log, rec: opts.Recorder, done: make(chan struct{}), terminals: opts.Terminals}
	e.capture = opts.Capture
	if e.terminals == nil {
		e.terminals = toolclass.NewTerminals(0, 0)
	}
	if e.rec == nil {
		e.rec = nopRecorder{}
	}
	e.refs.Store(1)
	byEvent := map[EventName][]*hook{}
	for _, h := range hooks {
		byEvent[h.event] = append(byEvent[h.event], h)
	}
	needPool := false
	for name, hs := range byEvent {
		// Stable: equal priorities keep declaration order.
		slices.SortStableFunc(hs, func(a, b *hook) int { return cmp.Compare(a.priority, b.priority) })
		c := &chain{hooks: hs}
		for _, h := range hs {
			c.anyMatcher = c.anyMatcher || h.matcher != nil || len(h.classes) > 0
			needPool = needPool || (h.class == Observing && !h.inline) || h.dryRun
		}
		e.chains[name.index()] = c
	}
	if needPool {
		workers := cmp.Or(opts.ObserverWorkers, DefaultObserverWorkers)
		queue := cmp.Or(opts.ObserverQueue, DefaultObserverQueue)
		e.pool = newObserverPool(e, workers, queue)
	}
	return e
}

// HasHooks reports whether any hook is configured for the event, so that a
// caller can skip building the event when none is.
func (e *Engine) HasHooks(name EventName) bool {
	i := name.index()
	return i >= 0 && e.chains[i] != nil
}

// Wants reports whether any hook would be considered for ev: configured
// for its event, accepted by its matcher for ev.ToolName and in scope for
// ev.Tenant and ev.Agent (if_expr is not evaluated). It allocates nothing
// once the tool name has been seen, so a caller can decide cheaply whether
// to hold a tool call at all.
func (e *Engine) Wants(ev *Event) bool {
	i := ev.Event.index()
	if i < 0 || e.chains[i] == nil {
		return false
	}
	for _, h := range e.chains[i].matching(ev.ToolName) {
		if h.inScope(ev) {
			return true
		}
	}
	return false
}

// HookInfo describes a configured hook (for admin listings and for
// marking audit records of removed hooks).
type HookInfo struct {
	ID       string
	Event    EventName
	Class    Class
	Version  string
	Priority int
	Trusted  bool
	// DryRun: judged and recorded, never enforced.
	DryRun bool
}

// Hooks lists the configured hooks in declaration order.
func (e *Engine) Hooks() []HookInfo {
	out := make([]HookInfo, len(e.hooks))
	for i, h := range e.hooks {
		out[i] = HookInfo{ID: h.id, Event: h.event, Class: h.class, Version: h.version, Priority: h.priority, Trusted: h.trusted, DryRun: h.dryRun}
	}
	return out
}

// Dispatch runs the hooks of ev.Event and returns what the caller must
// apply. ev is never modified.
//
// Hooks run in priority order (lower first; equal priorities in
// declaration order), filtered by scope (ev.Tenant, ev.Agent), then by
// matcher on ev.ToolName (memoised per name), then by if_expr. Each handler
// gets a context with the hook's timeout.
//
//   - Blocking events: the first block wins and stops the chain; a rewrite
//     passes down the chain (a later hook sees the rewritten toolInput). An
//     error or timeout blocks unless the hook says on_timeout: allow.
//   - Contributing hooks run synchronously; an error or timeout fails the
//     event (Decision Error naming the hook) unless on_timeout: skip.
//   - Observing hooks are queued to the observer pool after the
//     synchronous ones and never delay the caller; a full pool drops them
//     (counted).
//   - dry_run hooks are not run in the chain: each is queued to the
//     observer pool with the event as it stood at its place, and only its
//     would-decision is recorded (dry_run.go).
//
// Dispatch never panics on what a handler does; a handler's panic is an
// error decision.
//
// With Options.Capture set, the event and its outcome are handed to it
// once the synchronous hooks have decided (bypassed events excepted).
func (e *Engine) Dispatch(ctx context.Context, ev *Event) Outcome {
	out := e.dispatch(ctx, ev)
	if e.capture != nil && ev != nil && !ev.Bypass && ev.Event.Valid() {
		e.captured(ev, out)
	}
	return out
}

// captured hands a copy of out to the Capturer, so that out itself does
// not escape to the heap on every dispatch.
func (e *Engine) captured(ev *Event, out Outcome) { e.capture.Captured(ev, &out) }

func (e *Engine) dispatch(ctx context.Context, ev *Event) Outcome {
	if ev == nil {
		return Outcome{Decision: Error, Reason: "no event", Cause: errors.New("hooks: nil event")}
	}
	i := ev.Event.index()
	if i < 0 {
		return Outcome{Decision: Error, Reason: "unknown event", Cause: fmt.Errorf("hooks: unknown event %q", ev.Event)}
	}
	c := e.chains[i]
	if c == nil {
		return Outcome{Decision: Allow}
	}
	hooks := c.matching(ev.ToolName)
	if len(hooks) == 0 {
		return Outcome{Decision: Allow}
	}
	if !e.acquire() {
		return e.closedOutcome(ev, hooks)
	}
	defer e.release()
	if ctx == nil {
		ctx = context.Background()
	}

	out := Outcome{Decision: Allow}
	cur := e.viewed(ev)
	var observers []*hook
	var dry []dryRunJob
	for _, h := range hooks {
		if !h.inScope(ev) {
			continue
		}
		if h.dryRun && !(ev.Bypass && h.class == Blocking) {
			dry = queueDryRun(dry, h, cur)
			continue
		}
		if h.class == Observing && !h.inline {
			observers = append(observers, h)
			continue
		}
		if ev.Bypass && h.class == Blocking {
			x := e.newExecution(h, cur)
			x.Decision, x.Applied = Bypassed, Allow
			e.rec.HookExecuted(x)
			out.Executions = append(out.Executions, x)
			continue
		}
		res, x, ran, sp := e.execute(ctx, h, cur, e.slots)
		if !ran {
			continue
		}
		if h.class == Observing { // inline observer: recorded, never applied
			e.stripObserved(h, cur, res, &x)
			x.Applied = x.Decision
			x.Observed = true
			endHookSpan(sp, &x)
			e.rec.HookExecuted(x)
			continue
		}
		next, stop := e.apply(h, cur, res, &x, &out)
		cur = next
		endHookSpan(sp, &x)
		e.rec.HookExecuted(x)
		out.Executions = append(out.Executions, x)
		if stop {
			break
		}
	}
	if out.Decision == Block {
		out.ToolInput, out.ToolResult = nil, nil
	} else if out.Decision == Allow && (out.ToolInput != nil || out.ToolResult != nil) {
		out.Decision = Rewrite
	}
	if len(out.Contributions) > 0 {
		var texts []string
		for _, c := range out.Contributions {
			if c.Mode != Send {
				texts = append(texts, c.Text)
			}
		}
		out.Context = strings.Join(texts, "\n\n")
	}
	e.commitTyped(cur, &out)
	if len(observers) > 0 {
		e.observe(cur, observers, spanOf(ctx))
	}
	if len(dry) > 0 {
		e.observeDryRun(dry, spanOf(ctx))
	}
	return out
}

// execute evaluates the hook's condition and runs its handler, in one of
// slots when slots is not nil. ran is false when the condition did not
// match (nothing to record). sp is the execution's span (tracing.go), nil
// when not traced; the caller ends it once the decision is applied.
func (e *Engine) execute(ctx context.Context, h *hook, ev *Event, slots Limiter) (res Result, x Execution, ran bool, sp trace.Span) {
	start := time.Now()
	x = e.newExecution(h, ev)
	if h.cond != nil {
		ok, err := h.cond.eval(ev)
		if err != nil {
			x.Decision, x.Cause, x.Duration = Error, err, time.Since(start)
			return Result{}, x, true, nil
		}
		if !ok {
			return Result{}, x, false, nil
		}
	}
	ctx, sp = startHookSpan(ctx, h, ev)
	if slots != nil {
		if !slots.Acquire(ctx) {
			x.Decision, x.Duration = Error, time.Since(start)
			x.Cause = &OverloadError{Limit: "limits.max_concurrent_hooks", Max: slots.Max()}
			return Result{}, x, true, sp
		}
		slot := &execSlot{l: slots}
		defer slot.release()
		ctx = context.WithValue(ctx, execSlotKey{}, slot)
	}
	hctx, cancel := context.WithTimeout(ctx, h.timeout)
	res, err := callHandler(hctx, h.handler, ev)
	deadline := hctx.Err() == context.DeadlineExceeded && ctx.Err() == nil
	cancel()
	x.Duration = time.Since(start)
	x.Reason = res.Reason
	x.SideEffects = res.SideEffects
	switch {
	case deadline:
		// A result that arrives after the deadline is a timeout too: the
		// hook's verdict came too late to be trusted as on time.
		x.Decision = Timeout
		x.Cause = fmt.Errorf("hook %s timed out after %s", h.id, h.timeout)
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			x.Cause = fmt.Errorf("hook %s timed out after %s: %w", h.id, h.timeout, err)
		}
	case err != nil:
		x.Decision, x.Cause = Error, err
	default:
		switch res.Decision {
		case Allow, Rewrite, Block, Expired:
			x.Decision = res.Decision
		case Timeout:
			x.Decision, x.Cause = Timeout, fmt.Errorf("handler reported a timeout: %s", res.Reason)
		case Error:
			x.Decision, x.Cause = Error, fmt.Errorf("handler reported an error: %s", res.Reason)
		default:
			x.Decision, x.Cause = Error, fmt.Errorf("handler returned invalid decision %q", res.Decision)
		}
	}
	return res, x, true, sp
}

// callHandler runs a handler, turning a panic into an error.
func callHandler(ctx context.Context, h Handler, ev *Event) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = Result{}, fmt.Errorf("handler panicked: %v", p)
		}
	}()
	return h.Handle(ctx, ev)
}

// apply folds one synchronous execution into the outcome. It returns the
// event the next hook sees and whether the chain stops.
func (e *Engine) apply(h *hook, cur *Event, res Result, x *Execution, out *Outcome) (*Event, bool) {
	switch x.Decision {
	case Error, Timeout:
		var over *OverloadError
		overloaded := errors.As(x.Cause, &over)
		var reason string
		if overloaded {
			// Refused by an admission limit: never allowed (on_timeout
			// covers a hook that failed, not one hookgate did not run),
			// logged at debug level (the refusals are counted in
			// hookgate_admission_refused_total; a warning per call would
			// flood the log just when the machine is busiest).
			e.log.Debug("hook not run: admission limit", "hook", h.id, "event", h.event, "limit", over.Limit)
			reason = fmt.Sprintf("hook %s could not run: hookgate is at %s (fail-closed); retry shortly", h.id, over.Limit)
		} else {
			reason = e.hookFailed(h, x) // logs the cause; the note never quotes it
		}
		if x.Reason == "" {
			x.Reason = reason // the record says what the agent read
		}
		if !overloaded {
			// A hook whose breaker is open was not asked: never allowed
			// unjudged, whatever on_timeout says, or a few failing inputs
			// would open an allow-everything window for every session.
			if h.failOpen && !errors.Is(x.Cause, ErrBreakerOpen) {
				x.Applied = Allow
				return cur, false
			}
		}
		out.Reason, out.HookID, out.Cause = reason, h.id, x.Cause
		if h.class == Blocking {
			x.Applied = Block
			out.Decision, out.OnBlock = Block, h.onBlock
		} else {
			x.Applied = Error
			out.Decision = Error
		}
		return cur, true
	case Block, Expired:
		if h.class != Blocking {
			// Contributing hooks cannot block: the verdict is recorded, not
			// acted on.
			x.Applied = Allow
			e.contribute(h, res, x, out)
			return cur, false
		}
		x.Applied = Block
		out.Decision, out.HookID, out.OnBlock = Block, h.id, h.onBlock
		out.Reason = res.Reason
		if out.Reason == "" {
			out.Reason = "blocked by hook " + h.id
		}
		x.Reason = out.Reason
		return cur, true
	}
	// allow or rewrite
	x.Applied = Allow
	next := cur
	rewrote := false
	if res.UpdatedInput != nil {
		var stripped []string
		var merged map[string]any
		switch {
		case h.event != PreToolUse:
			stripped = []string{"updatedInput"}
		case !h.trusted:
			stripped = changedFields(cur.ToolInput, res.UpdatedInput)
		default:
			merged, stripped = h.mutation.mergeInput(cur.ToolInput, res.UpdatedInput)
		}
		e.strip(h, x, stripped)
		if merged != nil {
			cp := *next
			cp.ToolInput = merged
			if cp.Tool != nil {
				cp.Tool = cp.readView() // the next hook sees the rewritten call's view
			}
			next = &cp
			out.ToolInput = merged
			rewrote = true
		}
	}
	if res.UpdatedResult != nil {
		unchanged := cur.ToolResult != nil && *cur.ToolResult == *res.UpdatedResult
		switch {
		case unchanged:
		case h.event != PostToolUse || !h.trusted || !h.mutation.result:
			e.strip(h, x, []string{mutationToolResult})
		default:
			cp := *next
			r := *res.UpdatedResult
			cp.ToolResult = &r
			next = &cp
			out.ToolResult = &r
			rewrote = true
		}
	}
	if rewrote {
		x.Decision = Rewrite
	} else if x.Decision == Rewrite {
		x.Decision = Allow // asked to rewrite, but nothing changed or all was stripped
	}
	e.contribute(h, res, x, out)
	return next, false
}

// contribute adds a hook's additionalContext to the outcome. For
// user_prompt_submit only trusted hooks may add to the prompt.
func (e *Engine) contribute(h *hook, res Result, x *Execution, out *Outcome) {
	if res.AdditionalContext == "" {
		return
	}
	if h.event == UserPromptSubmit && !h.trusted {
		e.strip(h, x, []string{"additionalContext"})
		return
	}
	out.Contributions = append(out.Contributions, Contribution{HookID: h.id, Mode: h.mode, Text: res.AdditionalContext})
}

// strip records a refused mutation: in the execution, the log and the
// recorder.
func (e *Engine) strip(h *hook, x *Execution, fields []string) {
	if len(fields) == 0 {
		return
	}
	x.Stripped = append(x.Stripped, fields...)
	e.log.Warn("hook rewrite stripped", "hook", h.id, "trusted", h.trusted, "fields", fields)
	e.rec.MutationStripped(h.id, fields)
}

func (e *Engine) newExecution(h *hook, ev *Event) Execution {
	return Execution{
		HookID:      h.id,
		HookVersion: h.version,
		Event:       ev.Event,
		EventID:     ev.EventID,
		SessionID:   ev.SessionID,
		Tenant:      ev.Tenant,
		Agent:       ev.Agent,
		Input:       ev,
	}
}

// closedOutcome answers an event that reached a closed engine: it fails
// closed like an error of the first hook in scope would.
func (e *Engine) closedOutcome(ev *Event, hooks []*hook) Outcome {
	for _, h := range hooks {
		if !h.inScope(ev) {
			continue
		}
		if h.dryRun {
			e.dryRunDropped(ev, h.id)
			continue
		}
		switch h.class {
		case Blocking:
			return Outcome{Decision: Block, HookID: h.id, Reason: "hook engine closed", Cause: ErrClosed}
		case Contributing:
			return Outcome{Decision: Error, HookID: h.id, Reason: "hook engine closed", Cause: ErrClosed}
		default:
			e.rec.ObserverDropped(ev.Event, h.id)
		}
	}
	return Outcome{Decision: Allow}
}

// acquire takes a reference for a dispatch or an observer job; it fails
// once the engine is closed and idle.
func (e *Engine) acquire() bool {
	for {
		n := e.refs.Load()
		if n <= 0 {
			return false
		}
		if e.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (e *Engine) release() {
	if e.refs.Add(-1) == 0 {
		// The last user may be a request goroutine: shut down elsewhere.
		go e.shutdown()
	}
}

func (e *Engine) shutdown() {
	if e.pool != nil {
		e.pool.stop()
	}
	var errs []error
	for _, h := range e.hooks {
		if c, ok := h.handler.(Closer); ok {
			if err := c.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close hook %s: %w", h.id, err))
			}
		}
	}
	e.closeErr = errors.Join(errs...)
	close(e.done)
}

// Close retires the engine: it waits for the dispatches and queued
// observer events still running on it, stops the observer workers and
// releases handlers that implement Closer. An event dispatched after
// Close fails closed (ErrClosed). Close is idempotent.
func (e *Engine) Close() error {
	e.closeOnce.Do(e.release)
	<-e.done
	return e.closeErr
}
