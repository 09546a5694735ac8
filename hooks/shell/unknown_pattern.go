package shell

import (
	"strings"
	"unicode/utf8"
)

// unknownPattern is a resolved word with unknown parts read as a pattern
// over paths: each unknown part ("\x00", "\x00$(...)", ...) stands for any
// text, slashes included; the literal parts keep their glob characters
// ("*" any text within one path segment, "?" and a bracket expression one
// character of it); and the path may end in more slashes. It is matched by
// stepping a set of positions through the path, so a pattern of many stars
// costs its length times the path's, never more. One pattern is matched
// by one goroutine: it keeps its scratch.
type unknownPattern struct {
	toks     []patternToken
	at, next []bool
}

type patternKind uint8

const (
	patLiteral patternKind = iota // one rune, itself
	patOne                        // one rune, not "/"
	patSegment                    // any runes, none "/"
	patAny                        // any runes but a newline
	patSlashes                    // any number of "/", closing every pattern
)

type patternToken struct {
	kind patternKind
	r    rune
}

// unknownSuffixes follow the "\x00" of a placeholder (see Unknown and the
// constants after it); the bare "\x00" is Unknown itself.
var unknownSuffixes = []string{"$(...)", "<(...)", "stdin", "find"}

// compileUnknownPattern reads w as an unknownPattern; ok is false when w
// holds no unknown part.
func compileUnknownPattern(w string) (up unknownPattern, ok bool) {
	p := make([]patternToken, 0, len(w)+1)
	for i := 0; i < len(w); {
		switch w[i] {
		case 0:
			ok = true
			i++
			for _, s := range unknownSuffixes {
				if strings.HasPrefix(w[i:], s) {
					i += len(s)
					break
				}
			}
			p = append(p, patternToken{kind: patAny})
			continue
		case '*':
			p = append(p, patternToken{kind: patSegment})
			i++
			continue
		case '?':
			p = append(p, patternToken{kind: patOne})
			i++
			continue
		case '[':
			// A bracket expression is one character of its segment: the
			// shortest run to a "]" within the same literal part and line.
			if end := strings.IndexAny(w[i+1:], "]\n\x00"); end >= 0 && w[i+1+end] == ']' {
				p = append(p, patternToken{kind: patOne})
				i += end + 2
				continue
			}
		}
		r, n := utf8.DecodeRuneInString(w[i:])
		p = append(p, patternToken{kind: patLiteral, r: r})
		i += n
	}
	p = append(p, patternToken{kind: patSlashes})
	scratch := make([]bool, 2*(len(p)+1))
	return unknownPattern{toks: p, at: scratch[:len(p)+1], next: scratch[len(p)+1:]}, ok
}

// matches reports whether the whole of path s is one the pattern stands
// for.
func (up *unknownPattern) matches(s string) bool {
	// at[k] is true when the first k tokens can match the runes read so
	// far.
	p, at, next := up.toks, up.at, up.next
	clear(at)
	at[0] = true
	closeEmpty(p, at)
	for _, r := range s {
		clear(next)
		live := false
		for k, on := range at[:len(p)] {
			if !on {
				continue
			}
			switch t := p[k]; {
			case t.kind == patLiteral && t.r == r, t.kind == patOne && r != '/':
				next[k+1], live = true, true
			case t.kind == patSegment && r != '/', t.kind == patAny && r != '\n', t.kind == patSlashes && r == '/':
				next[k], live = true, true
			}
		}
		if !live {
			return false
		}
		at, next = next, at
		closeEmpty(p, at)
	}
	return at[len(p)]
}

// closeEmpty marks, after each marked position, those reachable through
// tokens that may match no rune.
func closeEmpty(p []patternToken, at []bool) {
	for k, t := range p {
		if at[k] && (t.kind == patSegment || t.kind == patAny || t.kind == patSlashes) {
			at[k+1] = true
		}
	}
}
