package providers

import "bytes"

// FieldState says what an object member held on the wire. Streams differ
// in how they say "nothing": a missing key, null, or "" (Writer sends
// "id":null on continuation deltas, Alibaba "id":"").
type FieldState uint8

// The states of a member.
const (
	FieldAbsent FieldState = iota // the key was not there
	FieldNull                     // null
	FieldEmpty                    // ""
	FieldString                   // a non-empty string
	FieldOther                    // a number, boolean, object or array
)

func (s FieldState) String() string {
	switch s {
	case FieldAbsent:
		return "absent"
	case FieldNull:
		return "null"
	case FieldEmpty:
		return "empty"
	case FieldString:
		return "string"
	default:
		return "other"
	}
}

// Field is the raw JSON value of one member, as sent (a string keeps its
// quotes and escapes). Raw is nil when the member was absent. Raw aliases
// the decoded payload; see the owning view for how long it stays valid.
type Field struct {
	Raw []byte
}

// State classifies the member.
func (f Field) State() FieldState {
	switch {
	case f.Raw == nil:
		return FieldAbsent
	case string(f.Raw) == "null":
		return FieldNull
	case string(f.Raw) == `""`:
		return FieldEmpty
	case len(f.Raw) >= 2 && f.Raw[0] == '"':
		return FieldString
	default:
		return FieldOther
	}
}

// Present reports whether the key was there at all (even as null).
func (f Field) Present() bool { return f.Raw != nil }

// IsNull reports an explicit null.
func (f Field) IsNull() bool { return string(f.Raw) == "null" }

// IsString reports a string value, empty or not.
func (f Field) IsString() bool { return len(f.Raw) >= 2 && f.Raw[0] == '"' }

// NonEmpty reports a string with at least one character.
func (f Field) NonEmpty() bool { return f.State() == FieldString }

// Set reports a value that is neither absent nor null.
func (f Field) Set() bool { return f.Raw != nil && string(f.Raw) != "null" }

// AppendText appends the decoded string value to dst; non-strings append
// nothing.
func (f Field) AppendText(dst []byte) []byte { return appendUnescaped(dst, f.Raw) }

// Text returns a copy of the decoded string value ("" for non-strings).
func (f Field) Text() string {
	if !f.IsString() {
		return ""
	}
	in := f.Raw[1 : len(f.Raw)-1]
	if !hasByte(in, '\\') {
		return string(in)
	}
	return string(appendUnescapedContent(make([]byte, 0, len(in)), in))
}

// Equal reports whether the member is a string whose decoded value is s,
// without allocating for strings that hold no escapes.
func (f Field) Equal(s string) bool {
	if !f.IsString() {
		return false
	}
	in := f.Raw[1 : len(f.Raw)-1]
	if !hasByte(in, '\\') {
		return string(in) == s
	}
	var tmp [128]byte
	return string(appendUnescapedContent(tmp[:0], in)) == s
}

// meaningful reports a value that says something: not null, "", {} or [].
func meaningful(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case "", "null", `""`, "{}", "[]":
		return false
	}
	if len(raw) >= 2 && (raw[0] == '{' || raw[0] == '[') {
		return len(bytes.TrimSpace(raw[1:len(raw)-1])) > 0
	}
	return true
}
