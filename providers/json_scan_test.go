package providers

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

var stringSamples = []string{
	"", "plain", `quote " and \ backslash`, "line\nbreak\ttab\r", "\x00\x01\x1f control",
	"é ü 中文 🙂", "\u2028\u2029", "</script>&", `{"a":"b"}`, "a\\u0041b",
}

func TestAppendQuotedMatchesEncodingJSON(t *testing.T) {
	for _, s := range append(stringSamples, "bad \xff utf8", "cut \xe4\xb8") {
		got := appendQuoted(nil, s)
		if !json.Valid(got) {
			t.Errorf("appendQuoted(%q) = %s: invalid JSON", s, got)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		want := s
		if !utf8.ValidString(s) {
			want = string([]rune(s)) // invalid bytes become U+FFFD
		}
		if back != want {
			t.Errorf("round trip of %q gave %q", s, back)
		}
	}
}

func TestAppendUnescapedMatchesGJSON(t *testing.T) {
	raws := []string{`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d x"`, `"\u00e9\/\b\f"`, `"a\"b"`}
	for _, s := range stringSamples {
		b, _ := json.Marshal(s)
		raws = append(raws, string(b))
	}
	for _, raw := range raws {
		want := gjson.Parse(raw).String()
		if got := string(appendUnescaped(nil, []byte(raw))); got != want {
			t.Errorf("unescape %s = %q, gjson says %q", raw, got, want)
		}
	}
}

func FuzzJSONStrings(f *testing.F) {
	for _, s := range stringSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := appendQuoted(nil, s)
		if !gjson.ValidBytes(q) {
			t.Fatalf("appendQuoted(%q) invalid: %s", s, q)
		}
		back := string(appendUnescaped(nil, q))
		if utf8.ValidString(s) && back != s {
			t.Fatalf("round trip %q -> %s -> %q", s, q, back)
		}
		// Any valid JSON string decodes as gjson decodes it.
		raw := []byte(`"` + s + `"`)
		if gjson.ValidBytes(raw) {
			if got, want := string(appendUnescaped(nil, raw)), gjson.ParseBytes(raw).String(); got != want {
				t.Fatalf("unescape %s = %q, gjson %q", raw, got, want)
			}
		}
		f := Field{q}
		if !f.Equal(back) {
			t.Fatalf("Field.Equal")
		}
	})
}

func TestIterators(t *testing.T) {
	it, ok := iterObject([]byte(` { "a" : [1, {"x":"]}"}], "b":"\"}" ,"c":-1.5e3,"d":{} } `))
	if !ok {
		t.Fatal("not an object")
	}
	var keys, vals []string
	for k, v, ok := it.next(); ok; k, v, ok = it.next() {
		keys = append(keys, string(k))
		vals = append(vals, string(v))
	}
	want := []string{`[1, {"x":"]}"}]`, `"\"}"`, `-1.5e3`, `{}`}
	if len(keys) != 4 || keys[0] != "a" || keys[3] != "d" {
		t.Fatalf("keys %q", keys)
	}
	for i := range want {
		if vals[i] != want[i] {
			t.Errorf("value %d = %s, want %s", i, vals[i], want[i])
		}
	}
	for _, bad := range []string{`{"a"`, `{"a":`, `{"a":1,`, `{"a" 1}`, `{1:2}`, `{"a":"x`, `{"a":[1,}`} {
		it, _ := iterObject([]byte(bad))
		n := 0
		for _, _, ok := it.next(); ok && n < 10; _, _, ok = it.next() {
			n++
		}
		if n > 1 {
			t.Errorf("%s: %d members from malformed input", bad, n)
		}
	}
	if n, ok := parseIndex([]byte("12")); !ok || n != 12 {
		t.Error("parseIndex 12")
	}
	for _, bad := range []string{"-1", "1.0", "01", "1e2", `"1"`, "1234567890"} {
		if _, ok := parseIndex([]byte(bad)); ok {
			t.Errorf("parseIndex(%s) accepted", bad)
		}
	}
}

// FuzzIterators checks the hot-path iterators against gjson on any valid
// JSON object or array: same members, same raw values, in order.
func FuzzIterators(f *testing.F) {
	f.Add([]byte(`{"a":"` + strings.Repeat(`x\"\\`, 20) + `","b":[1,{"c":"\\\\"}],"d":null}`))
	f.Add([]byte(`[" \\\\\" ",{"k":"` + strings.Repeat("y", 40) + `\\\\"}, 2.5e-3, true]`))
	f.Add([]byte(tc(`{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":\"` + strings.Repeat(`\\\"`, 30) + `\"}"}}`)))
	f.Fuzz(func(t *testing.T, in []byte) {
		if !gjson.ValidBytes(in) {
			return
		}
		g := gjson.ParseBytes(in)
		var want, got []string
		switch {
		case g.IsObject():
			g.ForEach(func(k, v gjson.Result) bool { want = append(want, k.Raw, v.Raw); return true })
			it, _ := iterObject(in)
			for k, v, ok := it.next(); ok; k, v, ok = it.next() {
				got = append(got, `"`+string(k)+`"`, string(v))
			}
		case g.IsArray():
			g.ForEach(func(_, v gjson.Result) bool { want = append(want, v.Raw); return true })
			it, _ := iterArray(in)
			for v, ok := it.next(); ok; v, ok = it.next() {
				got = append(got, string(v))
			}
		default:
			return
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("iterators disagree with gjson on %s:\n got %q\nwant %q", in, got, want)
		}
	})
}
