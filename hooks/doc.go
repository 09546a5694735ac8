// Package hooks is hookgate's policy engine: the events of an agent loop, the
// hook entries an operator configures for them, the dispatcher that runs a
// chain of hooks (priority order, first block wins, chained rewrites,
// fail-closed timeouts, mutation guard) and the handlers that decide
// (script, command, http, prompt, builtin).
//
// It knows nothing of HTTP proxying or wire formats: interceptors build an
// Event from traffic, call the Engine, and apply the Outcome.
//
// # Lifecycle
//
// The configuration's entries are compiled once into an immutable Engine:
//
//	reg := hooks.NewBuiltins()
//	builtin.Register(reg)                 // package hooks/builtin
//	eng, err := hooks.Compile(specs, hooks.Deps{BaseDir: dir, Logger: log},
//		hooks.Options{Builtins: reg, Recorder: rec})
//	// err is ConfigErrors: every problem of every entry, each with its line.
//	out := eng.Dispatch(ctx, ev)          // per event
//	eng.Close()                           // when a reload retires it
//
// Compile checks every entry (unique id, known event, matcher RE2, tool classes, if_expr
// type-checked CEL, on_timeout for the event's class, scope, allow_mutation,
// mode, on_block, the handler's type and keys, and that untrusted tenant
// entries use script or builtin handlers only) and builds the handlers, so
// a reload either yields a complete Engine or none. Swap engines atomically;
// Close waits for the dispatches still running on the old one.
//
// # Classes and timeouts
//
// Blocking events (user_prompt_submit, pre_tool_use, subagent_start) are
// waited for and may block or rewrite; an error or timeout blocks unless the
// hook says on_timeout: allow. Contributing hooks (session_start,
// pre_response, and post_tool_use hooks allowed to rewrite the tool result)
// are waited for but cannot block; an error or timeout fails the event
// (Outcome.Failed) unless on_timeout: skip. Observing hooks (stop,
// subagent_stop, other post_tool_use hooks) run on a bounded worker pool and
// never delay the caller; a full pool drops and counts. A hook without
// timeout_ms gets DefaultTimeout (5 s); observing hooks accept on_timeout
// fail|skip but nothing waits for them.
//
// A blocking or contributing hook with dry_run: true is judged on the
// observer pool instead, on the event as it stood at its place in the
// chain, and enforces nothing: its verdict is recorded as would_block,
// would_rewrite, would_allow or would_ask (see dry_run.go).
//
// # Conditions
//
// if_expr is CEL over the event's fields, named as in the event JSON. A key
// missing from toolInput is an evaluation error (an error decision, which
// fails closed), never a silent no-match: write
// has(toolInput.command) && toolInput.command.contains('rm -rf').
//
// # Scripts
//
// Script hooks run on goja in a sandbox: ECMAScript built-ins only (no
// require, eval, timers or typed arrays; console is a no-op), intrinsics and
// the global object frozen, the script's own variables fresh on every call,
// recursion bounded, built-ins that would build huge strings or walk huge
// arrays capped, the event capped at ScriptMaxEventBytes, and the call
// abandoned at its deadline. goja has no memory limit: a script that grows
// a string by concatenation in a loop is stopped only by its timeout, so keep
// script timeouts short.
package hooks
