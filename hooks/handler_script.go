package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
)

// Limits of script hooks besides the sandbox's (see script_sandbox.go).
const (
	// ScriptMaxEventBytes caps the event JSON a script receives. A larger
	// event is an error (which fails closed): a policy never judges a cut
	// version of the input.
	ScriptMaxEventBytes = 1 << 20
	// scriptMaxResultBytes caps the JSON of a script's result.
	scriptMaxResultBytes = 1 << 20
	// scriptMaxSourceBytes caps a script's source.
	scriptMaxSourceBytes = 1 << 20
	// scriptLoadTimeout bounds the trial run of a script at load time.
	scriptLoadTimeout = 2 * time.Second
)

// scriptHandler runs a JavaScript hook on goja.
//
// The contract is a function
//
//	function handle(event) { return {decision, reason, updatedInput, updatedResult, additionalContext, sideEffects} }
//
// where decision is "allow", "rewrite" or "block". The source is compiled
// once, wrapped in a function that runs the script's top level and returns
// handle; every call runs that wrapper afresh, so variables of the script
// start anew on every call, and the built-ins and the global object are
// frozen (script_sandbox.go), so nothing a call changes reaches the next.
//
// Runtimes are pooled (at most maxVMs per hook). Each call runs on its own
// goroutine so that the caller gets its answer at the deadline, or when
// the call's memory budget trips (script_memory.go), even while a native
// built-in is still busy; the runtime is then interrupted and discarded,
// as is one whose script threw. A clean runtime goes back to the pool.
type scriptHandler struct {
	id     string
	source []byte
	prog   *goja.Program

	maxVMs  int
	budget  uint64         // memory budget of one execution (bytes)
	overran atomic.Bool    // an execution overran the budget (a suspect)
	created atomic.Int64   // runtimes built, for tests
	idle    chan *scriptVM // clean runtimes
	slots   chan struct{}  // one token per live runtime
	calls   sync.WaitGroup // calls in flight, for Close
	vms     sync.WaitGroup // runtime goroutines
	closed  atomic.Bool
	closeM  sync.Mutex // orders calls.Add against Close's Wait
}

// scriptVM is one runtime and the goroutine that owns it. The goroutine
// lives as long as the runtime, so its stack, grown once by goja, is not
// grown again on every call.
type scriptVM struct {
	*sandbox
	factory goja.Callable
	conv    jsConverter
	jobs    chan *scriptCall
}

// scriptCall is one call handed to a runtime's goroutine. Its watch
// holds the call's state: running, finished (the runtime goes back to the
// pool), abandoned by the caller at its deadline or interrupted by its
// memory budget (the runtime is discarded either way).
type scriptCall struct {
	ev    *Event
	reply chan scriptReply
	scriptMemoryWatch
}

// scriptCalls recycles scriptCall and its reply channel. A call goes back
// only once its caller has received the reply: the runtime's goroutine
// touches a call for the last time when it sends the reply. An abandoned
// or over-budget call is left to the garbage collector, since its reply
// comes later (and its over channel may hold a token).
var scriptCalls = sync.Pool{New: func() any { return newScriptCall() }}

func newScriptCall() *scriptCall {
	c := &scriptCall{reply: make(chan scriptReply, 1)}
	c.over = make(chan struct{}, 1)
	return c
}

var _ Handler = (*scriptHandler)(nil)
var _ Closer = (*scriptHandler)(nil)

// defaultScriptVMs is the pool bound of one script hook.
func defaultScriptVMs() int { return max(8, 4*runtime.GOMAXPROCS(0)) }

// newScriptHandler loads, compiles and trial-runs the entry's script.
func newScriptHandler(spec *Spec, deps Deps) (*scriptHandler, error) {
	return newScriptHandlerN(spec, deps, defaultScriptVMs())
}

func newScriptHandlerN(spec *Spec, deps Deps, maxVMs int) (*scriptHandler, error) {
	hs := &spec.Handler
	var (
		src  []byte
		name = "hook-" + spec.ID + ".js"
	)
	switch {
	case hs.Source != "" && hs.File != "":
		return nil, errors.New("script: set source or file, not both")
	case hs.Source != "":
		src = []byte(hs.Source)
	case hs.File != "":
		path := hs.File
		if !filepath.IsAbs(path) {
			path = filepath.Join(deps.BaseDir, path)
		}
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("script file: %w", err)
		}
		if st.Size() > scriptMaxSourceBytes {
			return nil, fmt.Errorf("script file %s: %d bytes exceeds %d", hs.File, st.Size(), scriptMaxSourceBytes)
		}
		if src, err = os.ReadFile(path); err != nil {
			return nil, fmt.Errorf("script file: %w", err)
		}
		name = hs.File
	default:
		return nil, errors.New("script: source or file is required")
	}
	if len(src) > scriptMaxSourceBytes {
		return nil, fmt.Errorf("script: %d bytes exceeds %d", len(src), scriptMaxSourceBytes)
	}
	budget, err := scriptBudget(hs, deps)
	if err != nil {
		return nil, err
	}
	// The script must be a valid program on its own, so that its text
	// cannot close the wrapper below and leave code at the top level.
	if _, err := goja.Parse(name, string(src)); err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	// The prefix has no newline, so line numbers in errors stay the
	// script's own.
	wrapped := "(function () {" + string(src) + "\n;return typeof handle === 'function' ? handle : undefined;\n})"
	prog, err := goja.Compile(name, wrapped, false)
	if err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	s := &scriptHandler{
		id:     spec.ID,
		source: src,
		prog:   prog,
		maxVMs: maxVMs,
		budget: budget,
		idle:   make(chan *scriptVM, maxVMs),
		slots:  make(chan struct{}, maxVMs),
	}
	if err := s.trial(); err != nil {
		return nil, err
	}
	return s, nil
}

