package shell

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// regexpForUnknown is the reading unknownPattern implements, spelled as a
// regular expression: unknown parts ".*", literal parts quoted with their
// glob characters kept ("*" "[^/]*", "?" and a bracket "[^/]"), anchored,
// with trailing slashes allowed. It is the reference the tests hold the
// hand matcher to.
func regexpForUnknown(t testing.TB, w string) (*regexp.Regexp, bool) {
	spans := regexp.MustCompile(`\x00(?:\$\(\.\.\.\)|<\(\.\.\.\)|stdin|find)?`)
	bracket := regexp.MustCompile(`\\\[.*?\\\]`)
	globs := strings.NewReplacer(`\*`, `[^/]*`, `\?`, `[^/]`)
	lit := func(s string) string {
		return globs.Replace(bracket.ReplaceAllLiteralString(regexp.QuoteMeta(s), `[^/]`))
	}
	var re strings.Builder
	re.WriteString("^")
	last := 0
	for _, loc := range spans.FindAllStringIndex(w, -1) {
		re.WriteString(lit(w[last:loc[0]]))
		re.WriteString(".*")
		last = loc[1]
	}
	if last == 0 {
		return nil, false
	}
	re.WriteString(lit(w[last:]))
	re.WriteString("/*$")
	rx, err := regexp.Compile(re.String())
	if err != nil {
		t.Fatalf("reference for %q: %v", w, err)
	}
	return rx, true
}

var unknownPatternCases = []string{
	"/\x00", "\x00", "/\x00/", "/e\x00", "/etc/\x00", "\x00$(...)/x", "/tmp/\x00stdin",
	"\x00find", "/h\x00e", "/*\x00", "/?\x00", "/[ab]\x00", "/[\x00]", "/l[i]b\x00",
	"/\x00*", "/\x00//", "//\x00", "/us?/\x00", "\x00<(...)x", "/\x00\x00", "/[a\nb]\x00",
	"~/\x00", "~\x00", "/home/\x00/.ssh", "/\x00/..", "/é\x00", "/[é]\x00", "/var/lib/\x00",
}

var unknownPatternPaths = []string{
	"/", "/etc", "/etc/", "/etc//", "/usr", "/lib", "/lib64", "/home", "/home/u", Home, Home + "/x",
	"/Users", "/var/lib", "/é", "/x/y", "", "//", "/a\nb", "/tmp/../etc",
}

// TestUnknownPatternAgreesWithRegexp holds compileUnknownPattern to the
// regular expression it stands for, on hand-picked words and paths.
func TestUnknownPatternAgreesWithRegexp(t *testing.T) {
	matched := 0
	for _, w := range unknownPatternCases {
		for _, s := range unknownPatternPaths {
			if compareUnknownPattern(t, w, s) {
				matched++
			}
		}
	}
	// The cases must exercise both answers, or agreement proves little.
	if matched == 0 || matched == len(unknownPatternCases)*len(unknownPatternPaths) {
		t.Fatalf("%d of %d pairs matched: the cases do not exercise both answers", matched, len(unknownPatternCases)*len(unknownPatternPaths))
	}
}

// FuzzUnknownPattern holds the hand matcher to the regular expression on
// any word and path.
func FuzzUnknownPattern(f *testing.F) {
	for i, w := range unknownPatternCases {
		f.Add(w, unknownPatternPaths[i%len(unknownPatternPaths)])
	}
	f.Fuzz(func(t *testing.T, w, s string) {
		if !utf8.ValidString(w) {
			if !newProtectedSet(DefaultProtected, "").mayBeProtected(w) {
				t.Fatalf("%q is not UTF-8, and was not read as maybe protected", w)
			}
			return
		}
		if !strings.ContainsRune(w, 0) || strings.ContainsRune(s, 0) {
			return
		}
		compareUnknownPattern(t, w, s)
	})
}

func compareUnknownPattern(t *testing.T, w, s string) bool {
	t.Helper()
	rx, okRe := regexpForUnknown(t, w)
	p, ok := compileUnknownPattern(w)
	if ok != okRe {
		t.Fatalf("%q: compiled %v, reference %v", w, ok, okRe)
	}
	if !ok {
		return false
	}
	got, want := p.matches(s), rx.MatchString(s)
	if got != want {
		t.Errorf("%q on %q: matcher %v, regexp %v (%s)", w, s, got, want, rx)
	}
	return got
}
