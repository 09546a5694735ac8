package hooks

import (
	"fmt"
	"slices"
	"strings"
)

// handlerKind is one kind of handler (handler.type), as its file registers
// it: what Compile needs to validate an entry of that kind and to build
// its handler. Adding a kind is one file that calls registerHandlerKind.
type handlerKind struct {
	// name is the handler.type that selects the kind.
	name string
	// rank orders the kinds wherever they are listed (error messages).
	rank int
	// keys are the handler keys the kind accepts besides type; a key of
	// another kind is a configuration error.
	keys []string
	// tenants is true when an untrusted (tenant) hook may use the kind.
	tenants bool
	// breaker is true when the kind has a circuit breaker (breaker:).
	breaker bool
	// build constructs the handler of a valid entry. digest is extra
	// content (a script file's bytes) the hook's version must cover.
	build func(spec *Spec, deps Deps, reg *Builtins) (h Handler, digest []byte, err error)
}

// handlerKinds are the registered kinds, by rank.
var handlerKinds []*handlerKind

// registerHandlerKind adds a kind; a name registered twice is a
// programming error.
func registerHandlerKind(k *handlerKind) {
	if handlerKindNamed(k.name) != nil {
		panic("hooks: handler kind " + k.name + " registered twice")
	}
	handlerKinds = append(handlerKinds, k)
	slices.SortStableFunc(handlerKinds, func(a, b *handlerKind) int { return a.rank - b.rank })
}

// handlerKindNamed returns the kind a handler.type names, nil when none.
func handlerKindNamed(name string) *handlerKind {
	for _, k := range handlerKinds {
		if k.name == name {
			return k
		}
	}
	return nil
}

// kindNames lists, in rank order, the kinds keep accepts, joined by
// commas and a last conjunction: "script, command, http, prompt or
// builtin".
func kindNames(conj string, keep func(*handlerKind) bool) string {
	var names []string
	for _, k := range handlerKinds {
		if keep(k) {
			names = append(names, k.name)
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

func anyKind(*handlerKind) bool       { return true }
func tenantKind(k *handlerKind) bool  { return k.tenants }
func breakerKind(k *handlerKind) bool { return k.breaker }

// checkHandlerKeys checks the handler type, that an untrusted hook may use
// it, and that only its keys are set.
func checkHandlerKeys(spec *Spec) []error {
	hs := &spec.Handler
	kind := handlerKindNamed(hs.Type)
	if kind == nil {
		if hs.Type == "" {
			return []error{fmt.Errorf("handler.type: required (%s)", kindNames("or", anyKind))}
		}
		return []error{fmt.Errorf("handler.type: unknown handler type %q (want %s)", hs.Type, kindNames("or", anyKind))}
	}
	var errs []error
	if !spec.Trusted && !kind.tenants {
		errs = append(errs, fmt.Errorf("handler.type: an untrusted (tenant) hook may use %s handlers only, not %s", kindNames("and", tenantKind), hs.Type))
	}
	for _, k := range hs.setKeys() {
		if !slices.Contains(kind.keys, k) {
			errs = append(errs, fmt.Errorf("handler.%s: not a key of a %s handler (its keys: %s)", k, hs.Type, strings.Join(kind.keys, ", ")))
		}
	}
	return errs
}

// checkBreaker checks that a breaker: is only set on a kind that has one.
func checkBreaker(spec *Spec) error {
	if spec.Breaker == nil {
		return nil
	}
	if k := handlerKindNamed(spec.Handler.Type); k != nil && k.breaker {
		return nil
	}
	return fmt.Errorf("breaker: only %s hooks have a circuit breaker (handler type %q)", kindNames("and", breakerKind), spec.Handler.Type)
}

// buildHandler constructs the entry's handler by its kind.
func buildHandler(spec *Spec, deps Deps, reg *Builtins) (Handler, []byte, error) {
	kind := handlerKindNamed(spec.Handler.Type)
	if kind == nil {
		return nil, nil, fmt.Errorf("handler.type: unknown handler type %q", spec.Handler.Type)
	}
	h, digest, err := kind.build(spec, deps, reg)
	if err != nil {
		return nil, nil, fmt.Errorf("handler (%s): %w", spec.Handler.Type, err)
	}
	if h == nil {
		return nil, nil, fmt.Errorf("handler (%s): constructor returned no handler", spec.Handler.Type)
	}
	return h, digest, nil
}

// plainBuild adapts a constructor whose handler's version is its entry
// alone.
func plainBuild(f func(spec *Spec, deps Deps) (Handler, error)) func(*Spec, Deps, *Builtins) (Handler, []byte, error) {
	return func(spec *Spec, deps Deps, _ *Builtins) (Handler, []byte, error) {
		h, err := f(spec, deps)
		return h, nil, err
	}
}
