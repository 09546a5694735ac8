package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/hookgate/hookgate/hooks/toolclass"
)

// Defaults of the dispatcher.
const (
	// DefaultTimeout bounds a hook whose entry sets no timeout_ms, for
	// every class of event. Blocking events fail closed when it passes.
	DefaultTimeout = 5 * time.Second
	// MaxTimeout is the largest timeout_ms accepted (an approval gate can
	// wait minutes; nothing should wait longer than this).
	MaxTimeout = time.Hour
	// DefaultObserverWorkers and DefaultObserverQueue size the pool that
	// runs observing hooks.
	DefaultObserverWorkers = 8
	DefaultObserverQueue   = 1024
)

// Options tunes an Engine. The zero value is usable: every field says what
// its zero value means.
type Options struct {
	// Recorder receives executions, dropped observer events and stripped
	// mutations. Nil records nothing.
	Recorder Recorder
	// Builtins resolves handlers of type builtin. Nil knows no built-in
	// (entries of type builtin are then configuration errors).
	Builtins *Builtins
	// DefaultTimeout applies to entries without timeout_ms. Zero means
	// DefaultTimeout.
	DefaultTimeout time.Duration
	// ObserverWorkers is the number of goroutines running observing hooks.
	// Zero means DefaultObserverWorkers.
	ObserverWorkers int
	// ObserverQueue is how many observed events may wait for a worker
	// before new ones are dropped. Zero means DefaultObserverQueue.
	ObserverQueue int
	// CELCostLimit bounds one if_expr evaluation. Zero means
	// DefaultCELCostLimit.
	CELCostLimit uint64
	// Terminals remembers the lines typed into terminal sessions
	// (write_stdin), so that a command typed across calls is judged
	// whole. Nil gives the Engine its own, lost when it is retired; pass
	// one to keep it across reloads.
	Terminals *toolclass.Terminals
	// Capture receives every dispatched event with its outcome
	// (audit.capture_events). Nil captures nothing.
	Capture Capturer
}

