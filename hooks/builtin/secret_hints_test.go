package builtin

import (
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/hookgate/hookgate/hooks"
)

// reference holds, per kind, a guard of that kind alone and the kind's
// pattern as a plain unanchored regexp would run it over a whole value.
var reference = sync.OnceValue(func() map[string]struct {
	guard *secretGuard
	re    *regexp.Regexp
} {
	m := map[string]struct {
		guard *secretGuard
		re    *regexp.Regexp
	}{}
	for _, k := range secretKinds {
		h, err := NewSecretGuard(hooks.BuiltinConfig{Event: hooks.PreToolUse, With: map[string]any{"kinds": []any{k.name}}})
		if err != nil {
			panic(err)
		}
		p := k.pattern
		if k.wordStart {
			if strings.HasPrefix(p, "(?i)") {
				p = `(?i)\b(?:` + p[4:] + `)`
			} else {
				p = `\b(?:` + p + `)`
			}
		}
		m[k.name] = struct {
			guard *secretGuard
			re    *regexp.Regexp
		}{h.(*secretGuard), mustASCIIFold(p)}
	}
	return m
})

// wholeStringFinds is the reference find: every match of the plain
// regexp over all of s.
func wholeStringFinds(k *secretKind, re *regexp.Regexp, s string) bool {
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		lo, hi := m[2*k.group], m[2*k.group+1]
		if lo >= 0 && (k.valid == nil || k.valid(s[lo:hi])) {
			return true
		}
	}
	return false
}

// checkHintsAgree asserts that the hint-driven scan finds a secret in s
// whenever the whole-string reference does, and only where the pattern
// does match.
func checkHintsAgree(t *testing.T, s string) {
	t.Helper()
	for _, k := range secretKinds {
		ref := reference()[k.name]
		got := ref.guard.findSecret(s) != nil
		want := wholeStringFinds(k, ref.re, s)
		if want && !got {
			t.Fatalf("%s: the reference finds a secret in %q, the hint scan does not", k.name, s)
		}
		if got && !want && !ref.re.MatchString(s) {
			t.Fatalf("%s: the hint scan finds a secret in %q where the pattern matches nothing", k.name, s)
		}
	}
}

func secretSeeds() []string {
	var seeds []string
	for _, tc := range defaultSecretCases() {
		walkStrings(tc.input, func(s string) bool { seeds = append(seeds, s); return true })
	}
	return append(seeds,
		"password="+fake("", alnum, 20),
		"client_secret: '"+fake("", alnum, 30)+"'",
		"my_api-key = "+fake("", alnum, 12)+" token:"+fake("", alnum, 12),
		"xsk-"+fake("", alnum, 30)+" sk-"+fake("", alnum, 30),
		strings.Repeat("secret ", 50)+"aws_secret_access_key="+fake("", base64Std, 40),
	)
}

func TestHintScanAgreesWithWholeString(t *testing.T) {
	for _, s := range secretSeeds() {
		checkHintsAgree(t, s)
		// Shifted and cut: the secret near either end of the value.
		checkHintsAgree(t, "x "+s+" y")
		if len(s) > 2 {
			checkHintsAgree(t, s[1:])
			checkHintsAgree(t, s[:len(s)-1])
		}
	}
}

func FuzzHintScan(f *testing.F) {
	for _, s := range secretSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			t.Skip()
		}
		checkHintsAgree(t, s)
	})
}

func TestFirstBytes(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		in, out string // bytes in and out of the set
		ok      bool
	}{
		{`abc`, "a", "bA", true},
		{`(?i)abc`, "aA", "b", true},
		{`(?:x|y)?z`, "xyz", "a", true},
		{`[0-9a-f]{2}`, "0af", "gA", true},
		{`\b(?:AKIA|ASIA)`, "A", "S", true},
		{`a*`, "", "", false},
		{`(?i)s`, "sS", "\xc5", true}, // ASCII folding only: not ſ
	} {
		set, ok, err := firstBytes(tc.pattern)
		if err != nil || ok != tc.ok {
			t.Fatalf("%s: ok %v err %v", tc.pattern, ok, err)
		}
		for i := 0; i < len(tc.in); i++ {
			if !set[tc.in[i]] {
				t.Errorf("%s: %q missing", tc.pattern, tc.in[i])
			}
		}
		for i := 0; i < len(tc.out); i++ {
			if set[tc.out[i]] {
				t.Errorf("%s: %q present", tc.pattern, tc.out[i])
			}
		}
	}
}
