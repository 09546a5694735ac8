package providers

import (
	"bytes"
	"errors"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// refUniqueKeys is the recursive duplicate-key check validateUnique
// replaced, kept as the reference it must agree with.
func refUniqueKeys(raw []byte) error {
	var keys [][]byte
	return refUniqueIn(raw, &keys, 0)
}

func refUniqueIn(v []byte, keys *[][]byte, depth int) error {
	if depth > maxJSONDepth {
		return errTooDeep
	}
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return nil
	}
	switch v[0] {
	case '[':
		it, _ := iterArray(v)
		for e, ok := it.next(); ok; e, ok = it.next() {
			if err := refUniqueIn(e, keys, depth+1); err != nil {
				return err
			}
		}
	case '{':
		base := len(*keys)
		it, _ := iterObject(v)
		for k, e, ok := it.next(); ok; k, e, ok = it.next() {
			if hasByte(k, '\\') {
				k = appendUnescapedContent(nil, k)
			}
			*keys = append(*keys, k)
			if err := refUniqueIn(e, keys, depth+1); err != nil {
				return err
			}
		}
		own := (*keys)[base:]
		sort.Slice(own, func(i, j int) bool { return bytes.Compare(own[i], own[j]) < 0 })
		for i := 1; i < len(own); i++ {
			if bytes.Equal(own[i-1], own[i]) {
				return ErrDuplicateKey
			}
		}
		*keys = (*keys)[:base]
	}
	return nil
}

// dupKeySeeds are bodies on both sides of every rule: repeats at each
// level, escaped spellings, many keys (the sorted path), deep nesting.
func dupKeySeeds() []string {
	many := func(dup bool) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range 40 {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"k` + strconv.Itoa(i) + `":{"x":1}`)
		}
		if dup {
			b.WriteString(`,"k7":2`)
		}
		b.WriteString("}")
		return b.String()
	}
	return []string{
		`{}`, `[]`, `"x"`, `1`, `null`, ` { "a" : 1 } `,
		`{"a":{"a":1},"b":[{"a":1},{"a":2}]}`,
		`{"a":1,"b":{"c":{"a":2}},"c":3}`,
		`{"a":1,"a":2}`, `{"x":[{"k":1,"k":2}]}`, `{"a":1,"\u0061":2}`,
		`{"a":{"b":1},"c":{"d":1,"d":2}}`,
		`{"a":"b:c","b":"a","c":["a","a"],"d":{"e":"a"}}`,
		`{"s":"x\"y","x\"y":1,"x\u0022y":2}`,
		`{"name":"ls","function":{"name":"ls","name":"rm"}}`,
		`[{"a":1},{"a":1,"b":[{"c":1,"c":1}]}]`,
		many(false), many(true),
		strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth),
		strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1),
		strings.Repeat("[", maxJSONDepth+2) + strings.Repeat("]", maxJSONDepth+2),
		strings.Repeat("[", maxJSONDepth) + "1" + strings.Repeat("]", maxJSONDepth),
		strings.Repeat("[", maxJSONDepth+1) + "1" + strings.Repeat("]", maxJSONDepth+1),
		strings.Repeat(`{"a":`, maxJSONDepth) + "1" + strings.Repeat("}", maxJSONDepth),
		strings.Repeat(`{"a":`, maxJSONDepth+1) + "1" + strings.Repeat("}", maxJSONDepth+1),
	}
}

// sameVerdict reports whether two results of a duplicate-key check agree:
// both nil, both a repeated key, or both refused nesting.
func sameVerdict(a, b error) bool {
	return (a == nil) == (b == nil) && errors.Is(a, ErrDuplicateKey) == errors.Is(b, ErrDuplicateKey)
}

// BenchmarkCheckUniqueKeys is the one-pass validation and duplicate-key
// check parseBody runs (validateUnique) on the representative request, and
// the recursive reference.
func BenchmarkCheckUniqueKeys(b *testing.B) {
	body := []byte(benchChatRequest)
	for _, c := range []struct {
		name  string
		check func([]byte) error
	}{{"validateUnique", func(b []byte) error { return validateUnique(b, nil) }}, {"reference", refUniqueKeys}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for range b.N {
				if err := c.check(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
