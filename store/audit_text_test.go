package store

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutKeepsCharactersWhole(t *testing.T) {
	s := strings.Repeat("é", 300)
	got := cut(s, ErrorMax)
	if utf8.RuneCountInString(got) != ErrorMax || !utf8.ValidString(got) {
		t.Fatalf("cut to %d characters, valid %v", utf8.RuneCountInString(got), utf8.ValidString(got))
	}
	if cut("short", ErrorMax) != "short" {
		t.Fatal("short text changed")
	}
}

func TestRedactRemovesSecrets(t *testing.T) {
	r := newRedactor([]string{"upstream-key-0123456789", "short"})
	for _, tc := range []struct{ in, gone string }{
		{"POST failed with key upstream-key-0123456789 rejected", "upstream-key-0123456789"},
		{"401 from judge: Authorization: Bearer abcdefghijklmnop", "abcdefghijklmnop"},
		{"invalid api key sk-proj-CANARY1234567890abc", "CANARY1234567890abc"},
		{`config {"api_key": "k3y-v4lue-123"} refused`, "k3y-v4lue-123"},
		{"dial https://user:p4ssw0rd@policy.internal/x: timeout", "p4ssw0rd"},
		{"token=abcdef123456&x=1", "abcdef123456"},
	} {
		got := r.redact(tc.in)
		if strings.Contains(got, tc.gone) || !strings.Contains(got, "[redacted]") {
			t.Errorf("%q -> %q", tc.in, got)
		}
	}
	if got := r.redact("a short note"); got != "a short note" {
		t.Errorf("short secret blanked words: %q", got)
	}
}
