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
// compiled, so a typo (an unknown key included) fails the load rather than
// the first request, and each refuses an event it has nothing to do on.
//
// The catalogue:
//
//   - deny_patterns (pre_tool_use): regular expressions over tool input
//     fields and a shell-class call's normalised command, with default
//     sets for destructive shell commands (shell), SQL (sql) and, opt-in,
//     recursive or forced deletion anywhere (recursive_delete).
//   - secret_guard (pre_tool_use): blocks tool input that carries a
//     credential (cloud keys, private key blocks, common token formats),
//     naming its kind and field, never the credential.
//   - readonly_guard (pre_tool_use): blocks the tools that write (by name,
//     pattern or class; every agent's file_write tool by default) while the
//     tenant or the organisation is read-only; a run-time switch
//     (hooks.Deps.ReadOnly) wins over the configured default.
//   - rate_limit (pre_tool_use): calls per tenant, tool and optionally
//     agent per fixed window, in memory or shared through Redis.
//   - result_truncate (post_tool_use, trusted, allow_mutation:
//     [toolResult]): long tool results cut to head and tail with a marker.
//   - inject_context (session_start): text, a file or a template added as
//     session context.
//   - disclaimer (pre_response): a fixed text added to final answers.
//
// Every block reason names a rule, a kind or a limit; none repeats the
// tool input it judged, which may hold secrets.
package builtin

import "github.com/hookgate/hookgate/hooks"

// Register adds every built-in of this package to reg.
func Register(reg *hooks.Builtins) error {
	for _, b := range []struct {
		name string
		f    hooks.BuiltinFactoryFunc
	}{
		{DenyPatternsName, NewDenyPatterns},
		{SecretGuardName, NewSecretGuard},
		{ReadOnlyGuardName, NewReadOnlyGuard},
		{RateLimitName, NewRateLimit},
		{ResultTruncateName, NewResultTruncate},
		{InjectContextName, NewInjectContext},
		{DisclaimerName, NewDisclaimer},
		{ApprovalName, NewApproval},
		{AuditLogName, NewAuditLog},
		{NotifyName, NewNotify},
		{ShellGuardName, NewShellGuard},
	} {
		if err := reg.Register(b.name, b.f); err != nil {
			return err
		}
	}
	return nil
}
