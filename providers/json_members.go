package providers

import (
	"bytes"

	"github.com/tidwall/gjson"
)

// This file reads member values of a validated, duplicate-free body the
// way the gjson-based views did (same values, same oddities); jsonDoc
// (json_doc.go) finds them, in one pass per object: the request and
// response views read five to ten members of every message, and gjson's
// Get scanned the object again for each one.

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

// rawString is gjson's Result.String of a member: the decoded text of a
// string, "" for null or absent, the raw text of an object or array,
// "true"/"false", and a number as gjson formats it.
func rawString(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		return textOf(raw)
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

// textOf is the decoded text of a JSON string (with its quotes), as
// Field.Text, finding escapes with bytes.IndexByte: message contents are
// the longest strings a view copies.
func textOf(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		return string(in)
	}
	return string(appendUnescapedContent(make([]byte, 0, len(in)), in))
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
		return textOf(raw)
	default:
		return string(raw)
	}
}

// contentText reads a content member: a string, or an array of parts
// whose "text" parts are joined with "\n" (a part's "type" must be "text"
// or absent).
func (d *jsonDoc) contentText(v span) (string, FieldState) {
	raw := d.raw(v)
	switch {
	case raw == nil:
		return "", FieldAbsent
	case string(raw) == "null":
		return "", FieldNull
	case string(raw) == `""`:
		return "", FieldEmpty
	case raw[0] == '"':
		return textOf(raw), FieldString
	case raw[0] == '[':
		var parts []string
		var vals [2]span
		for it := d.values(v); ; {
			p, ok := it.next()
			if !ok {
				break
			}
			if pr := d.raw(p); pr[0] == '"' {
				parts = append(parts, textOf(pr))
				continue
			}
			d.pick(p, textPartKeys, vals[:])
			text, typ := d.raw(vals[0]), d.raw(vals[1])
			if len(text) > 0 && text[0] == '"' && (typ == nil || Field{Raw: typ}.Equal("text")) {
				parts = append(parts, textOf(text))
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
