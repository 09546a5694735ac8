// Package policytest runs policy tests (`hookgate test`): YAML files of
// cases, each an event and the decision the configuration's hooks must
// reach on it, run against the hooks compiled as `serve` compiles them
// (internal/app.CompileHooks) but without a proxy, an upstream or a
// channel.
//
// It owns the test file format (file.go: strict YAML, every problem with
// its file:line), turning a case into events (event.go: the handlers' JSON
// or the short form, and tool-class cases expanded to one event per agent
// profile of hooks/toolclass), the stand-ins that answer what a hook asks
// (standins.go: approvals, the read-only switch, channels; stubs.go: a
// loopback server answering http and prompt hooks from the case's stubs),
// and running and reporting (run.go, report.go).
//
// Handlers run for real: scripts, commands and built-ins. Nothing leaves
// the machine: http hooks and prompt hooks' judges are pointed at the
// loopback stub server, which fails a case that reaches a hook it has no
// stub for. Each test file gets a fresh engine, so rate limits start empty
// per file (and in memory: a rate_limit's `redis:` is dropped).
package policytest
