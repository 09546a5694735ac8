package providers

import (
	"bytes"
	"strings"

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
	return d.joinText(v, "\n", func(p span) (string, bool) {
		if pr := d.raw(p); pr[0] == '"' {
			return textOf(pr), true
		}
		text, typ := d.textAndType(p)
		if len(text) > 0 && text[0] == '"' && (typ == nil || Field{Raw: typ}.Equal("text")) {
			return textOf(text), true
		}
		return "", false
	})
}

// joinText reads a member that is a string or an array of parts: the
// string, or the texts part gives for the parts it accepts, joined with
// sep (FieldOther). The state tells absent, null and "" apart.
func (d *jsonDoc) joinText(v span, sep string, part func(p span) (string, bool)) (string, FieldState) {
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
		for it := d.values(v); ; {
			p, ok := it.next()
			if !ok {
				break
			}
			if text, ok := part(p); ok {
				parts = append(parts, text)
			}
		}
		return strings.Join(parts, sep), FieldOther
	default:
		return "", FieldOther
	}
}

// textAndType picks a part's "text" and "type" members.
func (d *jsonDoc) textAndType(p span) (text, typ []byte) {
	var vals [2]span
	d.pick(p, textPartKeys, vals[:])
	return d.raw(vals[0]), d.raw(vals[1])
}

var textPartKeys = []string{"text", "type"}