// trial builds the first runtime and checks that the script defines handle.
func (s *scriptHandler) trial() error {
	s.slots <- struct{}{}
	vm, err := s.newVM()
	if err != nil {
		<-s.slots
		return err
	}
	t := time.AfterFunc(scriptLoadTimeout, func() { vm.rt.Interrupt("load timeout") })
	c := newScriptCall()
	scriptMemory.watch(&c.scriptMemoryWatch, vm.rt, s.budget, false)
	h, err := vm.factory(goja.Undefined())
	scriptMemory.unwatch(&c.scriptMemoryWatch)
	stopped := t.Stop()
	if c.state.Load() == callOverBudget {
		err = &c.memErr
	}
	if err != nil || !stopped {
		s.discard(vm)
		close(vm.jobs)
		if err == nil {
			err = errors.New("timed out")
		}
		return fmt.Errorf("script: running its top level: %w", err)
	}
	if _, ok := goja.AssertFunction(h); !ok {
		s.discard(vm)
		close(vm.jobs)
		return errors.New("script: does not define function handle(event)")
	}
	s.idle <- vm
	// A spare, built now: when a call is interrupted and its runtime
	// discarded, the next call finds one ready instead of paying a build
	// (tens of milliseconds, far more under -race) inside its own timeout.
	// Built at load rather than in the background, so nothing allocates
	// behind the first requests' backs.
	if s.maxVMs > 1 {
		s.slots <- struct{}{}
		spare, err := s.newVM()
		if err != nil {
			<-s.slots
			return nil
		}
		s.idle <- spare
	}
	return nil
}

func (s *scriptHandler) newVM() (*scriptVM, error) {
	sb, err := newSandbox()
	if err != nil {
		return nil, err
	}
	s.created.Add(1)
	v, err := sb.rt.RunProgram(s.prog)
	if err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	factory, ok := goja.AssertFunction(v)
	if !ok {
		return nil, errors.New("script: wrapper is not a function")
	}
	vm := &scriptVM{sandbox: sb, factory: factory, conv: jsConverter{rt: sb.rt}, jobs: make(chan *scriptCall, 1)}
	s.vms.Add(1)
	go s.serve(vm)
	return vm, nil
}

// serve runs the calls handed to vm until its runtime is discarded or the
// handler closes.
func (s *scriptHandler) serve(vm *scriptVM) {
	defer s.vms.Done()
	for c := range vm.jobs {
		scriptMemory.watch(&c.scriptMemoryWatch, vm.rt, s.budget, s.overran.Load())
		res, err, clean := vm.call(c.ev)
		scriptMemory.unwatch(&c.scriptMemoryWatch)
		if c.state.Load() == callOverBudget {
			s.overran.Store(true)
		}
		if c.state.CompareAndSwap(callRunning, callFinished) && clean {
			s.put(vm)
			c.reply <- scriptReply{res, err}
			continue
		}
		c.reply <- scriptReply{res, err}
		s.discard(vm)
		s.replenish()
		return
	}
}

// replenish builds a runtime in the background to replace a discarded
// one: building one takes milliseconds (the sandbox freezes every
// intrinsic), which the next call should not pay inside its timeout.
func (s *scriptHandler) replenish() {
	s.closeM.Lock()
	defer s.closeM.Unlock()
	if s.closed.Load() {
		return
	}
	select {
	case s.slots <- struct{}{}:
	default:
		return // the pool is full again
	}
	s.vms.Add(1)
	go func() {
		defer s.vms.Done()
		vm, err := s.newVM()
		if err != nil {
			<-s.slots
			return
		}
		s.closeM.Lock()
		defer s.closeM.Unlock()
		if s.closed.Load() {
			close(vm.jobs)
			<-s.slots
			return
		}
		s.idle <- vm
	}()
}

