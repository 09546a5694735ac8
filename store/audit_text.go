package store

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// ErrorMax is how many characters of an error the error column keeps; the
// whole text goes, sealed, to error_detail.
const ErrorMax = 256

// MaxLabelText is how many characters of a tool name, tenant or agent id
// an execution row keeps (a tool name comes from the model).
const MaxLabelText = 128

// cut keeps the first n characters of s, never splitting one.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// minSecretLen: shorter configured secrets are not searched for, so that a
// short value cannot blank out ordinary words of an error.
const minSecretLen = 8

// credentialPatterns find credentials that no configuration names (a
// client's key that a hook's error quotes): bearer and basic
// authorisations, sk-style keys, name=value pairs named like secrets, and
// passwords in URLs.
var credentialPatterns = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{6,}`), "$1$2[redacted]"},
	{regexp.MustCompile(`\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}`), "$1-[redacted]"},
	{regexp.MustCompile(`(?i)\b([a-z0-9_-]*(?:api[_-]?key|token|secret|password|passwd)["']?\s*[:=]\s*["']?)[^\s"'&,;]{4,}`), "$1[redacted]"},
	{regexp.MustCompile(`(://[^/\s:@]+:)[^/\s@]+@`), "$1[redacted]@"},
}

// redactor removes secrets from error texts before they are stored, even
// sealed: an audit row must never hold a key.
type redactor struct {
	secrets []string
}

func newRedactor(secrets []string) *redactor {
	r := &redactor{}
	for _, s := range secrets {
		if len(s) >= minSecretLen && !slices.Contains(r.secrets, s) {
			r.secrets = append(r.secrets, s)
		}
	}
	// Longest first, so that a secret containing another goes whole.
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	return r
}

func (r *redactor) redact(s string) string {
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	for _, p := range credentialPatterns {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	return s
}
