// Package shell judges shell commands as a shell reads them: it parses a
// command line with mvdan.cc/sh/v3/syntax, walks every command that would
// run (lists, pipelines, groups, substitutions, function and control-flow
// bodies, strings given to `sh -c` and `eval`), resolves words as far as
// they can be known statically, looks through wrappers to the command they
// run, and matches structured rules (a command, the flags that make it
// dangerous, protected targets) against the result. What cannot be known
// statically is reported as unresolvable, never passed over.
//
// It knows nothing of agents, tools or wire formats: the hooks that use it
// hand it a command line.
package shell
