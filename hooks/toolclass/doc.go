// Package toolclass maps each coding agent's tools onto four classes that a
// policy can name without knowing the agent: shell, file_write, file_read and
// web_fetch. The mapping is data (entries.go): one Entry per agent and tool,
// naming the agent's version its tool name and argument shape were read
// from, so that a new agent is one more entry.
//
// From a tool name and its input, View builds the normalised view of a call:
// its class, the command a shell tool runs, the paths a file tool touches,
// the URL a fetch tool reads. The raw input stays what hooks judge besides.
//
// A terminal session (Codex's exec_command with write_stdin) needs memory:
// the command write_stdin completes may have been typed across several
// calls. Terminals keeps that memory, bounded, per hookgate session, tenant
// and terminal session id.
//
// The package knows nothing of hooks, wire formats or HTTP; hooks imports it.
package toolclass
