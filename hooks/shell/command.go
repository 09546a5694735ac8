package shell

// Dialect is the language the agent's shell speaks.
type Dialect int

// The dialects a command line is parsed in.
const (
	Bash Dialect = iota // the default
	POSIX
)

// Home is how a resolved word spells the home directory: `~`, `$HOME` and
// `${HOME}` at the start of a word resolve to it, so "~/x" and "$HOME/x"
// both read "~/x".
const Home = "~"

// Command is one command that would run, resolved.
type Command struct {
	// Argv is the command's words after quote removal, $IFS splitting,
	// brace expansion and home resolution; Argv[0] is the command name.
	// A statement of redirections alone (`> /dev/sda`) has no Argv.
	// Paths are not cleaned here: a rule cleans the targets it compares.
	Argv []string
	// Via names the wrappers looked through to reach it, outermost first:
	// "sudo", "env", "xargs", "find -exec", "bash -c", "eval",
	// "python3 -c shutil.rmtree" (an inline interpreter's destructive API
	// call, read as the command it amounts to).
	Via []string
	// Redirects are the command's redirections, resolved like Argv.
	Redirects []Redirect
	// Background is true for a command run with &.
	Background bool
	// Pipe is true for a command that is a stage of a pipeline (a | b).
	Pipe bool
	// Dir is the directory the command runs in when a cd before it on the
	// line moved there (cd / && rm -rf *: Dir is "/"), written as the cd
	// said it, joined to an earlier one when relative ("..", "/tmp/.."),
	// not cleaned. Empty when no cd moved: the agent's own directory.
	// Unknown ("\x00") when a cd went somewhere not known statically.
	Dir string
	// Func is the name of the function whose body the command is in, empty
	// outside a function: a function that calls itself (Argv[0] == Func)
	// in a pipe in the background is a fork bomb.
	Func string
}

// Redirect is one redirection: its operator (">", ">>", "<", "2>", ">|",
// "&>", ...) and its target word.
type Redirect struct {
	Op     string
	Target string
}

// Unresolvable is a construct whose effect cannot be known statically: a
// command name that is not a literal, a shell or eval fed from a pipe or a
// decoder, a word that expands to something unknowable in a command
// position, a nesting deeper than the walk goes, a line that does not
// parse.
type Unresolvable struct {
	// Construct names what it was, for a reason a person can act on:
	// "command name from $(...)", "shell reading a script from a pipe", ...
	Construct string
	// Kind groups constructs for on_unresolvable decisions:
	// "command_name", "pipe_to_shell", "depth", "syntax", "other".
	Kind string
}

// Parsed is everything one command line would run.
type Parsed struct {
	Commands     []Command
	Unresolvable []Unresolvable
}

// Options tune Parse.
type Options struct {
	Dialect Dialect
	// MaxDepth bounds nesting (substitutions, `sh -c`, eval, wrappers);
	// 0 means DefaultMaxDepth. Deeper is Unresolvable, kind "depth".
	MaxDepth int
}

// DefaultMaxDepth is the nesting Parse walks by default.
const DefaultMaxDepth = 8
