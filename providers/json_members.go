package providers

import (
	"github.com/tidwall/gjson"
)

// This file reads the members of a validated, duplicate-free body the way
// the gjson-based views did (same values, same oddities) but in one pass
// per object with the allocation-free iterators of json_scan.go: the
// request and response views read five to ten members of every message,
// and gjson's Get scans the object again for each one.

// pick fills vals[i] with the raw value of the member names[i] of the
// object raw (nil when absent, or when raw is not an object). Keys are
// matched by their decoded text; the first occurrence wins, as with gjson
// (parseBody has refused repeats anyway).
func pick(raw []byte, names []string, vals [][]byte) {
	clear(vals)
	it, ok := iterObject(raw)
	if !ok {
		return
	}
	for k, v, ok := it.next(); ok; k, v, ok = it.next() {
		for i, name := range names {
			if vals[i] == nil && keyNamed(k, name) {
				vals[i] = v
				break
			}
		}
	}
}

// member is the raw value of one member of the object raw, nil when
// absent.
func member(raw []byte, name string) []byte {
	it, ok := iterObject(raw)
	if !ok {
		return nil
	}
	for k, v, ok := it.next(); ok; k, v, ok = it.next() {
		if keyNamed(k, name) {
			return v
		}
	}
	return nil
}

// keyNamed reports whether a raw key (between its quotes) decodes to
// name. Unlike keyIs it has no length limit: a key spelled entirely in
// \u escapes ("tool_call_id" is 72 bytes so) is still the key.
func keyNamed(key []byte, name string) bool {
	if len(key) == len(name) && string(key) == name {
		return true
	}
	if len(key) <= len(name) || !hasByte(key, '\\') {
		return false
	}
	var tmp [64]byte
	return string(appendUnescapedContent(tmp[:0], key)) == name
}

// valueIter hands out what gjson's ForEach hands out as values: the
// elements of an array, the member values of an object, a scalar (null
// included) itself once, nothing for an absent member. It is a struct
// rather than a callback so that the views' loops allocate no closures.
type valueIter struct {
	arr    arrIter
	obj    objIter
	scalar []byte
	kind   byte // '[', '{', 's' (scalar pending) or 0 (done)
}

// values starts a valueIter over raw.
func values(raw []byte) valueIter {
	if raw == nil {
		return valueIter{}
	}
	if it, ok := iterArray(raw); ok {
		return valueIter{arr: it, kind: '['}
	}
	if it, ok := iterObject(raw); ok {
		return valueIter{obj: it, kind: '{'}
	}
	return valueIter{scalar: raw, kind: 's'}
}

func (it *valueIter) next() ([]byte, bool) {
	switch it.kind {
	case '[':
		return it.arr.next()
	case '{':
		_, v, ok := it.obj.next()
		return v, ok
	case 's':
		it.kind = 0
		return it.scalar, true
	}
	return nil, false
}

// rawString is gjson's Result.String of a member: the decoded text of a
// string, "" for null or absent, the raw text of an object or array,
// "true"/"false", and a number as gjson formats it.
func rawString(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		return Field{Raw: raw}.Text()
	case 'n':
		return ""
	case 't':
		return "true"
	case 'f':
		return "false"
	case '{', '[':
		return string(raw)
	default:
		return gjson.ParseBytes(raw).String()
	}
}

// rawBool is gjson's Result.Bool of a member.
func rawBool(raw []byte) bool {
	switch string(raw) {
	case "true":
		return true
	case "", "false", "null":
		return false
	}
	return gjson.ParseBytes(raw).Bool()
}

// isNumber reports a JSON number.
func isNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9')
}

// numberInt is gjson's Result.Int of a number.
func numberInt(raw []byte) int {
	if n, ok := parseIndex(raw); ok {
		return n
	}
	return int(gjson.ParseBytes(raw).Int())
}

// rawValueText is a value that may be a string or anything else, as the
// views keep tool-call arguments: a string's text, any other value's raw
// text (an object sent instead of a string holding one), "" for null or
// absent.
func rawValueText(raw []byte) string {
	switch {
	case raw == nil, string(raw) == "null":
		return ""
	case raw[0] == '"':
		return Field{Raw: raw}.Text()
	default:
		return string(raw)
	}
}

// rawContentText reads a content member: a string, or an array of parts
// whose "text" parts are joined with "\n" (a part's "type" must be "text"
// or absent).
func rawContentText(raw []byte) (string, FieldState) {
	switch {
	case raw == nil:
		return "", FieldAbsent
	case string(raw) == "null":
		return "", FieldNull
	case string(raw) == `""`:
		return "", FieldEmpty
	case raw[0] == '"':
		return Field{Raw: raw}.Text(), FieldString
	case raw[0] == '[':
		var parts []string
		var vals [2][]byte
		for it := values(raw); ; {
			p, ok := it.next()
			if !ok {
				break
			}
			if len(p) > 0 && p[0] == '"' {
				parts = append(parts, Field{Raw: p}.Text())
				continue
			}
			pick(p, textPartKeys, vals[:])
			text, typ := vals[0], vals[1]
			if len(text) > 0 && text[0] == '"' && (typ == nil || Field{Raw: typ}.Equal("text")) {
				parts = append(parts, Field{Raw: text}.Text())
			}
		}
		return joinParts(parts), FieldOther
	default:
		return "", FieldOther
	}
}

var textPartKeys = []string{"text", "type"}

// joinParts is strings.Join(parts, "\n") without the copy for one part.
func joinParts(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	n := len(parts) - 1
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, p...)
	}
	return string(b)
}
