package builtin

// Finding secrets quickly. Go's regexp tries a match at every position of
// its input (backtracking or with an NFA) unless a pattern starts with one
// case-sensitive literal, which few of secret_guard's do; twelve such
// walks over a 64 KiB file would cost milliseconds. Instead one pass over a value looks for the hints of
// every enabled kind at once (a table of the bytes hints start with), and
// a kind's anchored pattern is tried only where a match holding a hint
// found can start.

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// maxSecretKinds bounds the catalogue, so that a scan keeps its
// per-kind state on the stack.
const maxSecretKinds = 16

// hintRef is one hint of one enabled kind.
type hintRef struct {
	kind int // index into secretGuard.kinds
	hint string
	fold bool // compare without regard to ASCII case (hint is lower case)
}

// hintTable indexes the enabled kinds' hints by their first byte (both
// cases of it for folded hints); refs of one byte are in kind order.
type hintTable struct {
	start [256]bool
	refs  [256][]hintRef
}

func newHintTable(kinds []*secretKind) *hintTable {
	t := &hintTable{}
	add := func(c byte, r hintRef) {
		t.start[c] = true
		t.refs[c] = append(t.refs[c], r)
	}
	for ki, k := range kinds {
		for _, h := range k.hints {
			r := hintRef{kind: ki, hint: h, fold: k.foldHints}
			add(h[0], r)
			if up := upperASCII(h[0]); k.foldHints && up != h[0] {
				add(up, r)
			}
		}
	}
	return t
}

// findSecret returns the first kind (by position of its hint, then by
// catalogue order) with a match in s that accept lets through, or nil.
func (g *secretGuard) findSecret(s string) *secretKind {
	var tried [maxSecretKinds]int // per kind: the last start tried
	for i := range g.kinds {
		tried[i] = -1
	}
	t := g.hintTable
	for i := 0; i < len(s); i++ {
		if !t.start[s[i]] {
			continue
		}
		for _, r := range t.refs[s[i]] {
			if !hintAt(s, i, r) {
				continue
			}
			k := g.kinds[r.kind]
			if k.matchNear(s, i, &tried[r.kind], g.accepts) {
				return k
			}
		}
	}
	return nil
}

func hintAt(s string, i int, r hintRef) bool {
	if i+len(r.hint) > len(s) {
		return false
	}
	if r.fold {
		return equalFoldASCII(s[i:i+len(r.hint)], r.hint)
	}
	return s[i:i+len(r.hint)] == r.hint
}

// matchNear tries k's anchored pattern at every start from which a match
// could hold the hint at h: h-before to h, skipping starts tried already
// for an earlier hint. The text given to the pattern ends one byte past
// h+span, so that a trailing \b or $ sees what really follows; a match
// that still reaches the end of that text, short of the end of s, is
// ignored, since only the cut satisfied it.
func (k *secretKind) matchNear(s string, h int, tried *int, accept func(*secretKind, string) bool) bool {
	end := min(len(s), h+k.span+1)
	cut := end < len(s)
	for p := max(*tried+1, h-k.before, 0); p <= h; p++ {
		*tried = p
		if k.hasFirst && !k.first[s[p]] {
			continue
		}
		if k.wordStart && p > 0 && isWordByte(s[p-1]) {
			continue
		}
		w := s[p:end]
		if !k.re.MatchString(w) {
			continue
		}
		m := k.re.FindStringSubmatchIndex(w)
		if m == nil || (cut && m[1] == len(w)) {
			continue
		}
		if lo, hi := m[2*k.group], m[2*k.group+1]; lo >= 0 && accept(k, w[lo:hi]) {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// equalFoldASCII reports whether s equals lower (lower case ASCII)
// regardless of ASCII case.
func equalFoldASCII(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// firstBytes computes the bytes a match of pattern can start with. ok is
// false when the pattern can match the empty string (any start will do).
// A non-ASCII rune contributes the leading bytes of its encoding.
func firstBytes(pattern string) (set [256]bool, ok bool, err error) {
	re, err := parseASCIIFold(pattern)
	if err != nil {
		return set, false, err
	}
	nullable := addFirst(re.Simplify(), &set)
	return set, !nullable, nil
}

// addFirst adds the bytes re can start with to set and reports whether re
// can match the empty string.
func addFirst(re *syntax.Regexp, set *[256]bool) (nullable bool) {
	addRune := func(r rune) {
		var b [utf8.UTFMax]byte
		utf8.EncodeRune(b[:], r)
		set[b[0]] = true
	}
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return true
		}
		r := re.Rune[0]
		addRune(r)
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				addRune(f)
			}
		}
		return false
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
				set[r] = true
			}
			if hi >= utf8.RuneSelf {
				for b := 0xC2; b <= 0xF4; b++ { // any multi-byte leading byte
					set[b] = true
				}
			}
		}
		return false
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		for b := range set {
			set[b] = true
		}
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return addFirst(re.Sub[0], set)
	case syntax.OpStar, syntax.OpQuest:
		addFirst(re.Sub[0], set)
		return true
	case syntax.OpRepeat:
		return addFirst(re.Sub[0], set) || re.Min == 0
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !addFirst(sub, set) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if addFirst(sub, set) {
				nullable = true
			}
		}
		return nullable
	case syntax.OpNoMatch:
		return false
	default: // empty match and the assertions: ^ $ \A \z \b \B
		return true
	}
}
