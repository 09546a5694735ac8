// Package hooks is hookgate's policy engine: the events of an agent loop, the
// hook entries an operator configures for them, the dispatcher that runs a
// chain of hooks (priority order, first block wins, chained rewrites,
// fail-closed timeouts, mutation guard) and the handlers that decide
// (script, command, http, prompt, builtin).
//
// It knows nothing of HTTP proxying or wire formats: interceptors build an
// Event from traffic, call the Engine, and apply the Outcome.
package hooks
