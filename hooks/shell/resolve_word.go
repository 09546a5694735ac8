package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Placeholders stand in a resolved word for a part whose value cannot be
// known statically. Each begins with "\x00", which no real argument holds:
// a rule treats any word containing "\x00" as "could be anything".
const (
	// Unknown is a parameter expansion or arithmetic: "/$X" reads "/\x00".
	Unknown = "\x00"
	// UnknownSubst is the output of a command substitution $(...) or `...`.
	UnknownSubst = "\x00$(...)"
	// UnknownProcSubst is the path a process substitution <(...) gives.
	UnknownProcSubst = "\x00<(...)"
	// UnknownStdin is what xargs reads from its input: the targets of the
	// command it runs.
	UnknownStdin = "\x00stdin"
	// UnknownFound is an entry a filtered find matched (find . -name x
	// -delete): some path under the start path, not the start path itself.
	UnknownFound = "\x00find"
)

// MaxBraceWords caps the words one brace expansion may produce; more is
// Unresolvable kind "other" (the first MaxBraceWords are kept).
const MaxBraceWords = 1024

// maxWordsPerParse caps the expanded words of a whole Parse, so that many
// capped brace expansions cannot make one command line expensive.
const maxWordsPerParse = 1 << 15

// field is one word in the making; quoted says a quoted part contributed to
// it, so an empty one is kept ("" is an argument, an empty $IFS split is not).
type field struct {
	s string
	q bool
}

// alt is one alternative of a brace expansion: the fields it splits into
// (at least one).
type alt []field

// wordInfo records what in a word was not a literal.
type wordInfo struct {
	construct string // the first non-literal construct: "$(...)", "$VAR", ...
}

func (wi *wordInfo) note(c string) {
	if wi.construct == "" {
		wi.construct = c
	}
}

// expandWord resolves a word to the fields the shell would make of it.
// Substitutions inside it are walked as commands that run.
func (w *walker) expandWord(word *syntax.Word, c ctx, wi *wordInfo) []string {
	return w.appendFields(nil, word, c, wi)
}

// appendFields appends to dst the fields the shell would make of a word.
func (w *walker) appendFields(dst []string, word *syntax.Word, c ctx, wi *wordInfo) []string {
	if word == nil {
		return dst
	}
	if s, quoted, ok := w.literalWord(word); ok {
		if s == "" && !quoted {
			return dst
		}
		return w.appendField(dst, s)
	}
	if w.dialect == syntax.LangBash {
		syntax.SplitBraces(word)
	}
	for _, a := range w.parts(word.Parts, false, true, c, wi) {
		for _, f := range a {
			if f.s != "" || f.q {
				dst = w.appendField(dst, f.s)
			}
		}
	}
	return dst
}

func (w *walker) appendField(dst []string, s string) []string {
	if w.words >= maxWordsPerParse {
		w.overflow("more than 32768 words after expansion")
		return dst
	}
	w.words++
	return append(dst, s)
}

// literalWord resolves a word made only of literal text and quotes, with
// no brace expansion in it, as parts would, without building
// alternatives: most words an agent writes are such. ok is false for
// any other word.
func (w *walker) literalWord(word *syntax.Word) (s string, quoted, ok bool) {
	if len(word.Parts) == 1 {
		if l, isLit := word.Parts[0].(*syntax.Lit); isLit {
			if w.dialect == syntax.LangBash && strings.IndexByte(l.Value, '{') >= 0 {
				return "", false, false
			}
			return unescapeLit(l.Value, false), false, true
		}
	}
	var b strings.Builder
	for _, p := range word.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if w.dialect == syntax.LangBash && strings.IndexByte(p.Value, '{') >= 0 {
				return "", false, false
			}
			b.WriteString(unescapeLit(p.Value, false))
		case *syntax.SglQuoted:
			quoted = true
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			quoted = true
			for _, q := range p.Parts {
				l, isLit := q.(*syntax.Lit)
				if !isLit {
					return "", false, false
				}
				b.WriteString(unescapeLit(l.Value, true))
			}
		default:
			return "", false, false
		}
	}
	return b.String(), quoted, true
}

// expandString resolves a word that is not split into fields nor brace
// expanded (a redirect target, a here-string): its fields joined by a
// space.
func (w *walker) expandString(word *syntax.Word, c ctx, wi *wordInfo) string {
	if word == nil {
		return ""
	}
	return joinFields(w.parts(word.Parts, false, true, c, wi))
}

