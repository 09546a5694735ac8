package builtin

import (
	"math"
	"regexp"
	"strings"
)

// secretKind is one kind of credential secret_guard recognises, by what a
// string value looks like (re) and, for secrets that look like any random
// string, by the map key that names them (keyRe with valueRe).
//
// The pattern is never run over a whole value (see secret_hints.go):
// every kind names hints, literals of which every match holds at least
// one, and the pattern, anchored, is tried only where a match holding a
// hint found can start. Its quantifiers are bounded so that a match ends
// within span bytes of its hint.
type secretKind struct {
	// name is what `with.kinds` selects and what a block reason names.
	name string
	// byDefault is whether the kind is on when `kinds` is not set.
	byDefault bool

	// pattern finds the secret in a string value. re is pattern anchored
	// at the start (compiled by init).
	pattern string
	re      *regexp.Regexp
	// first holds the bytes a match can start with (hasFirst: known), so
	// that most starts are refused without running the pattern.
	first    [256]bool
	hasFirst bool
	// wordStart requires a match not to follow a word character (the
	// pattern's leading \b, which an anchored match cannot see).
	wordStart bool
	// group is the submatch of re that holds the secret (0: the whole
	// match); valid and allow are applied to it.
	group int
	// hints are literals of which at least one occurs in every match of
	// re; foldHints compares them without regard to ASCII case (they are
	// then lower case).
	hints     []string
	foldHints bool
	// before is how far ahead of its first hint a match may start, span
	// how far past the hint's start it may end.
	before, span int

	// keyRe and valueRe: a string value under a map key matching keyRe is
	// this kind of secret when it matches valueRe.
	keyRe, valueRe *regexp.Regexp

	// valid filters candidates: false means "not a secret after all".
	valid func(secret string) bool
}

// secretKinds are the kinds in the order they are tried: a more specific
// kind comes before a general one that would also match, so the reason
// names the more specific.
var secretKinds = []*secretKind{
	{
		name: "gcp_service_account", byDefault: true,
		// A service-account key file's fields, as JSON text (also escaped
		// inside another JSON string or a shell argument).
		pattern: `\\?"private_key_id\\?"\s{0,16}:\s{0,16}\\?"[0-9a-f]{40}\\?"|\\?"private_key\\?"\s{0,16}:\s{0,16}\\?"-----BEGIN [A-Z ]{0,20}PRIVATE KEY-----`,
		hints:   []string{"private_key"},
		before:  2,
		span:    128,
		keyRe:   regexp.MustCompile(`^private_key(?:_id)?$`),
		valueRe: regexp.MustCompile(`^[0-9a-f]{40}$|-----BEGIN [A-Z ]{0,20}PRIVATE KEY-----`),
	},
	{
		name: "private_key", byDefault: true,
		// A PEM or PGP private key block: the armour line, optional header
		// lines (Proc-Type:, Version:), then at least 40 characters of
		// key material, so that code merely mentioning the armour line
		// passes. Line breaks may be real or escaped (\n).
		pattern: `-----BEGIN [A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----(?:\s|\\[rn]){1,8}(?:[A-Za-z-]{1,32}:[^\r\n]{0,128}?(?:\r?\n|\\r?\\n)(?:\s|\\[rn]){0,8}){0,4}[A-Za-z0-9+/]{40}`,
		hints:   []string{"PRIVATE KEY"},
		before:  48,
		span:    1024,
	},
	{
		name: "aws_access_key_id", byDefault: true,
		// Long-term (AKIA) and temporary (ASIA) access key ids.
		pattern:   `(?:AKIA|ASIA)[A-Z0-9]{16}\b`,
		wordStart: true,
		hints:     []string{"AKIA", "ASIA"},
		span:      20,
	},
	{
		name: "aws_secret_access_key", byDefault: true,
		// 40 characters of base64 are anything; only the name next to
		// them makes them an AWS secret key.
		pattern:   `(?i)(?:aws[_-]?secret[_-]?(?:access[_-]?)?key|secret[_-]?access[_-]?key)\\?["']?\s{0,16}[:=]\s{0,16}\\?["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
		group:     1,
		hints:     []string{"secret"},
		foldHints: true,
		before:    4,
		span:      128,
		keyRe:     mustASCIIFold(`(?i)^(?:aws[_-]?secret[_-]?(?:access[_-]?)?key|secret[_-]?access[_-]?key)$`),
		valueRe:   regexp.MustCompile(`^[A-Za-z0-9/+]{40}$`),
	},
	{
		name: "github_token", byDefault: true,
		// Personal (ghp_), OAuth (gho_), user-to-server (ghu_),
		// server-to-server (ghs_), refresh (ghr_) and fine-grained
		// (github_pat_) tokens.
		pattern:   `(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22})`,
		wordStart: true,
		hints:     []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		span:      40,
	},
	{
		name: "slack_token", byDefault: true,
		pattern:   `xox[abposr]-[A-Za-z0-9-]{10}`,
		wordStart: true,
		hints:     []string{"xox"},
		span:      16,
	},
	{
		name: "slack_webhook", byDefault: true,
		pattern: `https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20}`,
		hints:   []string{"hooks.slack.com/"},
		before:  8,
		span:    64,
	},
	{
		name: "anthropic_key", byDefault: true,
		pattern:   `sk-ant-[A-Za-z0-9_-]{20}`,
		wordStart: true,
		hints:     []string{"sk-ant-"},
		span:      32,
	},
	{
		name: "openai_key", byDefault: true,
		// sk-, sk-proj-, sk-svcacct-, sk-admin- followed by random
		// characters. Words such as sk-learn-compatible-estimator are not
		// random: a key has digits and both cases.
		pattern:   `sk-[A-Za-z0-9_-]{20,200}`,
		wordStart: true,
		hints:     []string{"sk-"},
		span:      208,
		valid:     func(s string) bool { return !strings.HasPrefix(s, "sk-ant-") && mixedCharacters(s[3:]) },
	},
	{
		name: "stripe_key", byDefault: true,
		// Secret (sk_) and restricted (rk_) keys, live and test;
		// publishable keys (pk_) are public by design.
		pattern:   `[sr]k_(?:live|test)_[A-Za-z0-9]{16}`,
		wordStart: true,
		hints:     []string{"k_live_", "k_test_"},
		before:    1,
		span:      24,
	},
	{
		name: "jwt", byDefault: true,
		// header.payload[.signature], both JSON parts starting `{"`: a
		// header and the start of a payload are evidence enough.
		pattern:   `eyJ[A-Za-z0-9_-]{8,1000}\.eyJ[A-Za-z0-9_-]{8}`,
		wordStart: true,
		hints:     []string{"eyJ"},
		span:      1024,
	},
	{
		name: "generic_assignment", byDefault: false,
		// password=..., api_key: ..., token=... with a value that looks
		// random. Off by default: it guesses, and it will sometimes guess
		// wrong.
		pattern:   `(?i)(?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token)\\?["']?\s{0,16}[:=]\s{0,16}\\?["']?([^\s"'\\&;,]{8,128})`,
		wordStart: true,
		group:     1,
		hints:     []string{"pass", "pwd", "secret", "key", "token"},
		foldHints: true,
		before:    8,
		span:      192,
		keyRe:     mustASCIIFold(`(?i)^(?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token)$`),
		valueRe:   regexp.MustCompile(`^\S{8,}$`),
		valid:     highEntropy,
	},
}

