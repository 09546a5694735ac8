package shell

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Rule is one destructive command, as structured data: the command, the
// subcommand and flags that make it dangerous, and what it must reach.
// Every part set must match for the rule to match.
type Rule struct {
	// Label names the rule in a verdict.
	Label string
	// Commands are the command names it applies to, globs ("mkfs*")
	// matched on the base name of Argv[0] (/bin/rm is rm). Empty: any
	// command (only with Redirects).
	Commands []string
	// Subcommands are word sequences ("push", "delete namespace",
	// "s3 rb"), any one of which must stand among the first arguments
	// that are not flags.
	Subcommands []string
	// Flags must all be present; each is given in all its spellings, any
	// one of which counts: {"-r", "-R", "--recursive"}. A one-letter
	// spelling is found in clusters (-rf, -fr); a long one also as an
	// unambiguous prefix (--recur) and with a value (--force=x).
	Flags [][]string
	// Targets is what an argument must reach: "" (nothing: the command
	// alone is enough), "any" (some argument), "protected" (a protected
	// path, or a glob covering one), "block_device", or "branch" (a git
	// branch matching Branches).
	Targets string
	// Branches are the branch globs of Targets "branch".
	Branches []string
	// Redirects: the targets are the command's output redirections, not
	// its arguments ("echo x > /dev/sda").
	Redirects bool
}

// The target kinds of a rule.
const (
	TargetNone        = ""
	TargetAny         = "any"
	TargetProtected   = "protected"
	TargetBlockDevice = "block_device"
	TargetBranch      = "branch"
)

// validate reports what is wrong with r, naming it by where.
func (r *Rule) validate(where string) error {
	var errs []error
	if r.Label == "" {
		errs = append(errs, fmt.Errorf("%s: no label", where))
	}
	if len(r.Commands) == 0 && !r.Redirects {
		errs = append(errs, fmt.Errorf("%s: no commands", where))
	}
	for _, c := range r.Commands {
		if _, err := path.Match(c, ""); err != nil || c == "" || strings.Contains(c, "/") {
			errs = append(errs, fmt.Errorf("%s: command %q is not a command-name glob", where, c))
		}
	}
	for i, f := range r.Flags {
		if len(f) == 0 {
			errs = append(errs, fmt.Errorf("%s: flags[%d] has no spelling", where, i))
		}
		for _, s := range f {
			if len(s) < 2 || s[0] != '-' || s == "--" {
				errs = append(errs, fmt.Errorf("%s: flag %q is not a flag (want -x or --name)", where, s))
			}
		}
	}
	for _, s := range r.Subcommands {
		if len(strings.Fields(s)) == 0 {
			errs = append(errs, fmt.Errorf("%s: empty subcommand", where))
		}
	}
	switch r.Targets {
	case TargetNone, TargetAny, TargetProtected, TargetBlockDevice:
	case TargetBranch:
		if len(r.Branches) == 0 {
			errs = append(errs, fmt.Errorf("%s: targets branch with no branches", where))
		}
	default:
		errs = append(errs, fmt.Errorf("%s: unknown targets %q (known: any, protected, block_device, branch)", where, r.Targets))
	}
	for _, b := range r.Branches {
		if _, err := path.Match(b, ""); err != nil {
			errs = append(errs, fmt.Errorf("%s: branch %q is not a glob", where, b))
		}
	}
	if r.Redirects && r.Targets == TargetNone {
		errs = append(errs, fmt.Errorf("%s: redirects with no targets", where))
	}
	return errors.Join(errs...)
}

// ruleMatch is what a rule found in one command.
type ruleMatch struct {
	rule *Rule
	// name is the command's base name; sub the subcommand matched.
	name, sub string
	// target is what it reached, fit to be quoted: a protected entry, a
	// block device, a branch; "" when the rule names no target.
	target string
	// viaGlob: the target was reached through a glob.
	viaGlob bool
	// cleaned: the argument differed from its cleaned path.
	cleaned bool
	// force: the command has -f or --force, named in a reason.
	force bool
	// unknown: no argument reached a target, but one whose value is not
	// known statically might (the match is a possibility, not a fact).
	unknown bool
}

// commandName is the base name of a command word.
func commandName(argv0 string) string {
	return path.Base(argv0)
}

