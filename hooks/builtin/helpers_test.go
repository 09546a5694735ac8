package builtin

import (
	"testing"

	"github.com/hookgate/hookgate/hooks"
)

// compileOne compiles one entry with this package's built-ins registered,
// as the wiring does, and closes the engine when the test ends.
func compileOne(t *testing.T, spec hooks.Spec, deps hooks.Deps) *hooks.Engine {
	t.Helper()
	reg := hooks.NewBuiltins()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	if spec.Scope == "" && !spec.Trusted {
		spec.Scope = "tenant:acme"
	}
	e, err := hooks.Compile([]hooks.Spec{spec}, deps, hooks.Options{Builtins: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
