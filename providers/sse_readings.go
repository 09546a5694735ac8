package providers

import (
	"bytes"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// The line forms on which mainstream SSE clients part from the SSE rules,
// and so from hookgate's reading of a stream. A relay parser
// (NewRelaySSEParser) refuses each of them, or leaves out a line no client
// reads:
//
//   - go-openai reads a stream line by line, splitting on LF only. Each
//     line is bytes.TrimSpace'd (Unicode white space: space, tab, \v, \f,
//     U+0085, U+00A0, U+1680, U+2000-200A, U+2028/9, U+202F, U+205F,
//     U+3000) and read as a payload if it then begins with "data:",
//     followed by any of [\t\n\f\r ]. Every data line is a payload of its
//     own, whatever the event it belongs to.
//   - The JS SDKs (openai, @anthropic-ai/sdk) decode every line by itself
//     with a TextDecoder, which strips a byte-order mark at the start of
//     each line, then read the line by the SSE rules.
//   - openai-go and anthropic-sdk-go split on LF (dropping a CR before it)
//     and join an event's data lines.
//
// So a relayed stream's lines end in LF or CRLF, an event has at most one
// data line, a data value has no white space at either end that JSON does
// not allow (space and tab), and a line whose field name the SSE rules do
// not know is left out, unless a lenient reader, stripping byte-order
// marks and white space from its start, would find a field in it: that
// line refuses the stream rather than be dropped, since some client would
// have read a payload hookgate never judged.

// ErrSSEAmbiguous: a relayed stream has a line form that mainstream clients
// read in different ways (see SSELineFormError).
var ErrSSEAmbiguous = errors.New("sse line form that clients read in different ways")

// SSELineFormError names the line form that made a relay parser refuse a
// stream. It wraps ErrSSEAmbiguous.
type SSELineFormError struct {
	Offset int64  // stream offset of the line
	Form   string // what is wrong with it, for people; never the line's text
}

func (e *SSELineFormError) Error() string {
	return fmt.Sprintf("sse: line at offset %d: %s: %v", e.Offset, e.Form, ErrSSEAmbiguous)
}

func (e *SSELineFormError) Unwrap() error { return ErrSSEAmbiguous }

// The forms a relay parser refuses.
const (
	formBareCR       = "a bare CR ends a line (go-openai and the Go SDKs split lines on LF only)"
	formSeveralData  = "an event has more than one data line (go-openai reads each line as a payload of its own)"
	formDataSpace    = "a data value begins or ends with white space other than space and tab (go-openai trims it, JSON does not allow it)"
	formLenientField = "a line the SSE rules ignore reads as a field once a byte-order mark or white space is stripped from its start (as the JS SDKs and go-openai do)"
)

// sseBOM is the byte-order mark, in UTF-8, that may begin a stream.
const sseBOM = "\uFEFF"

// knownSSEField reports a field name the SSE rules define.
func knownSSEField(name []byte) bool {
	switch string(name) {
	case "data", "event", "id", "retry":
		return true
	}
	return false
}

// sseFieldName returns the field name of a non-blank, non-comment line.
func sseFieldName(line []byte) []byte {
	if c := bytes.IndexByte(line, ':'); c >= 0 {
		return line[:c]
	}
	return line
}

// readsAsField reports a line whose field name the SSE rules do not know
// but in which a lenient reader finds a known field: after stripping any
// run of byte-order marks and Unicode white space from its start.
func readsAsField(line []byte) bool {
	s := line
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		if r != '\uFEFF' && !unicode.IsSpace(r) {
			break
		}
		s = s[n:]
	}
	if len(s) == len(line) || len(s) == 0 || s[0] == ':' {
		return false
	}
	return knownSSEField(sseFieldName(s))
}

// ambiguousDataValue reports a data value with white space at its start or
// end that a trimming client drops and a JSON parser does not allow (any
// Unicode white space but space and tab). Within a line, space and tab are
// the only white space JSON allows, so every client reads a payload edged
// with them alike.
func ambiguousDataValue(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	// The common payload begins with '{' or '[' and ends with '}' or ']'.
	if first, last := v[0], v[len(v)-1]; first > ' ' && first < utf8.RuneSelf && last > ' ' && last < utf8.RuneSelf {
		return false
	}
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRune(v[i:])
		if r != ' ' && r != '\t' {
			if unicode.IsSpace(r) {
				return true
			}
			break
		}
		i += n
	}
	for j := len(v); j > 0; {
		r, n := utf8.DecodeLastRune(v[:j])
		if r != ' ' && r != '\t' {
			return unicode.IsSpace(r)
		}
		j -= n
	}
	return false
}

// appendRelayedLines appends the lines of one event that a relay parser
// passes on: blank lines, comments and known fields, each with its line
// ending. The event's lines end in LF or CRLF (a relay parser refuses a
// bare CR before it emits).
func appendRelayedLines(dst, event []byte) []byte {
	for len(event) > 0 {
		n := bytes.IndexByte(event, '\n') + 1
		if n == 0 {
			n = len(event)
		}
		line := bytes.TrimSuffix(bytes.TrimSuffix(event[:n], []byte("\n")), []byte("\r"))
		if len(line) == 0 || line[0] == ':' || knownSSEField(sseFieldName(line)) {
			dst = append(dst, event[:n]...)
		}
		event = event[n:]
	}
	return dst
}
