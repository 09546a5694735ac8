package interceptors

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/hookgate/hookgate/providers"
)

// decodeObject decodes a JSON object, keeping numbers as json.Number so a
// rewrite does not change how untouched numbers are written. The result
// is exactly what encoding/json's Decoder (with UseNumber) gives, errors
// included.
//
// A tool call's arguments are decoded on the way to every pre_tool_use
// hook, right when a held call is released, so the common case is read by
// argsReader, a small parser that is several times faster than the
// reflective decoder (more so when the caches are cold, as they are after
// a stream's quiet spell); anything it does not read plainly (escapes,
// invalid UTF-8, nesting deeper than encoding/json allows, trailing bytes,
// any error) is decoded by encoding/json instead.
//
// Arguments whose keys clients read differently are an error, so the call
// is blocked: a key repeated at any depth, two keys of one object equal
// under folding ("command" and "Command": a Go struct keeps the last), or
// a "__proto__" key (providers.CheckArgumentKeys).
func decodeObject(b []byte) (map[string]any, error) {
	if m, ok := readArgsObject(b); ok {
		if err := providers.CheckArgumentKeys(b); err != nil {
			return nil, err
		}
		return m, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errNotObject
	}
	if err := providers.CheckArgumentKeys(b); err != nil {
		return nil, err
	}
	return m, nil
}

var errNotObject = errors.New("not a JSON object")

// argsMaxDepth is encoding/json's nesting limit: deeper input is left to
// it, so that it fails the same way.
const argsMaxDepth = 10000

// readArgsObject reads b when it is one JSON object, optionally surrounded
// by whitespace; ok is false for anything else.
func readArgsObject(b []byte) (m map[string]any, ok bool) {
	r := argsReader{b: b}
	r.space()
	if r.i >= len(r.b) || r.b[r.i] != '{' {
		return nil, false
	}
	v, ok := r.value(0)
	if !ok {
		return nil, false
	}
	r.space()
	if r.i != len(r.b) {
		return nil, false
	}
	return v.(map[string]any), true
}

// argsReader is a strict JSON reader over a byte slice: it accepts only
// what encoding/json accepts and reads it to the same Go values.
type argsReader struct {
	b []byte
	i int
}

func (r *argsReader) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *argsReader) value(depth int) (any, bool) {
	if r.i >= len(r.b) {
		return nil, false
	}
	switch c := r.b[r.i]; {
	case c == '{':
		return r.object(depth + 1)
	case c == '[':
		return r.array(depth + 1)
	case c == '"':
		return r.string()
	case c == '-' || '0' <= c && c <= '9':
		return r.number()
	case c == 't':
		return true, r.literal("true")
	case c == 'f':
		return false, r.literal("false")
	case c == 'n':
		return nil, r.literal("null")
	}
	return nil, false
}

func (r *argsReader) literal(word string) bool {
	if !bytes.HasPrefix(r.b[r.i:], []byte(word)) {
		return false
	}
	r.i += len(word)
	return true
}

func (r *argsReader) object(depth int) (any, bool) {
	if depth > argsMaxDepth {
		return nil, false
	}
	r.i++ // {
	m := map[string]any{}
	r.space()
	if r.i < len(r.b) && r.b[r.i] == '}' {
		r.i++
		return m, true
	}
	for {
		r.space()
		if r.i >= len(r.b) || r.b[r.i] != '"' {
			return nil, false
		}
		k, ok := r.string()
		if !ok {
			return nil, false
		}
		r.space()
		if r.i >= len(r.b) || r.b[r.i] != ':' {
			return nil, false
		}
		r.i++
		r.space()
		v, ok := r.value(depth)
		if !ok {
			return nil, false
		}
		m[k.(string)] = v // a repeated key: the last one wins, as in encoding/json
		r.space()
		if r.i >= len(r.b) {
			return nil, false
		}
		switch r.b[r.i] {
		case ',':
			r.i++
		case '}':
			r.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (r *argsReader) array(depth int) (any, bool) {
	if depth > argsMaxDepth {
		return nil, false
	}
	r.i++ // [
	a := []any{}
	r.space()
	if r.i < len(r.b) && r.b[r.i] == ']' {
		r.i++
		return a, true
	}
	for {
		r.space()
		v, ok := r.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		r.space()
		if r.i >= len(r.b) {
			return nil, false
		}
		switch r.b[r.i] {
		case ',':
			r.i++
		case ']':
			r.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// string reads a string. One without escapes or control characters whose
// bytes are valid UTF-8 is its bytes; any other is unquoted by
// encoding/json itself, which also refuses what it would refuse.
func (r *argsReader) string() (any, bool) {
	start := r.i + 1
	escaped, ascii := false, true
	end := start
	for ; end < len(r.b); end++ {
		c := r.b[end]
		if c == '"' {
			break
		}
		switch {
		case c == '\\':
			escaped = true
			end++ // the escaped byte cannot end the string
		case c < 0x20:
			escaped = true
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if end >= len(r.b) {
		return nil, false
	}
	token := r.b[r.i : end+1]
	r.i = end + 1
	if !escaped && (ascii || utf8.Valid(token)) {
		return string(token[1 : len(token)-1]), true
	}
	var s string
	if err := json.Unmarshal(token, &s); err != nil {
		return nil, false
	}
	return s, true
}

// number reads a number as encoding/json's grammar has it, keeping its
// text: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (r *argsReader) number() (any, bool) {
	start := r.i
	if r.b[r.i] == '-' {
		r.i++
	}
	switch {
	case r.i < len(r.b) && r.b[r.i] == '0':
		r.i++
	case r.i < len(r.b) && '1' <= r.b[r.i] && r.b[r.i] <= '9':
		r.digits()
	default:
		return nil, false
	}
	if r.i < len(r.b) && r.b[r.i] == '.' {
		r.i++
		if !r.digits() {
			return nil, false
		}
	}
	if r.i < len(r.b) && (r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		r.i++
		if r.i < len(r.b) && (r.b[r.i] == '+' || r.b[r.i] == '-') {
			r.i++
		}
		if !r.digits() {
			return nil, false
		}
	}
	return json.Number(r.b[start:r.i]), true
}

// digits reads one or more decimal digits.
func (r *argsReader) digits() bool {
	start := r.i
	for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
		r.i++
	}
	return r.i > start
}
