package providers

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFieldEndsWithNewline(t *testing.T) {
	for _, raw := range []string{
		`"a\n"`, `"\n"`, `"a\u000a"`, `"a\u000A"`, `"a\\\n"`, `"a\\n"`, `"a\\\\n"`, `"a"`, `""`, `null`, `1`, `"n"`,
		`"\\"`, `"a\r\n"`, `"a\n "`, `"\u000a"`, `"\\u000a"`, `"\\\u000a"`,
	} {
		var s string
		want := json.Unmarshal([]byte(raw), &s) == nil && strings.HasSuffix(s, "\n")
		if got := (Field{Raw: []byte(raw)}).EndsWithNewline(); got != want {
			t.Errorf("%s: %v, want %v", raw, got, want)
		}
	}
}

func FuzzFieldEndsWithNewline(f *testing.F) {
	for _, s := range []string{"a\n", "a", "\\n", "x\u000a", ""} {
		b, _ := json.Marshal(s)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var s string
		if json.Unmarshal(raw, &s) != nil || len(raw) == 0 || raw[0] != '"' {
			return
		}
		if got, want := (Field{Raw: raw}).EndsWithNewline(), strings.HasSuffix(s, "\n"); got != want {
			t.Fatalf("%q: %v, want %v", raw, got, want)
		}
	})
}