// get takes a clean runtime, builds one while under the bound, or waits
// for one until ctx ends (an exhausted pool is an error).
func (s *scriptHandler) get(ctx context.Context) (*scriptVM, error) {
	select {
	case vm := <-s.idle:
		return vm, nil
	default:
	}
	select {
	case vm := <-s.idle:
		return vm, nil
	case s.slots <- struct{}{}:
		vm, err := s.newVM()
		if err != nil {
			<-s.slots
			return nil, err
		}
		return vm, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("script runtime pool exhausted (%d runtimes busy): %w", s.maxVMs, ctx.Err())
	}
}

func (s *scriptHandler) put(vm *scriptVM) {
	vm.rt.ClearInterrupt()
	s.idle <- vm // never blocks: idle holds at most maxVMs
}

func (s *scriptHandler) discard(*scriptVM) { <-s.slots }

type scriptReply struct {
	res Result
	err error
}

// Handle runs the script on ev.
func (s *scriptHandler) Handle(ctx context.Context, ev *Event) (Result, error) {
	s.closeM.Lock()
	if s.closed.Load() {
		s.closeM.Unlock()
		return Result{}, errors.New("script: handler closed")
	}
	s.calls.Add(1)
	s.closeM.Unlock()
	defer s.calls.Done()

	vm, err := s.get(ctx)
	if err != nil {
		return Result{}, err
	}
	c := scriptCalls.Get().(*scriptCall)
	c.ev = ev
	c.state.Store(callRunning)
	c.memErr = ScriptMemoryError{}
	c.spent = false
	vm.jobs <- c // never blocks: an idle runtime's goroutine waits for work
	var r scriptReply
	select {
	case r = <-c.reply:
	case <-c.over:
		// The budget tripped: answer now, whatever the runtime is doing;
		// it was interrupted and is discarded when it returns.
		s.overran.Store(true)
		return Result{}, &c.memErr
	case <-ctx.Done():
		if c.state.CompareAndSwap(callRunning, callAbandoned) {
			vm.rt.Interrupt("deadline")
			return Result{}, fmt.Errorf("script interrupted: %w", ctx.Err())
		}
		if c.state.Load() == callOverBudget {
			return Result{}, &c.memErr
		}
		r = <-c.reply // finished just now
	}
	if c.state.Load() == callOverBudget {
		// Tripped as it finished: the result is not trusted, and c, whose
		// over channel holds a token, is not reused.
		return Result{}, &c.memErr
	}
	c.ev = nil
	scriptCalls.Put(c)
	return r.res, r.err
}

// call runs one event through the script. clean is false when the runtime
// must not be reused (the script threw or was interrupted).
func (vm *scriptVM) call(ev *Event) (res Result, err error, clean bool) {
	defer func() {
		if p := recover(); p != nil {
			res, err, clean = Result{}, fmt.Errorf("script: runtime panic: %v", p), false
		}
	}()
	undef := goja.Undefined()
	h, err := vm.factory(undef)
	if err != nil {
		return Result{}, scriptError(err), false
	}
	handle, ok := goja.AssertFunction(h)
	if !ok {
		return Result{}, errors.New("script: does not define function handle(event)"), true
	}
	evVal, err := vm.conv.event(ev)
	if err != nil {
		return Result{}, fmt.Errorf("script: %w", err), true
	}
	ret, err := handle(undef, evVal)
	if err != nil {
		return Result{}, scriptError(err), false
	}
	if res, handled, clean, err := vm.readPlainResult(ret); handled {
		return res, err, clean
	}
	out, err := vm.stringify(undef, ret)
	if err != nil {
		return Result{}, fmt.Errorf("script: encode result: %w", scriptError(err)), false
	}
	if goja.IsUndefined(out) {
		return Result{}, errors.New("script: handle returned no object"), true
	}
	str := out.String()
	if len(str) > scriptMaxResultBytes {
		return Result{}, fmt.Errorf("script: result of %d bytes exceeds %d", len(str), scriptMaxResultBytes), true
	}
	res, err = decodeScriptResult([]byte(str))
	return res, err, true
}

func scriptError(err error) error {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		return fmt.Errorf("script interrupted: %w", err)
	}
	return fmt.Errorf("script threw: %w", err)
}

// Close waits for calls in flight (an abandoned runtime finishes its
// current built-in first) and drops the pooled runtimes.
func (s *scriptHandler) Close() error {
	s.closeM.Lock()
	s.closed.Store(true)
	s.closeM.Unlock()
	s.calls.Wait()
	for {
		select {
		case vm := <-s.idle:
			close(vm.jobs)
			<-s.slots
		default:
			s.vms.Wait()
			return nil
		}
	}
}

func init() {
	registerHandlerKind(&handlerKind{
		name: "script", rank: 10, keys: []string{"source", "file", "max_memory"}, tenants: true,
		build: func(spec *Spec, deps Deps, _ *Builtins) (Handler, []byte, error) {
			sh, err := newScriptHandler(spec, deps)
			if err != nil {
				return nil, nil, err
			}
			return sh, sh.source, nil
		},
	})
}