// heredocBody resolves a here-document's body: taken as written when its
// delimiter is quoted, otherwise expanded as inside double quotes.
func (w *walker) heredocBody(r *syntax.Redirect, c ctx, wi *wordInfo) string {
	if r.Hdoc == nil {
		return ""
	}
	quoted := false
	if r.Word != nil {
		for _, p := range r.Word.Parts {
			if l, ok := p.(*syntax.Lit); !ok || strings.IndexByte(l.Value, '\\') >= 0 {
				quoted = true
			}
		}
	}
	if quoted {
		var b strings.Builder
		for _, p := range r.Hdoc.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				b.WriteString(l.Value)
			}
		}
		return b.String()
	}
	// $HOME anywhere in the body is the home directory: the body is text a
	// command reads (a shell reading it sees "~" at the start of a word).
	prev := w.inHeredoc
	w.inHeredoc = true
	body := joinFields(w.parts(r.Hdoc.Parts, true, true, c, wi))
	w.inHeredoc = prev
	return body
}

func joinFields(alts []alt) string {
	var b strings.Builder
	for i, a := range alts {
		for j, f := range a {
			if i+j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(f.s)
		}
	}
	return b.String()
}

func single(s string, q bool) []alt { return []alt{{{s: s, q: q}}} }

// parts expands a sequence of word parts; dq is true inside double quotes,
// start is true when the parts begin the word.
func (w *walker) parts(ps []syntax.WordPart, dq, start bool, c ctx, wi *wordInfo) []alt {
	cur := []alt{{{q: dq}}}
	for i, p := range ps {
		atStart := start && i == 0
		var next []alt
		switch p := p.(type) {
		case *syntax.Lit:
			next = single(unescapeLit(p.Value, dq), dq)
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				v = ansiC(v)
			}
			next = single(v, true)
		case *syntax.DblQuoted:
			next = w.parts(p.Parts, true, atStart, c, wi)
			for _, a := range next {
				for k := range a {
					a[k].q = true
				}
			}
		case *syntax.ParamExp:
			next = w.paramExp(p, dq, atStart, c, wi)
		case *syntax.CmdSubst:
			w.walkStmts(p.Stmts, c.subst(), "command substitution")
			wi.note("$(...)")
			next = single(UnknownSubst, true)
		case *syntax.ProcSubst:
			w.walkStmts(p.Stmts, c.procSubst(p), "process substitution")
			wi.note("<(...)")
			next = single(UnknownProcSubst, true)
		case *syntax.ArithmExp:
			w.scanSubsts(p.X, c)
			wi.note("$((...))")
			next = single(Unknown, true)
		case *syntax.ExtGlob:
			next = single(p.Op.String()+p.Pattern.Value+")", false)
		case *syntax.BraceExp:
			next = w.braceExp(p, dq, c, wi)
		default:
			w.scanSubsts(p, c)
			wi.note("an expansion")
			next = single(Unknown, true)
		}
		cur = w.concat(cur, next)
	}
	return cur
}

func (w *walker) paramExp(p *syntax.ParamExp, dq, atStart bool, c ctx, wi *wordInfo) []alt {
	name := ""
	if p.Param != nil {
		name = p.Param.Value
	}
	plain := p.Exp == nil && p.Slice == nil && p.Repl == nil && p.Index == nil &&
		!p.Excl && !p.Length && !p.Width && !p.IsSet && p.Names == 0 &&
		p.NestedParam == nil && len(p.Modifiers) == 0
	switch {
	case plain && name == "IFS":
		if dq {
			return single(" ", true)
		}
		return []alt{{{}, {}}} // a field separator
	case plain && name == "HOME" && (atStart || w.inHeredoc):
		return single(Home, true)
	case plain && c.argsKnown && len(name) == 1 && name[0] >= '0' && name[0] <= '9':
		if k := int(name[0] - '0'); k < len(c.args) {
			return single(c.args[k], true)
		}
		wi.note("$" + name)
		return single(Unknown, true) // unset here; kept unknown all the same
	case plain && c.argsKnown && (name == "@" || name == "*"):
		if len(c.args) <= 1 {
			return single("", dq)
		}
		a := make(alt, 0, len(c.args)-1)
		for _, v := range c.args[1:] {
			a = append(a, field{s: v, q: true})
		}
		if dq && name == "*" {
			return single(strings.Join(c.args[1:], " "), true)
		}
		return []alt{a}
	case plain && name == unknownSentinel:
		wi.note("an expansion")
		return single(Unknown, true)
	}
	// ${x:-$(cmd)} and ${x/$(a)/$(b)} run what they hold.
	w.scanSubsts(p, c)
	if name == "" {
		name = "..."
	}
	if p.Short {
		wi.note("$" + name)
	} else {
		wi.note("${" + name + "}")
	}
	return single(Unknown, true)
}