func init() {
	if len(secretKinds) > maxSecretKinds {
		panic("more secret kinds than maxSecretKinds")
	}
	for _, k := range secretKinds {
		if len(k.hints) == 0 {
			panic("secret kind " + k.name + " has no hints")
		}
		k.re = mustASCIIFold(`^(?:` + k.pattern + `)`)
		first, ok, err := firstBytes(k.pattern)
		if err != nil {
			panic(err)
		}
		k.first, k.hasFirst = first, ok
	}
}

// secretKindByName finds a kind.
func secretKindByName(name string) *secretKind {
	for _, k := range secretKinds {
		if k.name == name {
			return k
		}
	}
	return nil
}

// mixedCharacters reports whether s has a digit, an upper and a lower case
// letter, as a random key almost always does.
func mixedCharacters(s string) bool {
	var digit, upper, lower bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			digit = true
		case 'A' <= c && c <= 'Z':
			upper = true
		case 'a' <= c && c <= 'z':
			lower = true
		}
	}
	return digit && upper && lower
}

// Thresholds of generic_assignment: a value of at least minGenericLen
// bytes whose characters carry at least minGenericEntropy bits each.
const (
	minGenericLen     = 8
	minGenericEntropy = 3.0
)

// highEntropy reports whether s looks like a random secret rather than a
// word, a placeholder (${VAR}, <password>, ****) or a repeated pattern.
func highEntropy(s string) bool {
	if len(s) < minGenericLen {
		return false
	}
	switch s[0] {
	case '$', '<', '{', '%', '*':
		return false
	}
	return shannonBits(s) >= minGenericEntropy
}

// shannonBits is the Shannon entropy of s's bytes, in bits per byte.
func shannonBits(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	var h float64
	for _, c := range counts {
		if c == 0 {
			continue
		}
		p := float64(c) / n
		h -= p * math.Log2(p)
	}
	return h
}