// match reports whether r matches c; ps is the guard's protected set.
func (r *Rule) match(c *Command, ps protectedSet) (ruleMatch, bool) {
	if len(c.Argv) == 0 {
		if !r.Redirects || len(r.Commands) > 0 {
			return ruleMatch{}, false
		}
	}
	name := ""
	if len(c.Argv) > 0 {
		name = commandName(c.Argv[0])
	}
	if len(r.Commands) > 0 && !anyGlob(r.Commands, name) {
		return ruleMatch{}, false
	}
	if r.Redirects && !slices.ContainsFunc(c.Redirects, func(rd Redirect) bool { return strings.Contains(rd.Op, ">") }) {
		return ruleMatch{}, false
	}
	var args []string
	if len(c.Argv) > 0 {
		args = c.Argv[1:]
	}
	pos, flags := splitArgs(name, args)
	rest := pos
	m := ruleMatch{rule: r, name: name}
	if len(r.Subcommands) > 0 {
		var ok bool
		if rest, m.sub, ok = matchSubcommand(r.Subcommands, pos); !ok {
			return ruleMatch{}, false
		}
	}
	flagsOK := true
	for _, spellings := range r.Flags {
		if !hasFlag(flags, spellings) {
			flagsOK = false
		}
	}
	m.force = hasFlag(flags, []string{"-f", "--force"})
	if !flagsOK {
		// A refspec with a leading + is a force push of that branch alone.
		if r.Targets != TargetBranch {
			return ruleMatch{}, false
		}
		return r.matchBranch(m, rest, true)
	}
	if r.Redirects {
		for _, rd := range c.Redirects {
			if !strings.Contains(rd.Op, ">") {
				continue
			}
			if r.reach(&m, rd.Target, ps) {
				return m, true
			}
		}
		return m, m.unknown
	}
	if ownerFirst[name] && len(rest) > 0 && !hasFlag(flags, []string{"--reference"}) {
		// chmod's mode, chown's owner: not a path.
		rest = rest[1:]
	}
	switch r.Targets {
	case TargetNone:
		return m, true
	case TargetAny:
		return m, len(rest) > 0
	case TargetBranch:
		return r.matchBranch(m, rest, false)
	}
	for _, a := range rest {
		if name == "dd" {
			v, ok := strings.CutPrefix(a, "of=")
			if !ok {
				continue
			}
			a = v
		}
		if r.reach(&m, inDir(c.Dir, a), ps) {
			return m, true
		}
	}
	return m, m.unknown
}

// inDir is the word w as a path from dir, the directory a cd on the line
// moved to (cd / && rm -rf *: "/*"); dir empty is the agent's own.
func inDir(dir, w string) string {
	if dir == "" || w == "" || w[0] == '/' || w == Home || strings.HasPrefix(w, Home+"/") {
		return w
	}
	return dir + "/" + w
}

// ownerFirst are the commands whose first positional word is a mode or an
// owner, not a path.
var ownerFirst = map[string]bool{"chmod": true, "chown": true, "chgrp": true}

// reach reports whether the word w reaches r's target kind, recording the
// target in m; a word that might, but is not known, sets m.unknown.
func (r *Rule) reach(m *ruleMatch, w string, ps protectedSet) bool {
	if isUnknown(w) {
		switch r.Targets {
		case TargetProtected:
			m.unknown = m.unknown || ps.mayBeProtected(w)
		case TargetBlockDevice:
			m.unknown = m.unknown || strings.HasPrefix(w, "/dev/") || w == "{}" || w[0] == 0
		case TargetAny:
			return true
		}
		return false
	}
	t := cleanTarget(w)
	switch r.Targets {
	case TargetAny:
		return true
	case TargetBlockDevice:
		if isBlockDevice(t) {
			m.target, m.cleaned = t, t != w
			return true
		}
		if hasGlob(t) && strings.HasPrefix(t, "/dev/") {
			for _, d := range []string{"/dev/sda", "/dev/nvme0n1", "/dev/vda", "/dev/mmcblk0", "/dev/disk0"} {
				if globOK(t, d) {
					m.target, m.viaGlob = d, true
					return true
				}
			}
		}
	case TargetProtected:
		if e, ok := ps.match(t); ok {
			m.target, m.viaGlob, m.cleaned = e, hasGlob(t), t != strings.TrimSuffix(w, "/") && t != w
			return true
		}
	}
	return false
}

