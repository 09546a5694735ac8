// Package builtin holds hookgate's built-in hooks: policies written in Go
// that an operator enables with `handler: {type: builtin, name: ..., with:
// {...}}` and configures with parameters only.
//
// The wiring registers them in the engine's registry:
//
//	reg := hooks.NewBuiltins()
//	if err := builtin.Register(reg); err != nil { ... }
//	engine, err := hooks.Compile(specs, deps, hooks.Options{Builtins: reg})
//
// Each built-in validates its `with:` parameters when the configuration is
// compiled, so a typo fails the load rather than the first request.
//
// Shipped so far: deny_patterns (regular expressions over tool input
// fields, with default sets for destructive shell commands and SQL).
package builtin

import "github.com/hookgate/hookgate/hooks"

// Register adds every built-in of this package to reg.
func Register(reg *hooks.Builtins) error {
	return reg.Register(DenyPatternsName, hooks.BuiltinFactoryFunc(NewDenyPatterns))
}
