package builtin

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode"
)

// Go's (?i) folds case the Unicode way: s also matches ſ (U+017F) and k
// the Kelvin sign (U+212A), the two non-ASCII runes that fold to ASCII. secret_guard finds its case-insensitive kinds
// through hints compared in ASCII (see secret_hints.go), so their patterns
// must fold the same way: asciiFold rewrites a parsed pattern so that case
// folding stays within ASCII.

// compileASCIIFold compiles pattern, with (?i) folding ASCII only.
func compileASCIIFold(pattern string) (*regexp.Regexp, error) {
	re, err := parseASCIIFold(pattern)
	if err != nil {
		return nil, err
	}
	return regexp.Compile(re.String())
}

// mustASCIIFold is compileASCIIFold for the catalogue's own patterns.
func mustASCIIFold(pattern string) *regexp.Regexp {
	re, err := compileASCIIFold(pattern)
	if err != nil {
		panic(err)
	}
	return re
}

// parseASCIIFold parses pattern and rewrites its case folding to ASCII.
func parseASCIIFold(pattern string) (*syntax.Regexp, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	asciiFold(re)
	return re, nil
}

func asciiFold(re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			break
		}
		subs := make([]*syntax.Regexp, len(re.Rune))
		for i, r := range re.Rune {
			lo, up := unicode.ToLower(r), unicode.ToUpper(r)
			if lo < unicode.MaxASCII && up < unicode.MaxASCII && lo != up {
				subs[i] = &syntax.Regexp{Op: syntax.OpCharClass, Rune: []rune{up, up, lo, lo}}
			} else {
				// Not an ASCII letter: fold as the parser would.
				subs[i] = &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{r}, Flags: re.Flags}
			}
		}
		*re = syntax.Regexp{Op: syntax.OpConcat, Sub: subs}
		return // the new nodes need no rewriting
	case syntax.OpCharClass:
		if re.Flags&syntax.FoldCase == 0 {
			break
		}
		// The parser has added the non-ASCII folds of the class's letters
		// to a class ([a-z] holds ſ), and so taken them out of a negated
		// one ([^a-z] lacks ſ), which reaches the last rune.
		if n := len(re.Rune); n > 0 && re.Rune[n-1] == unicode.MaxRune {
			re.Rune = addRune(addRune(re.Rune, longS), kelvin)
		} else {
			re.Rune = removeRune(removeRune(re.Rune, longS), kelvin)
		}
	}
	for _, sub := range re.Sub {
		asciiFold(sub)
	}
}

// The two non-ASCII runes that fold to ASCII letters.
const (
	longS  = '\u017f' // ſ, folds to s
	kelvin = '\u212a' // K, folds to k
)

// addRune puts r into a class's sorted [lo, hi] pairs, merging ranges
// that then touch (the printer of a negated class needs them merged).
func addRune(pairs []rune, r rune) []rune {
	out := make([]rune, 0, len(pairs)+2)
	added := false
	push := func(lo, hi rune) {
		if n := len(out); n > 0 && lo <= out[n-1]+1 {
			out[n-1] = max(out[n-1], hi)
			return
		}
		out = append(out, lo, hi)
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		if !added && r < pairs[i] {
			push(r, r)
			added = true
		}
		push(pairs[i], pairs[i+1])
	}
	if !added {
		push(r, r)
	}
	return out
}

// removeRune takes r out of a class's sorted [lo, hi] pairs.
func removeRune(pairs []rune, r rune) []rune {
	for i := 0; i+1 < len(pairs); i += 2 {
		lo, hi := pairs[i], pairs[i+1]
		if r < lo || r > hi {
			continue
		}
		var repl []rune
		if lo < r {
			repl = append(repl, lo, r-1)
		}
		if r < hi {
			repl = append(repl, r+1, hi)
		}
		return slices.Concat(pairs[:i], repl, pairs[i+2:])
	}
	return pairs
}