// matchBranch matches git push's refspecs (rest: the remote, then the
// refspecs) against r.Branches. No refspec, or --all / --mirror, pushes
// branches that may be protected. plusOnly: the flags are absent, so only
// a refspec forced with a leading + counts.
func (r *Rule) matchBranch(m ruleMatch, rest []string, plusOnly bool) (ruleMatch, bool) {
	if len(rest) <= 1 && !plusOnly {
		m.target = "the current branch"
		return m, true
	}
	for _, ref := range rest[1:] {
		if isUnknown(ref) {
			m.unknown = true
			continue
		}
		forced := strings.HasPrefix(ref, "+")
		if plusOnly && !forced {
			continue
		}
		ref = strings.TrimPrefix(ref, "+")
		if _, dst, ok := strings.Cut(ref, ":"); ok {
			ref = dst
		}
		ref = strings.TrimPrefix(ref, "refs/heads/")
		for _, g := range r.Branches {
			if globOK(g, ref) {
				// The glob, not the ref: a reason quotes no argument.
				m.target = "a branch matching " + g
				if g == ref {
					m.target = "branch " + g
				}
				return m, true
			}
		}
	}
	return m, m.unknown
}

func anyGlob(globs []string, s string) bool {
	for _, g := range globs {
		if globOK(g, s) {
			return true
		}
	}
	return false
}

// splitArgs splits a command's arguments into positional words and flags.
// "--" ends the flags. find's positional words are its starting points,
// the words before its expression; the expression's words are flags.
func splitArgs(name string, args []string) (pos, flags []string) {
	if name == "find" {
		i := 0
		for i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "(" && args[i] != "!" {
			i++
		}
		return args[:i], args[i:]
	}
	for i, a := range args {
		if a == "--" {
			return append(pos, args[i+1:]...), flags
		}
		if len(a) > 1 && a[0] == '-' && !(name == "chmod" && len(pos) == 0 && symbolicMode(a)) {
			flags = append(flags, a)
			continue
		}
		pos = append(pos, a)
	}
	return pos, flags
}

// symbolicMode reports whether a chmod word starting with "-" is a mode
// that takes permissions away (`chmod -R -x /`), not an option: chmod's
// options (-c -f -v -R) use none of the mode letters.
func symbolicMode(a string) bool {
	return strings.Trim(a, "ugoa+-=,rwxXst") == ""
}

// matchSubcommand finds one of subs (word sequences) among the first
// positional words, and returns the words after it.
func matchSubcommand(subs []string, pos []string) (rest []string, sub string, ok bool) {
	const within = 3 // global options' values may come first: git -C repo push
	for _, s := range subs {
		words := strings.Fields(s)
		for i := 0; i < len(pos) && i < within; i++ {
			if i+len(words) > len(pos) {
				break
			}
			ok := true
			for j, w := range words {
				p := pos[i+j]
				if p != w && !strings.HasPrefix(p, w+"/") {
					ok = false
					break
				}
			}
			if ok {
				return pos[i+len(words):], s, true
			}
		}
	}
	return nil, "", false
}

// hasFlag reports whether one of spellings is among flags.
func hasFlag(flags []string, spellings []string) bool {
	for _, f := range flags {
		for _, s := range spellings {
			if flagIs(f, s) {
				return true
			}
		}
	}
	return false
}

// flagIs reports whether the argument f spells the flag s.
func flagIs(f, s string) bool {
	if f == s {
		return true
	}
	switch {
	case len(s) == 2: // -r: in a cluster of short flags
		return len(f) > 2 && f[0] == '-' && f[1] != '-' && strings.IndexByte(f[1:], s[1]) >= 0
	case strings.HasPrefix(s, "--"):
		if !strings.HasPrefix(f, "--") || len(f) < 3 {
			return false
		}
		name, _, _ := strings.Cut(f, "=")
		// GNU and git accept an unambiguous prefix of a long option.
		return strings.HasPrefix(s, name)
	default: // -delete, -destroy: one dash, whole words
		name, _, _ := strings.Cut(f, "=")
		return name == s
	}
}

// canonical is the spelling of a flag a reason names: its first long
// one, else its short ones ("-d/-x").
func canonical(spellings []string) string {
	for _, s := range spellings {
		if strings.HasPrefix(s, "--") {
			return s
		}
	}
	return strings.Join(spellings, "/")
}
