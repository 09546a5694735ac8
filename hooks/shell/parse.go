package shell

import (
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Parse reads a command line as a shell would and returns every command it
// would run, resolved, and every construct that cannot be known
// statically. It never fails: a line that does not parse is Unresolvable
// kind "syntax".
//
// Words are resolved (see Command.Argv); a part that cannot be known is a
// placeholder beginning with "\x00" (Unknown, UnknownSubst, ...). Wrappers
// (sudo, env, xargs, find -exec, bash -c, eval, ...) are looked through;
// the shells, eval, find and inline interpreters also appear themselves.
// Inline interpreter code (python -c, node -e, perl -e, ruby -e) is read
// best effort, by patterns over its text.
func Parse(src string, opt Options) Parsed {
	w := &walker{maxDepth: opt.MaxDepth, dialect: syntax.LangBash}
	if w.maxDepth <= 0 {
		w.maxDepth = DefaultMaxDepth
	}
	if opt.Dialect == POSIX {
		w.dialect = syntax.LangPOSIX
	}
	w.parseAndWalk(src, w.dialect, ctx{})
	return w.out
}

// walker collects what one Parse finds.
type walker struct {
	out      Parsed
	maxDepth int
	dialect  syntax.LangVariant
	words    int
	// cwd is where the cds walked so far moved ("" not moved); see
	// Command.Dir. A subshell, a pipeline stage and a substitution restore it.
	cwd string
	// inHeredoc is true while an unquoted here-document body is expanded.
	inHeredoc bool
	steps     int             // commands emitted and strings parsed, bounded by maxSteps
	seen      map[string]bool // Unresolvable already reported, by kind+construct
}

// ctx is what the walk knows of the commands below a node.
type ctx struct {
	depth  int
	via    []string
	bg     bool
	pipe   bool
	fn     string
	redirs []Redirect
	// stdin names where a shell reading its script from standard input
	// would read it from: "a pipe (base64 -d)", "a file (<)"; empty for a
	// terminal.
	stdin string
	// script is a literal here-document or here-string on standard input.
	script    string
	hasScript bool
	// args are the positional parameters ($0, $1, ...) of a script string
	// given to sh -c, when argsKnown.
	args      []string
	argsKnown bool
	// wrapped is true for a command a wrapper runs (sudo cd does not move
	// this shell).
	wrapped bool
}

// subst is the context of a command or process substitution inside a
// command: one level deeper, its output captured (not the command's
// redirections, not a pipeline stage).
func (c ctx) subst() ctx {
	c.depth++
	c.redirs, c.pipe = nil, false
	return c
}

// procSubst is the context of a process substitution: >(...) reads what
// the command writes into it.
func (c ctx) procSubst(p *syntax.ProcSubst) ctx {
	c = c.subst()
	if p.Op == syntax.CmdOut {
		c.stdin, c.script, c.hasScript = "a process substitution >(...)", "", false
	}
	return c
}

func (c ctx) through(via string) ctx {
	c.depth++
	c.via = append(c.via[:len(c.via):len(c.via)], via)
	c.wrapped = true
	return c
}

func (w *walker) unresolvable(kind, construct string) {
	key := kind + "\x00" + construct
	if w.seen[key] {
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[key] = true
	w.out.Unresolvable = append(w.out.Unresolvable, Unresolvable{Construct: construct, Kind: kind})
}

func (w *walker) overflow(what string) { w.unresolvable("other", what) }

// maxSteps bounds the work of one Parse: find with many start paths and
// nested -exec, or many capped brace expansions, multiply what is walked.
const maxSteps = 1 << 13

func (w *walker) overBudget() bool {
	w.steps++
	if w.steps > maxSteps {
		w.overflow("more than 8192 commands to walk")
		return true
	}
	return false
}

func (w *walker) tooDeep(c ctx, what string) bool {
	if c.depth > w.maxDepth {
		w.unresolvable("depth", "nesting deeper than "+strconv.Itoa(w.maxDepth)+" ("+what+")")
		return true
	}
	return false
}

var parserPool = map[syntax.LangVariant]*sync.Pool{
	syntax.LangBash:  {New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }},
	syntax.LangPOSIX: {New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangPOSIX)) }},
}

// parseAndWalk parses src (a command line, or a string a shell or eval
// runs) and walks it.
func (w *walker) parseAndWalk(src string, lang syntax.LangVariant, c ctx) {
	if w.tooDeep(c, "script string") || w.overBudget() {
		return
	}
	pool := parserPool[lang]
	p := pool.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	pool.Put(p)
	if err != nil {
		construct := "a command line that does not parse"
		if len(c.via) > 0 {
			construct = "a script string that does not parse (" + c.via[len(c.via)-1] + ")"
		}
		w.unresolvable("syntax", construct)
		return
	}
	prev := w.dialect
	w.dialect = lang
	c.wrapped = false // the script's own commands run in its shell
	w.walkStmts(f.Stmts, c, "")
	w.dialect = prev
}