// hookIDPattern keeps ids usable as metric labels and audit keys.
var hookIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:/@-]{0,127}$`)

// on_timeout values.
const (
	onTimeoutBlock = "block"
	onTimeoutAllow = "allow"
	onTimeoutFail  = "fail"
	onTimeoutSkip  = "skip"
)

// hook is one compiled entry. It is immutable once built.
type hook struct {
	id       string
	version  string
	index    int
	event    EventName
	class    Class
	priority int
	trusted  bool
	// inline is set for observing hooks whose handler must run on the
	// caller's goroutine (see InlineObserver).
	inline bool
	// dryRun: judged on the observer pool and recorded, never enforced
	// (dry_run.go).
	dryRun bool
	// asks is set for a handler that asks a person (AskingHandler): in
	// dry run it is not called at all.
	asks bool

	matcher *regexp.Regexp // nil (and no classes): every tool
	classes []toolclass.Class
	cond    *condition // nil: always
	handler Handler
	timeout time.Duration
	// failOpen is on_timeout allow/skip: an error or timeout lets the
	// event go on instead of blocking (blocking) or failing (contributing).
	failOpen bool

	scopeTenant string // "tenant:<id>"
	scopeAgent  string // "agent:<id>"

	mutation mutationRules
	mode     Mode
	onBlock  string
}

// DefaultTimeouter is implemented by handlers that need more time than
// the engine's default when their entry sets no timeout_ms (an approval
// gate waits minutes for a person).
type DefaultTimeouter interface {
	DefaultTimeout() time.Duration
}

// InlineObserver is an optional capability of a handler. An observing
// hook whose handler returns true from ObserveInline runs on the caller's
// goroutine instead of the observer pool, so that it is never dropped. It
// is meant for handlers that only hand a record to their own bounded queue
// (an audit writer) and return at once.
type InlineObserver interface {
	ObserveInline() bool
}

// inScope reports whether the hook applies to ev's tenant and agent.
func (h *hook) inScope(ev *Event) bool {
	if h.scopeTenant != "" && h.scopeTenant != ev.Tenant {
		return false
	}
	if h.scopeAgent != "" && h.scopeAgent != ev.Agent {
		return false
	}
	return true
}

// Compile validates specs and builds an Engine from them. Every problem of
// every entry is reported at once, as ConfigErrors; on error no handler
// built so far is left open. The Engine starts its observer workers: Close
// it when the configuration is retired.
func Compile(specs []Spec, deps Deps, opts Options) (*Engine, error) {
	if deps.Logger == nil {
		deps.Logger = slog.Default()
	}
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = DefaultTimeout
	}
	if opts.CELCostLimit == 0 {
		opts.CELCostLimit = DefaultCELCostLimit
	}
	var errs ConfigErrors
	var built []*hook
	seen := map[string]int{}
	for i := range specs {
		spec := &specs[i]
		fail := func(err error) {
			errs = append(errs, &ConfigError{Index: i, ID: spec.ID, Line: spec.Line, Origin: spec.Origin, Err: err})
		}
		if prev, dup := seen[spec.ID]; dup && spec.ID != "" {
			fail(fmt.Errorf("id: duplicate hook id %q (first declared at hooks[%d])", spec.ID, prev))
		} else {
			seen[spec.ID] = i
		}
		h, herrs := compileHook(spec, i, deps, &opts)
		for _, err := range herrs {
			fail(err)
		}
		if h != nil {
			built = append(built, h)
		}
	}
	if len(errs) > 0 {
		closeHandlers(built)
		return nil, errs
	}
	return newEngine(built, deps.Logger, &opts), nil
}

// compileHook validates one entry, one concern at a time (entryChecks,
// then the handler kind's own keys), and, when it is valid, builds its
// hook around its handler (attachHandler).
func compileHook(spec *Spec, index int, deps Deps, opts *Options) (*hook, []error) {
	h := &hook{
		id:       spec.ID,
		index:    index,
		event:    spec.Event,
		class:    spec.Class(),
		priority: spec.Priority,
		trusted:  spec.Trusted,
		mode:     Append,
	}
	var errs []error
	for _, check := range entryChecks {
		errs = append(errs, check(spec, h, opts)...)
	}

	// The handler is built even when other keys are wrong, so that its own
	// problems (a script that does not compile) are reported in the same
	// pass; it is closed again when the entry is invalid.
	if herrs := checkHandlerKeys(spec); len(herrs) > 0 {
		return nil, append(errs, herrs...)
	}
	handler, digest, err := buildHandler(spec, deps, opts.Builtins)
	if err != nil {
		return nil, append(errs, err)
	}
	if len(errs) > 0 {
		if c, ok := handler.(Closer); ok {
			_ = c.Close()
		}
		return nil, errs
	}
	attachHandler(h, handler, opts)
	h.version = hookVersion(spec, digest)
	return h, nil
}

// attachHandler gives a valid hook its handler and what the handler's
// optional capabilities decide: its breaker's recorder, its default
// timeout when the entry set none, whether it asks a person, and whether
// an observing hook runs inline.
func attachHandler(h *hook, handler Handler, opts *Options) {
	h.handler = handler
	observeBreaker(handler, opts.Recorder)
	if h.timeout == 0 {
		h.timeout = opts.DefaultTimeout
		if dt, ok := handler.(DefaultTimeouter); ok && dt.DefaultTimeout() > 0 {
			h.timeout = dt.DefaultTimeout()
		}
	}
	if a, ok := handler.(AskingHandler); ok {
		h.asks = a.AsksPerson()
	}
	if io, ok := handler.(InlineObserver); ok && h.class == Observing {
		h.inline = io.ObserveInline()
	}
}

// hookVersion hashes what the hook does: the entry without its position
// (Line, Origin) plus extra content such as a script file's source.
func hookVersion(spec *Spec, extra []byte) string {
	s := *spec
	s.Line, s.Origin = 0, ""
	raw, err := json.Marshal(&s)
	if err != nil {
		// A With value JSON cannot encode; fall back to its printed form.
		raw = fmt.Appendf(nil, "%#v", s)
	}
	sum := sha256.New()
	sum.Write(raw)
	sum.Write([]byte{0})
	sum.Write(extra)
	return hex.EncodeToString(sum.Sum(nil))[:16]
}

func closeHandlers(hs []*hook) {
	for _, h := range hs {
		if c, ok := h.handler.(Closer); ok {
			_ = c.Close()
		}
	}
}
