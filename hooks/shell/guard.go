package shell

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// GuardConfig configures a Guard.
type GuardConfig struct {
	Dialect Dialect
	// Protected are the paths recursive rules must not reach; nil means
	// DefaultProtected. Entries may be globs; "~" and "$HOME" are the home
	// directory.
	Protected []string
	// Workspace is the workspace root, protected too when set.
	Workspace string
	// Sets are the shipped rule sets (RuleSets) to use; nil means
	// DefaultSets. The fork-bomb rule comes with "default".
	Sets []string
	// Rules are the operator's own, in the same form as the shipped.
	Rules []Rule
	// OnUnresolvable maps an unresolvable kind ("command_name",
	// "pipe_to_shell", "depth", "syntax", "other", "unknown_target") to
	// "block" or "allow"; "*" sets every kind not named. A kind not set
	// is blocked.
	OnUnresolvable map[string]string
}

// UnknownTarget is the unresolvable kind of a rule's target that is not
// known statically (xargs input, an unknown expansion) and might be
// protected: `echo / | xargs rm -rf`, `rm -rf "$DIR"`.
const UnknownTarget = "unknown_target"

// Guard judges command lines against rules. It holds no mutable state and
// is safe for concurrent use.
type Guard struct {
	opt      Options
	rules    []Rule
	index    ruleIndex
	ps       protectedSet
	forkBomb bool
	// allow holds on_unresolvable per kind (true: allow); allowRest is
	// "*", for every kind not named.
	allow     map[string]bool
	allowRest bool
}