func (w *walker) walkStmts(stmts []*syntax.Stmt, c ctx, what string) {
	if what != "" && w.tooDeep(c, what) {
		return
	}
	if what != "" { // a substitution runs in a subshell
		saved := w.cwd
		defer func() { w.cwd = saved }()
	}
	for _, s := range stmts {
		w.walkStmt(s, c)
	}
}

func (w *walker) walkStmt(s *syntax.Stmt, c ctx) {
	if s == nil {
		return
	}
	if s.Background || s.Coprocess || s.Disown {
		c.bg = true
	}
	if len(s.Redirs) > 0 {
		c.redirs = append(c.redirs[:len(c.redirs):len(c.redirs)], nil...)
		for _, r := range s.Redirs {
			c = w.redirect(r, c)
		}
	}
	switch cmd := s.Cmd.(type) {
	case nil:
		w.redirectionsOnly(c)
	case *syntax.CallExpr:
		w.call(cmd, c)
	case *syntax.BinaryCmd:
		if cmd.Op == syntax.Pipe || cmd.Op == syntax.PipeAll {
			c.pipe = true
			n := len(w.out.Commands)
			saved := w.cwd
			defer func() { w.cwd = saved }() // each stage runs in a subshell
			w.walkStmt(cmd.X, c)
			w.cwd = saved
			from := "a pipe"
			if len(w.out.Commands) > n {
				from = "a pipe (" + describe(w.out.Commands[len(w.out.Commands)-1].Argv) + ")"
			}
			cy := c
			cy.stdin, cy.script, cy.hasScript = from, "", false
			w.walkStmt(cmd.Y, cy)
			return
		}
		w.walkStmt(cmd.X, c)
		w.walkStmt(cmd.Y, c)
	case *syntax.Block:
		w.walkStmts(cmd.Stmts, c, "")
	case *syntax.Subshell:
		saved := w.cwd
		w.walkStmts(cmd.Stmts, c, "")
		w.cwd = saved
	case *syntax.IfClause:
		for ic := cmd; ic != nil; ic = ic.Else {
			w.walkStmts(ic.Cond, c, "")
			w.walkStmts(ic.Then, c, "")
		}
	case *syntax.WhileClause:
		w.walkStmts(cmd.Cond, c, "")
		w.walkStmts(cmd.Do, c, "")
	case *syntax.ForClause:
		switch l := cmd.Loop.(type) {
		case *syntax.WordIter:
			var wi wordInfo
			for _, it := range l.Items {
				w.expandWord(it, c, &wi)
			}
		default:
			w.scanSubsts(l, c)
		}
		w.walkStmts(cmd.Do, c, "")
	case *syntax.CaseClause:
		var wi wordInfo
		w.expandWord(cmd.Word, c, &wi)
		for _, it := range cmd.Items {
			for _, p := range it.Patterns {
				w.scanSubsts(p, c)
			}
			w.walkStmts(it.Stmts, c, "")
		}
	case *syntax.FuncDecl:
		cf := c
		cf.bg = false
		cf.args, cf.argsKnown = nil, false // a function has its own $1, ...
		if cmd.Name != nil {
			cf.fn = cmd.Name.Value
		} else if len(cmd.Names) > 0 {
			cf.fn = cmd.Names[0].Value
		}
		w.walkStmt(cmd.Body, cf)
	case *syntax.TimeClause:
		w.walkStmt(cmd.Stmt, c)
	case *syntax.CoprocClause:
		c.bg = true
		w.walkStmt(cmd.Stmt, c)
	case *syntax.DeclClause:
		for _, a := range cmd.Args {
			w.assign(a, c)
		}
	default: // ArithmCmd, TestClause, LetClause, TestDecl: only what they substitute runs
		w.scanSubsts(cmd, c)
	}
}

// scanSubsts walks the command and process substitutions inside a node
// that is not itself a command to resolve (arithmetic, tests, patterns).
func (w *walker) scanSubsts(n syntax.Node, c ctx) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			w.walkStmts(n.Stmts, c.subst(), "command substitution")
			return false
		case *syntax.ProcSubst:
			w.walkStmts(n.Stmts, c.procSubst(n), "process substitution")
			return false
		}
		return true
	})
}

func (w *walker) assign(a *syntax.Assign, c ctx) {
	var wi wordInfo
	if a.Value != nil {
		w.expandWord(a.Value, c, &wi)
	}
	if a.Array != nil {
		w.scanSubsts(a.Array, c)
	}
	if a.Index != nil {
		w.scanSubsts(a.Index, c)
	}
}

