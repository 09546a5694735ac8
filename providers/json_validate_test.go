package providers

import (
	"errors"
	"testing"

	"github.com/tidwall/gjson"
)

// validateSeeds are bodies on both sides of each rule of the grammar.
var validateSeeds = []string{
	``, ` `, `{}`, `[]`, `""`, `0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-`, `1e`, `-1.25e-10`,
	`true`, `truex`, `tru`, `false`, `null`, `nul`, ` {"a" : [1, 2 , {"b":null}] } `, `{"a":1,}`, `[1,]`, `[,1]`,
	`{"a":1 "b":2}`, `{"a" 1}`, `{a:1}`, `{"a":1}}`, `[[]`, `]`, `{"a":"\u00e9\n\t\"\\\/\b\f\r"}`, `"\x"`, `"\u12"`,
	`"\u12g4"`, "\"a\x01\"", "\"\xff\xfe\"", `{"a":1,"a":2}`, `{"a":1,"a":2,}`, `{"a":{"b":1,"b":2}} x`,
	`[{"k":1,"k":2}]`, `{"\u0061":1,"a":2}`, `[1 2]`, `{"a":[}`, `"abc`, `{"a":1}` + "\n",
}

func TestValidateUniqueMatchesGJSON(t *testing.T) {
	for _, in := range append(validateSeeds, dupKeySeeds()...) {
		checkValidateUnique(t, []byte(in))
	}
}

func FuzzValidateUnique(f *testing.F) {
	for _, s := range append(validateSeeds, dupKeySeeds()...) {
		f.Add([]byte(s))
	}
	f.Add([]byte(benchChatRequest))
	f.Fuzz(func(t *testing.T, in []byte) { checkValidateUnique(t, in) })
}

// checkValidateUnique compares validateUnique with gjson.ValidBytes and
// the reference duplicate-key check, and its index with skipValue.
func checkValidateUnique(t *testing.T, in []byte) {
	t.Helper()
	d := &jsonDoc{b: in}
	err := validateUnique(in, d)
	if !gjson.ValidBytes(in) {
		if !errors.Is(err, ErrInvalidJSON) || errors.Is(err, ErrDuplicateKey) {
			t.Fatalf("%q is not valid JSON, got %v", in, err)
		}
		return
	}
	want := refUniqueKeys(in)
	if !sameVerdict(err, want) || (err != nil && !errors.Is(err, ErrInvalidJSON)) {
		t.Fatalf("%q: got %v, want %v", in, err, want)
	}
	if err != nil {
		return
	}
	for k, s := range d.starts {
		if e, _ := skipValue(in, s); in[s] != '{' && in[s] != '[' || d.ends[k] != e {
			t.Fatalf("%q: container %d at %d ends at %d, want %d", in, k, s, d.ends[k], e)
		}
	}
}
