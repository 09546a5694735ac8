package interceptors

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// referenceDecodeObject is the decoder decodeObject must agree with.
func referenceDecodeObject(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errNotObject
	}
	if err := referenceArgumentKeys(b); err != nil {
		return nil, err
	}
	return m, nil
}

var errReferenceAmbiguous = errors.New("ambiguous keys")

// referenceArgumentKeys is the keys rule written with encoding/json's
// tokenizer: the whole input is one JSON value, and no object has two
// keys equal under strings.EqualFold (a repeated key included) or a
// "__proto__" key, nor a value inside more than 256 containers.
func referenceArgumentKeys(b []byte) error {
	if !json.Valid(b) {
		return errReferenceAmbiguous
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	type frame struct {
		object bool
		keys   []string
	}
	var stack []frame
	afterKey := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if s, ok := tok.(string); ok && len(stack) > 0 && stack[len(stack)-1].object && !afterKey {
			f := &stack[len(stack)-1]
			for _, k := range f.keys {
				if strings.EqualFold(k, s) {
					return errReferenceAmbiguous
				}
			}
			if s == "__proto__" {
				return errReferenceAmbiguous
			}
			f.keys = append(f.keys, s)
			afterKey = true
			continue
		}
		if d, ok := tok.(json.Delim); (!ok || d == '{' || d == '[') && len(stack) > 256 {
			return errReferenceAmbiguous // hookgate's nesting limit (providers.maxJSONDepth)
		}
		afterKey = false
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				stack = append(stack, frame{object: d == '{'})
			} else {
				stack = stack[:len(stack)-1]
			}
		}
	}
}

// TestAmbiguousArgumentsBlockTheCall: arguments a Go struct, a map and
// gjson read differently are an error, which judgeToolCall turns into a
// block.
func TestAmbiguousArgumentsAreRefused(t *testing.T) {
	for _, s := range []string{
		`{"command":"ls","command":"rm -rf /"}`,
		`{"command":"ls","Command":"rm -rf /"}`,
		`{"command":"ls","\u0043ommand":"rm -rf /"}`,
		`{"args":"a","argſ":"b"}`, `{"args":"a","arg\u017f":"b"}`, `{"kind":"a","\u212aind":"b"}`,
		`{"opts":{"cwd":"/","CWD":"/etc"}}`,
		`{"list":[{"a":1},{"x":1,"X":2}]}`,
		`{"__proto__":{"command":"rm -rf /"}}`,
		`{"a":{"__proto__":1}}`,
		`{"a":"\u0041","A":1}`,
	} {
		if _, err := decodeObject([]byte(s)); err == nil {
			t.Errorf("decodeObject(%s) accepted", s)
		}
	}
	for _, s := range []string{`{"command":"ls","cwd":"/"}`, `{"a":{"a":1},"b":[{"a":1},{"a":2}]}`, `{"Path":"x","pathname":"y"}`, `{"proto":"__proto__"}`} {
		if _, err := decodeObject([]byte(s)); err != nil {
			t.Errorf("decodeObject(%s) = %v", s, err)
		}
	}
}

var argsSeeds = []string{
	`{}`, ` { } `, `{"command":"ls -la /tmp","cwd":"/home"}`, `{"a":1,"b":-0.5e+10,"c":1E400,"d":-0,"e":123456789012345678901234567890}`,
	`{"a":[1,[2,[]],{}],"b":{"c":{"d":null}},"t":true,"f":false}`, `{"a":1,"a":{"b":2}}`, `{"a":{"b":2},"a":1}`,
	`{"s":"line\nbreak \"quoted\" \\ \/ \u00e9 \ud83d\ude00"}`, `{"s":"\ud800 lone"}`, "{\"s\":\"raw é 漢字 😀\"}",
	"{\"s\":\"bad \xff utf8\"}", "{\"s\":\"ctl \x01\"}", "{\"s\":\"tab\tinside\"}", "{\"k\xff\":1}", `{"\u0061":1,"a":2}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":-}`, `{"a":+1}`, `{"a":tru}`, `{"a":truex}`, `{"a":nul}`,
	`{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{"a":1`, `{"a":"x`, `{"a":"x\`, `[1]`, `null`, `"s"`, `1`, ``, ` `,
	`{"a":1} `, `{"a":1} x`, `{"a":1}{"b":2}`, `{"a":1}]`, "\ufeff{}", `{"a":NaN}`, `{"a":Infinity}`, `{'a':1}`,
	`{"a":[1,]}`, `{"a":[,1]}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"__proto__":{"command":"rm -rf /"}}`,
	"{\"a\":\"\u2028\u2029\"}", `{"a":"` + strings.Repeat("x", 5000) + `"}`,
	strings.Repeat(`{"a":`, 10001) + `1` + strings.Repeat(`}`, 10001),
	strings.Repeat(`{"a":`, 9999) + `1` + strings.Repeat(`}`, 9999),
	`{"a":` + strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001) + `}`,
}

// TestDecodeObjectMatchesReference: the fast reader and encoding/json give
// the same values and fail on the same inputs.
func TestDecodeObjectMatchesReference(t *testing.T) {
	for _, s := range argsSeeds {
		checkDecodeObject(t, []byte(s))
	}
}

// TestDecodeObjectReadsCommonArgumentsItself: typical arguments do not
// fall back to encoding/json.
func TestDecodeObjectReadsCommonArgumentsItself(t *testing.T) {
	for _, s := range []string{
		`{"command":"ls -la /srv/app/part-0 && cat /srv/app/part-0/README.md","cwd":"/home/agent/project","timeout_ms":30000}`,
		`{"path":"src/main.go","content":"package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"}`,
		`{"query":"café","limit":10,"filters":{"tags":["a","b"],"since":null,"exact":true}}`,
	} {
		if _, ok := readArgsObject([]byte(s)); !ok {
			t.Errorf("not read by the fast reader: %s", s)
		}
	}
}

func FuzzDecodeObjectMatchesReference(f *testing.F) {
	for _, s := range argsSeeds {
		if len(s) < 4096 {
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkDecodeObject(t, b) })
}

func checkDecodeObject(t *testing.T, b []byte) {
	t.Helper()
	got, gotErr := decodeObject(b)
	want, wantErr := referenceDecodeObject(b)
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("%.200q: error %v, reference %v", b, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q:\n got  %#v\n want %#v", b, got, want)
	}
}