// redirect resolves one redirection into c.redirs and notes what it makes
// standard input.
func (w *walker) redirect(r *syntax.Redirect, c ctx) ctx {
	op := r.Op.String()
	if r.N != nil {
		op = r.N.Value + op
	}
	var wi wordInfo
	target := w.expandString(r.Word, c, &wi)
	c.redirs = append(c.redirs, Redirect{Op: op, Target: target})
	stdinOp := r.N == nil || r.N.Value == "0"
	switch r.Op {
	case syntax.RdrIn:
		if stdinOp {
			c.stdin, c.hasScript = "a file (<)", false
			if strings.HasPrefix(target, Unknown) {
				c.stdin = "a file from " + wi.construct + " (<)"
			}
		}
	case syntax.Hdoc, syntax.DashHdoc:
		var hi wordInfo
		body := w.heredocBody(r, c, &hi)
		if stdinOp {
			c.stdin, c.script, c.hasScript = "a here-document", body, true
		}
	case syntax.WordHdoc:
		if stdinOp {
			c.stdin, c.script, c.hasScript = "a here-string", target, true
		}
	}
	return c
}

func (w *walker) call(ce *syntax.CallExpr, c ctx) {
	for _, a := range ce.Assigns {
		w.assign(a, c)
	}
	if len(ce.Args) == 0 {
		w.redirectionsOnly(c)
		return
	}
	argv := make([]string, 0, len(ce.Args))
	nameFrom := ""
	for _, word := range ce.Args {
		var wi wordInfo
		first := len(argv) == 0
		argv = w.appendFields(argv, word, c, &wi)
		switch {
		case first && len(argv) > 0 && strings.Contains(argv[0], Unknown):
			// The first field names the command; an unknown in it (not in
			// a later field split off by $IFS) is an unknown name.
			nameFrom = wi.construct
		case first && len(argv) == 0 && wi.construct != "":
			// A word of unknowns that gave no field here could be the name.
			nameFrom = wi.construct
		}
	}
	if nameFrom != "" {
		w.unresolvable("command_name", "command name from "+nameFrom)
		return
	}
	if len(argv) == 0 {
		return
	}
	w.emit(argv, c)
}

// describe names a command by its name and its options, never its other
// arguments (a URL or a path may carry a secret).
func describe(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	parts := []string{baseName(argv[0])}
	for _, a := range argv[1:] {
		if describableFlag(a) {
			parts = append(parts, a)
		}
	}
	return strings.Join(parts, " ")
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// redirectionsOnly records a statement that is only redirections
// (`> /dev/sda` truncates or writes its target all the same) as a command
// with no Argv, so that rules on redirections see it.
func (w *walker) redirectionsOnly(c ctx) {
	if len(c.redirs) == 0 {
		return
	}
	w.out.Commands = append(w.out.Commands, Command{Redirects: append([]Redirect(nil), c.redirs...), Background: c.bg, Pipe: c.pipe, Func: c.fn, Dir: w.cwd})
}

// record appends a command as it runs.
func (w *walker) record(argv []string, c ctx) {
	cmd := Command{Argv: argv, Background: c.bg, Pipe: c.pipe, Func: c.fn, Dir: w.cwd}
	if len(c.via) > 0 {
		cmd.Via = append([]string(nil), c.via...)
	}
	if len(c.redirs) > 0 {
		cmd.Redirects = append([]Redirect(nil), c.redirs...)
	}
	w.out.Commands = append(w.out.Commands, cmd)
	if name := baseName(argv[0]); !c.wrapped && (name == "cd" || name == "pushd" || name == "popd") {
		w.cd(name, argv)
	}
}

// cd follows a cd (or pushd, popd) to where it moves.
func (w *walker) cd(name string, argv []string) {
	var dest string
	for _, a := range argv[1:] {
		if a == "--" || (strings.HasPrefix(a, "-") && a != "-") {
			continue
		}
		dest = a
		break
	}
	switch {
	case name == "popd" || dest == "-" || strings.Contains(dest, Unknown) || w.cwd == Unknown:
		w.cwd = Unknown
	case dest == "":
		w.cwd = Home
	case strings.HasPrefix(dest, "/") || dest == Home || strings.HasPrefix(dest, Home+"/") || w.cwd == "":
		w.cwd = dest
	default:
		w.cwd = strings.TrimSuffix(w.cwd, "/") + "/" + dest
	}
}

// describableFlag is true for a short flag cluster of up to five letters
// (-d, -fsSL) or a long flag without a value (--decode): never a value
// glued to a flag (-pSECRET, --token=...).
func describableFlag(a string) bool {
	long := strings.HasPrefix(a, "--")
	body := strings.TrimLeft(a, "-")
	if body == "" || (long && len(body) > 24) || (!long && (len(body) > 5 || len(a)-len(body) != 1)) {
		return false
	}
	for _, r := range body {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || long && r == '-') {
			return false
		}
	}
	return true
}
