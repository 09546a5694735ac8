package shell

// Decision is what a Guard says of a command line.
type Decision int

// The decisions.
const (
	Allow Decision = iota
	Block
	// Unresolved: a construct could not be known statically and the
	// guard's on_unresolvable for its kind is not "allow".
	Unresolved
)

// Verdict is a Guard's judgement of one command line.
type Verdict struct {
	Decision Decision
	// Rule is the label of the rule that matched, or the unresolvable
	// kind; empty for Allow.
	Rule string
	// Reason says what was found, in words a person can act on, e.g.
	// "rm with --recursive --force on / (after resolving ${IFS} and
	// quotes)". It never quotes more of the command than the rule's
	// command name and the protected target.
	Reason string
}
