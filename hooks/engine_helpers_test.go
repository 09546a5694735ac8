package hooks

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// engRecorder is a Recorder that keeps everything, for assertions.
type engRecorder struct {
	mu       sync.Mutex
	execs    []Execution
	dropped  []string
	stripped map[string][]string
}

func (r *engRecorder) HookExecuted(x Execution) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.execs = append(r.execs, x)
}

func (r *engRecorder) ObserverDropped(ev EventName, id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropped = append(r.dropped, id)
}

func (r *engRecorder) MutationStripped(id string, fields []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stripped == nil {
		r.stripped = map[string][]string{}
	}
	r.stripped[id] = append(r.stripped[id], fields...)
}

func (r *engRecorder) executions() []Execution {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Execution(nil), r.execs...)
}

func (r *engRecorder) droppedCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.dropped)
}

// engRegistry holds the test built-ins:
//
//	fixed:   returns the Result in with.result (decision, reason, ...)
//	counter: counts its calls in the *atomic.Int64 registered under with.name
//	         and returns with.decision (default allow)
//	sleep:   sleeps with.ms milliseconds (ignoring the context when
//	         with.stubborn), then allows
//	gate:    blocks until the channel registered under with.name is closed
//	echo:    returns the toolInput it saw as additionalContext (JSON)
type engRegistry struct {
	*Builtins
	mu       sync.Mutex
	counters map[string]*atomic.Int64
	gates    map[string]chan struct{}
	seen     map[string][]map[string]any
	order    []string
}

func newEngRegistry(t testing.TB) *engRegistry {
	r := &engRegistry{
		Builtins: NewBuiltins(),
		counters: map[string]*atomic.Int64{},
		gates:    map[string]chan struct{}{},
		seen:     map[string][]map[string]any{},
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.Register("fixed", BuiltinFactoryFunc(func(cfg BuiltinConfig) (Handler, error) {
		var p struct {
			Result Result `json:"result"`
		}
		if err := DecodeWith(cfg.With, &p); err != nil {
			return nil, err
		}
		return handlerFunc(func(context.Context, *Event) (Result, error) { return p.Result, nil }), nil
	})))
	must(r.Register("counter", BuiltinFactoryFunc(func(cfg BuiltinConfig) (Handler, error) {
		var p struct {
			Name     string   `json:"name"`
			Decision Decision `json:"decision"`
		}
		if err := DecodeWith(cfg.With, &p); err != nil {
			return nil, err
		}
		c := r.counter(p.Name)
		return handlerFunc(func(_ context.Context, ev *Event) (Result, error) {
			c.Add(1)
			r.mu.Lock()
			r.seen[p.Name] = append(r.seen[p.Name], ev.ToolInput)
			r.order = append(r.order, p.Name)
			r.mu.Unlock()
			return Result{Decision: orDecision(p.Decision, Allow), Reason: p.Name}, nil
		}), nil
	})))
	must(r.Register("sleep", BuiltinFactoryFunc(func(cfg BuiltinConfig) (Handler, error) {
		var p struct {
			MS       int  `json:"ms"`
			Stubborn bool `json:"stubborn"`
		}
		if err := DecodeWith(cfg.With, &p); err != nil {
			return nil, err
		}
		return handlerFunc(func(ctx context.Context, _ *Event) (Result, error) {
			if p.Stubborn {
				time.Sleep(time.Duration(p.MS) * time.Millisecond)
				return Result{Decision: Allow}, nil
			}
			select {
			case <-time.After(time.Duration(p.MS) * time.Millisecond):
				return Result{Decision: Allow}, nil
			case <-ctx.Done():
				return Result{}, ctx.Err()
			}
		}), nil
	})))
	must(r.Register("gate", BuiltinFactoryFunc(func(cfg BuiltinConfig) (Handler, error) {
		var p struct {
			Name string `json:"name"`
		}
		if err := DecodeWith(cfg.With, &p); err != nil {
			return nil, err
		}
		g := r.gate(p.Name)
		c := r.counter(p.Name)
		entered := r.counter(p.Name + "-entered")
		return handlerFunc(func(ctx context.Context, _ *Event) (Result, error) {
			entered.Add(1)
			<-g
			c.Add(1)
			return Result{Decision: Allow}, nil
		}), nil
	})))
	return r
}

func orDecision(d, def Decision) Decision {
	if d == "" {
		return def
	}
	return d
}

func (r *engRegistry) counter(name string) *atomic.Int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.counters[name]
	if !ok {
		c = new(atomic.Int64)
		r.counters[name] = c
	}
	return c
}

func (r *engRegistry) gate(name string) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, ok := r.gates[name]
	if !ok {
		g = make(chan struct{})
		r.gates[name] = g
	}
	return g
}

func (r *engRegistry) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.order...)
}

func (r *engRegistry) inputs(name string) []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[name]
}

// engSpec builds a trusted builtin hook entry.
func engSpec(id string, ev EventName, builtin string, with map[string]any) Spec {
	return Spec{ID: id, Event: ev, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: builtin, With: with}}
}

// engCompile compiles specs with the registry and a recorder, closing the
// engine when the test ends.
func engCompile(t testing.TB, reg *engRegistry, specs []Spec, opts Options) (*Engine, *engRecorder) {
	t.Helper()
	rec := &engRecorder{}
	if opts.Recorder == nil {
		opts.Recorder = rec
	}
	opts.Builtins = reg.Builtins
	e, err := Compile(specs, Deps{}, opts)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e, rec
}

func toolEvent(tool string, input map[string]any) *Event {
	return &Event{Event: PreToolUse, EventID: "ev-1", SessionID: "s-1", ToolName: tool, ToolCallID: "call-1", ToolInput: input}
}

func jsonFieldNames(v any) []string {
	var out []string
	t := reflect.TypeOf(v)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// handlerFunc adapts a function to Handler.
type handlerFunc func(ctx context.Context, ev *Event) (Result, error)

// Handle calls f.
func (f handlerFunc) Handle(ctx context.Context, ev *Event) (Result, error) { return f(ctx, ev) }
