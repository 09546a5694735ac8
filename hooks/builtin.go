package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// BuiltinFactory builds the handler of a built-in hook (type: builtin) from
// its `with:` parameters. It validates them, at load time, and returns an
// error naming what is wrong; Compile reports it against the entry.
type BuiltinFactory interface {
	NewBuiltin(cfg BuiltinConfig) (Handler, error)
}

// BuiltinFactoryFunc adapts a function to BuiltinFactory.
type BuiltinFactoryFunc func(cfg BuiltinConfig) (Handler, error)

// NewBuiltin calls f.
func (f BuiltinFactoryFunc) NewBuiltin(cfg BuiltinConfig) (Handler, error) { return f(cfg) }

// BuiltinConfig is what a built-in's factory gets for one hook entry.
type BuiltinConfig struct {
	// HookID and Event are the entry's.
	HookID string
	Event  EventName
	// Trusted is the entry's trust (tenant hooks are untrusted).
	Trusted bool
	// With holds the entry's `with:` parameters (may be nil).
	With map[string]any
	// Deps is what Compile was given.
	Deps Deps
}

// Builtins is a registry of built-in hooks by name. The wiring builds one,
// registers the catalogue (package hooks/builtin registers its own) and
// passes it to Compile in Options. It is safe for concurrent use.
type Builtins struct {
	mu sync.RWMutex
	m  map[string]BuiltinFactory
}

// NewBuiltins returns an empty registry.
func NewBuiltins() *Builtins { return &Builtins{m: map[string]BuiltinFactory{}} }

// Register adds a built-in. A name may be registered once.
func (b *Builtins) Register(name string, f BuiltinFactory) error {
	if name == "" || f == nil {
		return errors.New("builtin: empty name or nil factory")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, dup := b.m[name]; dup {
		return fmt.Errorf("builtin %q registered twice", name)
	}
	b.m[name] = f
	return nil
}

// Names lists the registered built-ins, sorted.
func (b *Builtins) Names() []string {
	if b == nil {
		return nil
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	names := make([]string, 0, len(b.m))
	for n := range b.m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (b *Builtins) lookup(name string) (BuiltinFactory, bool) {
	if b == nil {
		return nil, false
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	f, ok := b.m[name]
	return f, ok
}

// DecodeWith decodes `with:` parameters into dst (a pointer to a struct
// with json tags) strictly: an unknown key or a value of the wrong type is
// an error. Built-in factories use it to validate their parameters.
func DecodeWith(with map[string]any, dst any) error {
	if len(with) == 0 {
		return nil
	}
	raw, err := json.Marshal(with)
	if err != nil {
		return fmt.Errorf("with: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("with: %w", err)
	}
	return nil
}

// newBuiltinHandler builds a builtin entry's handler from the registry.
func newBuiltinHandler(spec *Spec, deps Deps, reg *Builtins) (Handler, error) {
	if spec.Handler.Name == "" {
		return nil, errors.New("name: required")
	}
	f, ok := reg.lookup(spec.Handler.Name)
	if !ok {
		return nil, fmt.Errorf("unknown builtin %q (known: %v)", spec.Handler.Name, reg.Names())
	}
	h, err := f.NewBuiltin(BuiltinConfig{
		HookID:  spec.ID,
		Event:   spec.Event,
		Trusted: spec.Trusted,
		With:    spec.Handler.With,
		Deps:    deps,
	})
	if err != nil {
		return nil, fmt.Errorf("builtin %s: %w", spec.Handler.Name, err)
	}
	if h == nil {
		return nil, fmt.Errorf("builtin %s: factory returned no handler", spec.Handler.Name)
	}
	return h, nil
}

func init() {
	registerHandlerKind(&handlerKind{
		name: "builtin", rank: 50, keys: []string{"name", "with"}, tenants: true,
		build: func(spec *Spec, deps Deps, reg *Builtins) (Handler, []byte, error) {
			h, err := newBuiltinHandler(spec, deps, reg)
			return h, nil, err
		},
	})
}