// NewGuard builds a Guard, reporting every configuration error at once.
func NewGuard(cfg GuardConfig) (*Guard, error) {
	g := &Guard{opt: Options{Dialect: cfg.Dialect}, allow: map[string]bool{}}
	var errs []error
	if cfg.Dialect != Bash && cfg.Dialect != POSIX {
		errs = append(errs, fmt.Errorf("dialect %d: unknown", cfg.Dialect))
	}
	protected := cfg.Protected
	if protected == nil {
		protected = DefaultProtected
	}
	for i, p := range protected {
		if p == "" {
			errs = append(errs, fmt.Errorf("protected[%d]: empty path", i))
		}
	}
	g.ps = newProtectedSet(protected, cfg.Workspace)
	sets := cfg.Sets
	if sets == nil {
		sets = DefaultSets
	}
	for _, s := range sets {
		rs, ok := RuleSets[s]
		if !ok {
			errs = append(errs, fmt.Errorf("sets: unknown set %q (known: %s)", s, strings.Join(slices.Sorted(maps.Keys(RuleSets)), ", ")))
			continue
		}
		g.rules = append(g.rules, rs...)
		g.forkBomb = g.forkBomb || s == "default"
	}
	for i := range cfg.Rules {
		r := cfg.Rules[i]
		if err := r.validate(fmt.Sprintf("rules[%d]", i)); err != nil {
			errs = append(errs, err)
			continue
		}
		g.rules = append(g.rules, r)
	}
	for kind, v := range cfg.OnUnresolvable {
		switch v {
		case "allow", "block":
			if kind == "*" {
				g.allowRest = v == "allow"
			} else {
				g.allow[kind] = v == "allow"
			}
		default:
			errs = append(errs, fmt.Errorf("on_unresolvable.%s: %q is neither block nor allow", kind, v))
		}
	}
	if len(g.rules) == 0 && !g.forkBomb && len(errs) == 0 {
		errs = append(errs, errors.New("no rules (name sets or rules)"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	g.index = indexRules(g.rules)
	return g, nil
}

// allows reports whether on_unresolvable allows kind.
func (g *Guard) allows(kind string) bool {
	if v, ok := g.allow[kind]; ok {
		return v
	}
	return g.allowRest
}

// Judge parses src and judges every command it would run: Block when a
// rule matches, Unresolved when a construct cannot be known statically
// (and on_unresolvable does not allow its kind), else Allow.
func (g *Guard) Judge(src string) Verdict {
	p := Parse(src, g.opt)
	var unknown *Verdict
	for i := range p.Commands {
		c := &p.Commands[i]
		if g.forkBomb && forksItself(c) {
			return Verdict{Decision: Block, Rule: forkBombLabel, Reason: forkBombReason(c)}
		}
		name := ""
		if len(c.Argv) > 0 {
			name = commandName(c.Argv[0])
		}
		var buf [16]int
		for _, j := range g.index.candidates(name, buf[:0]) {
			m, ok := g.rules[j].match(c, g.ps)
			if !ok {
				continue
			}
			if !m.unknown {
				return Verdict{Decision: Block, Rule: m.rule.Label, Reason: reason(m, c, src)}
			}
			if unknown == nil && !g.allows(UnknownTarget) {
				unknown = &Verdict{Decision: Unresolved, Rule: UnknownTarget, Reason: unknownReason(m, c)}
			}
		}
	}
	for _, u := range p.Unresolvable {
		if !g.allows(u.Kind) {
			return Verdict{Decision: Unresolved, Rule: u.Kind, Reason: fmt.Sprintf("cannot be judged before it runs: %s (on_unresolvable %s: block)", u.Construct, u.Kind)}
		}
	}
	if unknown != nil {
		return *unknown
	}
	return Verdict{Decision: Allow}
}

// what describes a match's command: "rm with --recursive --force",
// "git push with --force-with-lease".
func what(m ruleMatch) string {
	var b strings.Builder
	b.WriteString(m.name)
	if m.sub != "" {
		b.WriteString(" " + m.sub)
	}
	var flags []string
	for _, f := range m.rule.Flags {
		flags = append(flags, canonical(f))
	}
	if m.force && !slices.Contains(flags, "--force") {
		flags = append(flags, "--force")
	}
	if len(flags) > 0 {
		b.WriteString(" with " + strings.Join(flags, " "))
	}
	return b.String()
}

// reason words a Block verdict: the command, its dangerous flags, the
// target reached and what resolution it took to see it. It quotes
// nothing of the command but its name and the target.
func reason(m ruleMatch, c *Command, src string) string {
	var b strings.Builder
	switch {
	case m.rule.Redirects:
		fmt.Fprintf(&b, "output redirected onto the block device %s", m.target)
	default:
		b.WriteString(what(m))
		switch {
		case m.target == "":
		case m.viaGlob:
			fmt.Fprintf(&b, " on a glob covering %s", m.target)
		case m.rule.Targets == TargetBlockDevice:
			fmt.Fprintf(&b, " onto the block device %s", m.target)
		default:
			fmt.Fprintf(&b, " on %s", m.target)
		}
	}
	if len(c.Via) > 0 {
		b.WriteString(" (through " + strings.Join(c.Via, ", ") + ")")
	}
	if notes := resolutionNotes(m, src); len(notes) > 0 {
		b.WriteString(" (after resolving " + joinAnd(notes) + ")")
	}
	return b.String()
}

// resolutionNotes name what it took to read the command as run, so that a
// reason explains a block on text that does not look like its rule.
func resolutionNotes(m ruleMatch, src string) []string {
	var notes []string
	if strings.Contains(src, "IFS") {
		notes = append(notes, "${IFS}")
	}
	if strings.ContainsAny(src, `'"`) {
		notes = append(notes, "quotes")
	}
	if strings.Contains(src, `\`) {
		notes = append(notes, "escapes")
	}
	if braces.MatchString(src) {
		notes = append(notes, "braces")
	}
	if strings.Contains(src, "$HOME") || strings.Contains(src, "${HOME}") {
		notes = append(notes, "$HOME")
	}
	if m.cleaned {
		notes = append(notes, "the path")
	}
	return notes
}

// braces finds a brace expansion: {a,b} or {1..3}.
var braces = regexp.MustCompile(`\{[^{}\s]*(,|\.\.)[^{}\s]*\}`)

func joinAnd(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// unknownReason words an unknown_target verdict.
func unknownReason(m ruleMatch, c *Command) string {
	r := what(m) + " on a target not known before it runs, which may be protected"
	if len(c.Via) > 0 {
		r += " (through " + strings.Join(c.Via, ", ") + ")"
	}
	return r + " (on_unresolvable " + UnknownTarget + ": block)"
}

// forksItself reports whether c is a fork bomb's self-call: a function
// calling itself in a pipeline or in the background, so that every call
// starts processes that each start more. A plain recursive call forks
// nothing and is not one.
func forksItself(c *Command) bool {
	return c.Func != "" && len(c.Argv) > 0 && c.Argv[0] == c.Func && (c.Pipe || c.Background)
}

// forkBombReason words a fork-bomb verdict.
func forkBombReason(c *Command) string {
	r := "a fork bomb: a function that calls itself into a pipe or the background"
	if len(c.Via) > 0 {
		r += " (through " + strings.Join(c.Via, ", ") + ")"
	}
	return r
}
