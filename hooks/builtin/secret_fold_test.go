package builtin

import "testing"

func TestASCIIFold(t *testing.T) {
	for _, tc := range []struct {
		pattern, in string
		match       bool
	}{
		{`(?i)secret`, "SeCrEt", true},
		{`(?i)secret`, "\u017fecret", false}, // ſecret
		{`(?i)key`, "\u212aey", false},       // Kelvin-sign key
		{`(?i)^[a-z]+$`, "abc", true},
		{`(?i)^[a-z]+$`, "ab\u017f", false},
		{`(?i)^x[^a-z]$`, "x\u017f", true}, // a negated class keeps them
		{`(?i)^x[^a-z]$`, "x\u212a", true},
		{`(?i)^x[^a-z]$`, "xQ", false},
		{`^[a-z]$`, "q", true}, // no (?i): untouched
		{`(?i)^ÄÖ$`, "äö", true},
	} {
		re, err := compileASCIIFold(tc.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tc.pattern, err)
		}
		if got := re.MatchString(tc.in); got != tc.match {
			t.Errorf("%s on %q: %v", tc.pattern, tc.in, got)
		}
	}
}

func TestAddRemoveRune(t *testing.T) {
	pairs := []rune{'a', 'c', 'e', 'g'}
	if got := addRune(pairs, 'd'); string(got) != "ag" {
		t.Errorf("add d: %q", string(got))
	}
	if got := addRune(pairs, 'z'); string(got) != "acegzz" {
		t.Errorf("add z: %q", string(got))
	}
	if got := addRune(pairs, 'b'); string(got) != "aceg" {
		t.Errorf("add b: %q", string(got))
	}
	if got := removeRune(pairs, 'b'); string(got) != "aacceg" {
		t.Errorf("remove b: %q", string(got))
	}
	if got := removeRune(pairs, 'e'); string(got) != "acfg" {
		t.Errorf("remove e: %q", string(got))
	}
}
