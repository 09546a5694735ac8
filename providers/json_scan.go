package providers

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is the per-chunk hot path's JSON reader: iterators over the
// members of an object and the elements of an array that hand out raw value
// bytes and never allocate (gjson's ForEach unescapes every string value it
// passes, which allocates for the escaped argument fragments that dominate
// tool-call streams). Inputs are validated with gjson.ValidBytes first; the
// iterators still bounds-check everything and stop on malformed input
// rather than panic.

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, bool) {
	// Most strings on the hot path are short keys and values: a plain loop
	// wins there. Long ones (whole arguments, content) switch to IndexByte.
	i++
	for end := min(i+32, len(b)); i < end; i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	for i < len(b) {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			break
		}
		q += i
		// The quote ends the string unless an odd run of backslashes
		// precedes it. The run cannot reach back before i: every escape
		// begun before i was consumed whole (by the loop above, or as the
		// escaped quote just before i).
		n := 0
		for k := q - 1; k >= i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, true
		}
		i = q + 1
	}
	return len(b), false
}

// skipValue returns the end of the value starting at b[i] (no leading space).
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end, ok := skipString(b, i)
				if !ok {
					return end, false
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
		}
		return len(b), false
	default:
		s := i
		for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ':' {
			i++
		}
		return i, i > s
	}
}

// objIter walks the members of one JSON object.
type objIter struct {
	b     []byte
	i     int
	first bool
	done  bool
}

// iterObject starts an iteration; ok is false when raw is not an object.
func iterObject(raw []byte) (objIter, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return objIter{done: true}, false
	}
	return objIter{b: raw, i: i + 1, first: true}, true
}

// next returns the next member: its key as it appears between the quotes
// (escapes left in place; compare with keyIs) and its raw value.
func (it *objIter) next() (key, val []byte, ok bool) {
	if it.done {
		return nil, nil, false
	}
	b := it.b
	i := skipSpace(b, it.i)
	if i < len(b) && b[i] == '}' {
		it.done = true
		return nil, nil, false
	}
	if !it.first {
		if i >= len(b) || b[i] != ',' {
			it.done = true
			return nil, nil, false
		}
		i = skipSpace(b, i+1)
	}
	it.first = false
	if i >= len(b) || b[i] != '"' {
		it.done = true
		return nil, nil, false
	}
	ke, kok := skipString(b, i)
	if !kok {
		it.done = true
		return nil, nil, false
	}
	key = b[i+1 : ke-1]
	i = skipSpace(b, ke)
	if i >= len(b) || b[i] != ':' {
		it.done = true
		return nil, nil, false
	}
	i = skipSpace(b, i+1)
	ve, vok := skipValue(b, i)
	if !vok {
		it.done = true
		return nil, nil, false
	}
	it.i = ve
	return key, b[i:ve:ve], true
}

// arrIter walks the elements of one JSON array.
type arrIter struct {
	b     []byte
	i     int
	first bool
	done  bool
}

// iterArray starts an iteration; ok is false when raw is not an array.
func iterArray(raw []byte) (arrIter, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return arrIter{done: true}, false
	}
	return arrIter{b: raw, i: i + 1, first: true}, true
}

func (it *arrIter) next() (val []byte, ok bool) {
	if it.done {
		return nil, false
	}
	b := it.b
	i := skipSpace(b, it.i)
	if i < len(b) && b[i] == ']' {
		it.done = true
		return nil, false
	}
	if !it.first {
		if i >= len(b) || b[i] != ',' {
			it.done = true
			return nil, false
		}
		i = skipSpace(b, i+1)
	}
	it.first = false
	ve, vok := skipValue(b, i)
	if !vok {
		it.done = true
		return nil, false
	}
	it.i = ve
	return b[i:ve:ve], true
}

// keyIs reports whether a raw key (between its quotes) names name, decoding
// escapes when there are any so "con\u0074ent" still reads as "content".
func keyIs(key []byte, name string) bool {
	if len(key) == len(name) && string(key) == name {
		return true
	}
	if len(key) <= len(name) || !hasByte(key, '\\') {
		return false
	}
	var tmp [64]byte
	if len(key) > len(tmp) {
		return false
	}
	return string(appendUnescapedContent(tmp[:0], key)) == name
}

// keyIsFold is keyIs matching as Go's encoding/json (and so go-openai)
// matches struct fields: without regard to case, Unicode simple folding
// included ("Tool_Calls", or "choiceſ" with a long s, is "tool_calls" or
// "choices" to a Go agent). The chat chunk view reads keys this way, so
// that no member a Go agent reads is invisible to hookgate.
func keyIsFold(key []byte, name string) bool {
	if len(key) == len(name) && equalFoldASCII(key, name) {
		return true
	}
	escaped, ascii := hasByte(key, '\\'), isASCII(key)
	if !escaped && ascii {
		return false
	}
	var tmp [64]byte
	if len(key) > len(tmp) {
		return false
	}
	dec := key
	if escaped {
		dec = appendUnescapedContent(tmp[:0], key)
	}
	if len(dec) == len(name) && equalFoldASCII(dec, name) {
		return true
	}
	return !isASCII(dec) && bytes.EqualFold(dec, []byte(name))
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// equalFoldASCII compares b and s, folding ASCII letters only.
func equalFoldASCII(b []byte, s string) bool {
	for i := 0; i < len(b); i++ {
		x, y := b[i], s[i]
		if x == y {
			continue
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func hasByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// parseIndex reads a non-negative JSON integer such as an "index" member.
func parseIndex(raw []byte) (int, bool) {
	if len(raw) == 0 || len(raw) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if len(raw) > 1 && raw[0] == '0' {
		return 0, false
	}
	return n, true
}

// appendUnescaped appends the value of the JSON string raw (with its
// quotes) to dst. Non-strings append nothing.
func appendUnescaped(dst, raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return dst
	}
	return appendUnescapedContent(dst, raw[1:len(raw)-1])
}

// appendUnescapedContent decodes the inside of a JSON string the way gjson
// does for valid JSON: bytes other than escapes are copied unchanged, \u
// surrogate pairs are combined, and a lone surrogate becomes U+FFFD.
func appendUnescapedContent(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			// Copy the run up to the next escape in one go.
			j := i + 1
			for j < len(s) && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j - 1
			continue
		}
		i++
		if i >= len(s) {
			return dst
		}
		switch s[i] {
		case '"', '\\', '/':
			dst = append(dst, s[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(s, i+1)
			if !ok {
				return dst
			}
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if r2, ok2 := hex4(s, i+3); ok2 && r2 >= 0xDC00 && r2 < 0xE000 {
					r = utf16.DecodeRune(r, r2)
					i += 6
				}
			}
			dst = utf8.AppendRune(dst, r) // a lone surrogate becomes U+FFFD
		default:
			dst = append(dst, s[i])
		}
	}
	return dst
}

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendQuoted appends s as a JSON string. Control characters are escaped,
// and so is invalid UTF-8 (as U+FFFD) so the output is always valid JSON.
func appendQuoted[S string | []byte](dst []byte, s S) []byte {
	const hexdigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexdigits[c>>4], hexdigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
