package store

import (
	"encoding/json"
	"strings"
	"testing"
)

// The examples of RFC 8785: section 3.2.2 (primitives), 3.2.3 (sorting by
// UTF-16 code units) and Appendix B (numbers).
func TestCanonicalRFC8785Examples(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{
			name: "3.2.2 primitives",
			in: `{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`,
			want: `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
		},
		{
			name: "3.2.3 sorting",
			in: `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`,
			want: "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
		{name: "B zero", in: `[0, -0, 1e21, 1e-7, 123e-9, 9007199254740993, 295147905179352830000]`, want: `[0,0,1e+21,1e-7,1.23e-7,9007199254740992,295147905179352830000]`},
		{name: "B fractions", in: `[4.35, 0.002, 1e+23, 5e-324, 1.7976931348623157e+308]`, want: `[4.35,0.002,1e+23,5e-324,1.7976931348623157e+308]`},
		{name: "nested sort", in: `{"b":{"z":1,"a":[{"y":2,"x":1}]},"a":""}`, want: `{"a":"","b":{"a":[{"x":1,"y":2}],"z":1}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestCanonicalRefusesInvalidJSON(t *testing.T) {
	for _, in := range []string{`{"a":}`, `[1,]`, `{"a":1,"a":2}`, `"\ud800"`} {
		if _, err := Canonical([]byte(in)); err == nil {
			t.Errorf("%s: accepted", in)
		}
	}
}

func TestInputHashIgnoresKeyOrderAndWhitespace(t *testing.T) {
	a, err := InputHash(json.RawMessage(`{"toolName":"exec","toolInput":{"command":"ls","cwd":"/"}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := InputHash(map[string]any{"toolInput": map[string]any{"cwd": "/", "command": "ls"}, "toolName": "exec"})
	c, _ := InputHash(map[string]any{"toolInput": map[string]any{"cwd": "/", "command": "ls -la"}, "toolName": "exec"})
	if a != b {
		t.Fatalf("same input, different hashes: %s %s", a, b)
	}
	if a == c {
		t.Fatal("different inputs, same hash")
	}
	if len(a) != 64 || strings.Trim(a, "0123456789abcdef") != "" {
		t.Fatalf("not hex sha256: %q", a)
	}
	// sha256 of the four bytes "null".
	if n, _ := InputHash(nil); n != "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b" {
		t.Fatalf("nil hashes as %s", n)
	}
}

func BenchmarkInputHash(b *testing.B) {
	big := strings.Repeat("line of tool output with some text in it\n", 25000) // ~1 MB
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"small", map[string]any{"event": "pre_tool_use", "toolName": "exec", "toolInput": map[string]any{"command": "rm -rf /tmp/x"}}},
		{"1MB", map[string]any{"event": "post_tool_use", "toolResult": big}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := InputHash(tc.v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