func (w *walker) braceExp(b *syntax.BraceExp, dq bool, c ctx, wi *wordInfo) []alt {
	if b.Sequence {
		return w.braceSeq(b)
	}
	var out []alt
	for _, e := range b.Elems {
		out = append(out, w.parts(e.Parts, dq, false, c, wi)...)
		if len(out) > MaxBraceWords {
			w.overflow("brace expansion of more than 1024 words")
			return out[:MaxBraceWords]
		}
	}
	return out
}

// braceSeq expands {x..y[..step]} over integers or single characters.
func (w *walker) braceSeq(b *syntax.BraceExp) []alt {
	lits := make([]string, len(b.Elems))
	for i, e := range b.Elems {
		lits[i] = e.Lit()
	}
	literal := func() []alt { return single("{"+strings.Join(lits, "..")+"}", false) }
	if len(lits) < 2 {
		return literal()
	}
	step := int64(1)
	if len(lits) == 3 {
		s, err := strconv.ParseInt(lits[2], 10, 64)
		if err != nil {
			return literal()
		}
		if s < 0 {
			s = -s
		}
		if s == 0 {
			s = 1
		}
		step = s
	}
	x, errx := strconv.ParseInt(lits[0], 10, 64)
	y, erry := strconv.ParseInt(lits[1], 10, 64)
	isChar := false
	if errx != nil || erry != nil {
		rx, nx := utf8.DecodeRuneInString(lits[0])
		ry, ny := utf8.DecodeRuneInString(lits[1])
		if nx != len(lits[0]) || ny != len(lits[1]) || nx == 0 || ny == 0 {
			return literal()
		}
		x, y, isChar = int64(rx), int64(ry), true
	}
	var out []alt
	add := func(v int64) bool {
		if len(out) >= MaxBraceWords {
			w.overflow("brace expansion of more than 1024 words")
			return false
		}
		s := strconv.FormatInt(v, 10)
		if isChar {
			s = string(rune(v))
		}
		out = append(out, alt{{s: s}})
		return true
	}
	if x <= y {
		for v := x; v <= y && v >= x; v += step {
			if !add(v) {
				break
			}
		}
	} else {
		for v := x; v >= y && v <= x; v -= step {
			if !add(v) {
				break
			}
		}
	}
	return out
}

// concat joins every alternative of a with every alternative of b, the
// last field of one to the first of the other.
func (w *walker) concat(a, b []alt) []alt {
	if len(b) == 1 && len(b[0]) == 1 {
		for i := range a {
			last := &a[i][len(a[i])-1]
			last.s += b[0][0].s
			last.q = last.q || b[0][0].q
		}
		return a
	}
	out := make([]alt, 0, min(len(a)*len(b), MaxBraceWords))
	for _, x := range a {
		for _, y := range b {
			if len(out) >= MaxBraceWords {
				w.overflow("brace expansion of more than 1024 words")
				return out
			}
			z := make(alt, 0, len(x)+len(y)-1)
			z = append(z, x[:len(x)-1]...)
			l := x[len(x)-1]
			z = append(z, field{s: l.s + y[0].s, q: l.q || y[0].q})
			z = append(z, y[1:]...)
			out = append(out, z)
		}
	}
	return out
}

// unescapeLit removes the backslashes the shell removes: every one outside
// quotes (a backslash-newline disappears), and inside double quotes only
// those before $ ` " \ and newline.
func unescapeLit(s string, dq bool) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch != '\\' || i+1 >= len(s) {
			b.WriteByte(ch)
			continue
		}
		n := s[i+1]
		if dq && !strings.ContainsRune("$`\"\\\n", rune(n)) {
			b.WriteByte(ch)
			continue
		}
		i++
		if n != '\n' {
			b.WriteByte(n)
		}
	}
	return b.String()
}

// ansiC interprets the escapes of bash's $'...' quoting.
func ansiC(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch ch := s[i]; ch {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[ch]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(ch)
				continue
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if ch == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 32)
			b.WriteByte(byte(v))
			i = j - 1
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		default: // \\ \' \" \? and unknown escapes
			if !strings.ContainsRune("\\'\"?", rune(ch)) {
				b.WriteByte('\\')
			}
			b.WriteByte(ch)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
