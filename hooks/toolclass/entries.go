package toolclass

// Class names what a tool does, whatever the agent calls it.
type Class string

// The classes hookgate knows.
const (
	// Shell tools run a command line (or type into a terminal session).
	Shell Class = "shell"
	// FileWrite tools create, change, move or delete files.
	FileWrite Class = "file_write"
	// FileRead tools read files.
	FileRead Class = "file_read"
	// WebFetch tools fetch a URL.
	WebFetch Class = "web_fetch"
)

// Classes lists every class in a stable order.
var Classes = []Class{Shell, FileWrite, FileRead, WebFetch}

// Known reports whether name is one of Classes.
func Known(name string) bool {
	for _, c := range Classes {
		if string(c) == name {
			return true
		}
	}
	return false
}

// Shape says how a tool's input is read into the view.
type Shape int

// The shapes of tool input.
const (
	// Command: Field holds the command line as a string (an array of
	// strings is read as argv, joined).
	Command Shape = iota
	// Argv: Field holds argv, an array of strings, joined to a command
	// line (a string is read as the command line itself).
	Argv
	// Stdin: Field holds characters typed into the terminal session named
	// by SessionField; the command is the line they complete (Terminals).
	Stdin
	// Path: Field holds one path (an array of strings is every path).
	Path
	// Patch: Field holds patch text in the apply_patch format; every path
	// it names is a path of the call.
	Patch
	// URL: Field holds one URL.
	URL
	// URLsInText: Field holds text (a prompt) whose http(s) URLs are read.
	URLsInText
)

// Entry is one agent's tool: its exact name, its class, and where its
// input holds what the class is about.
type Entry struct {
	// Agent and Version name the agent and the release its tool name and
	// argument shape were read from (its tool declarations or bundle).
	Agent, Version string
	// Tool is the tool name exactly as the agent declares it.
	Tool  string
	Class Class
	Shape Shape
	// Field is the input member Shape reads.
	Field string
	// SessionField is, for Stdin, the member naming the terminal session.
	SessionField string
	// TTYField is, for a tool that can start a terminal session, the
	// boolean member asking for a pseudo-terminal. A call that starts a
	// shell reading its commands from the session is Interactive.
	TTYField string
	// StartsSession is true for a tool whose command keeps running as a
	// session that later Stdin calls type into (Codex's exec_command).
	StartsSession bool
}

// Agent names used in Entries.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	GeminiCLI  = "gemini-cli"
	OpenCode   = "opencode"
	Pi         = "pi"
)

// Entries is the mapping: one entry per agent and tool. Several agents may
// declare the same name (opencode's and pi's bash, read, write, edit); a
// name must then have one class, and the view reads every field any of its
// entries names (see View).
var Entries = []Entry{
	// Claude Code: @anthropic-ai/claude-code sdk-tools.d.ts.
	{Agent: ClaudeCode, Version: "2.1.332", Tool: "Bash", Class: Shell, Shape: Command, Field: "command"},
	{Agent: ClaudeCode, Version: "2.1.332", Tool: "Write", Class: FileWrite, Shape: Path, Field: "file_path"},
	{Agent: ClaudeCode, Version: "2.1.332", Tool: "Edit", Class: FileWrite, Shape: Path, Field: "file_path"},
	// MultiEdit is not declared by 2.1.332; earlier 1.x releases had it
	// with the same file_path, and a model trained on them may still call it.
	{Agent: ClaudeCode, Version: "1.0", Tool: "MultiEdit", Class: FileWrite, Shape: Path, Field: "file_path"},
	{Agent: ClaudeCode, Version: "2.1.332", Tool: "NotebookEdit", Class: FileWrite, Shape: Path, Field: "notebook_path"},
	{Agent: ClaudeCode, Version: "2.1.332", Tool: "Read", Class: FileRead, Shape: Path, Field: "file_path"},
	{Agent: ClaudeCode, Version: "2.1.332", Tool: "WebFetch", Class: WebFetch, Shape: URL, Field: "url"},

	// Codex CLI: the tool declarations in the codex binary (Responses:
	// exec_command and write_stdin are function tools, apply_patch a
	// custom tool whose free text hookgate shows as {"input": text}).
	{Agent: Codex, Version: "0.171.0", Tool: "exec_command", Class: Shell, Shape: Command, Field: "cmd", TTYField: "tty", StartsSession: true},
	{Agent: Codex, Version: "0.171.0", Tool: "write_stdin", Class: Shell, Shape: Stdin, Field: "chars", SessionField: "session_id"},
	{Agent: Codex, Version: "0.171.0", Tool: "shell", Class: Shell, Shape: Argv, Field: "command"},
	{Agent: Codex, Version: "0.171.0", Tool: "shell_command", Class: Shell, Shape: Command, Field: "command"},
	{Agent: Codex, Version: "0.171.0", Tool: "apply_patch", Class: FileWrite, Shape: Patch, Field: "input"},

	// Gemini CLI: @google/gemini-cli bundle (tool and parameter names).
	{Agent: GeminiCLI, Version: "0.61.0", Tool: "run_shell_command", Class: Shell, Shape: Command, Field: "command"},
	{Agent: GeminiCLI, Version: "0.61.0", Tool: "write_file", Class: FileWrite, Shape: Path, Field: "file_path"},
	{Agent: GeminiCLI, Version: "0.61.0", Tool: "replace", Class: FileWrite, Shape: Path, Field: "file_path"},
	{Agent: GeminiCLI, Version: "0.61.0", Tool: "read_file", Class: FileRead, Shape: Path, Field: "file_path"},
	{Agent: GeminiCLI, Version: "0.61.0", Tool: "read_many_files", Class: FileRead, Shape: Path, Field: "include"},
	{Agent: GeminiCLI, Version: "0.61.0", Tool: "web_fetch", Class: WebFetch, Shape: URLsInText, Field: "prompt"},

	// opencode: the opencode binary's tool schemas.
	{Agent: OpenCode, Version: "1.18.33", Tool: "bash", Class: Shell, Shape: Command, Field: "command"},
	{Agent: OpenCode, Version: "1.18.33", Tool: "write", Class: FileWrite, Shape: Path, Field: "filePath"},
	{Agent: OpenCode, Version: "1.18.33", Tool: "edit", Class: FileWrite, Shape: Path, Field: "filePath"},
	{Agent: OpenCode, Version: "1.18.33", Tool: "multiedit", Class: FileWrite, Shape: Path, Field: "filePath"},
	{Agent: OpenCode, Version: "1.18.33", Tool: "apply_patch", Class: FileWrite, Shape: Patch, Field: "patchText"},
	{Agent: OpenCode, Version: "1.18.33", Tool: "patch", Class: FileWrite, Shape: Patch, Field: "patchText"},
	{Agent: OpenCode, Version: "1.18.33", Tool: "read", Class: FileRead, Shape: Path, Field: "filePath"},
	{Agent: OpenCode, Version: "1.18.33", Tool: "webfetch", Class: WebFetch, Shape: URL, Field: "url"},

	// pi: @mariozechner/pi-coding-agent dist/core/tools.
	{Agent: Pi, Version: "0.73.1", Tool: "bash", Class: Shell, Shape: Command, Field: "command"},
	{Agent: Pi, Version: "0.73.1", Tool: "write", Class: FileWrite, Shape: Path, Field: "path"},
	{Agent: Pi, Version: "0.73.1", Tool: "edit", Class: FileWrite, Shape: Path, Field: "path"},
	{Agent: Pi, Version: "0.73.1", Tool: "read", Class: FileRead, Shape: Path, Field: "path"},
}
