package providers

import "fmt"

// validateUnique is gjson.ValidBytes and a repeated-key check in one
// forward pass (and, with a non-nil doc, jsonDoc's index too): every parseBody
// view validated a body, then read it again for repeated keys. It accepts
// exactly what gjson.ValidBytes accepts (RFC 8259 JSON; strings are not
// checked for UTF-8) and fails with ErrInvalidJSON; a valid body that
// repeats a key fails with ErrDuplicateKey, one nested deeper than
// maxJSONDepth with errTooDeep.
func validateUnique(raw []byte, doc *jsonDoc) error { return validateKeys(raw, doc, keyRules{}) }

// keyRules are the checks validateKeys adds to validateUnique's.
type keyRules struct {
	// spelling: the canonical-form gate's check (variantSpelling) of every
	// key outside free-form members (ErrKeySpelling).
	spelling bool
	// siblings: no two keys of one object equal under folding, and no
	// "__proto__" key (ErrAmbiguousArguments): tool-call arguments.
	siblings bool
}

// validateKeys is validateUnique with the rules' checks, whose failures
// are reported once the body is known valid.
func validateKeys(raw []byte, doc *jsonDoc, rules keyRules) error {
	var (
		keyBuf   [64][]byte
		frameBuf [32]dupFrame
	)
	keys, frames := keyBuf[:0], frameBuf[:0]
	var dup error // the first repeated or variant key; reported if the body is valid
	free := false // the key just read names a free-form member
	b := raw
	state := wantValue
	i := 0
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			break
		}
		c := b[i]
		switch state {
		case wantValue, wantValueOrClose:
			if c == ']' && state == wantValueOrClose {
				f := frames[len(frames)-1]
				frames = frames[:len(frames)-1]
				if doc != nil {
					doc.ends[f.slot] = i + 1
				}
				state = wantCommaOrClose
				i++
				continue
			}
			if len(frames) > maxJSONDepth {
				return errTooDeep
			}
			inFree := free || len(frames) > 0 && frames[len(frames)-1].free
			free = false
			switch c {
			case '{', '[':
				f := dupFrame{object: c == '{', base: len(keys), free: inFree}
				if doc != nil {
					f.slot = len(doc.starts)
					doc.starts = append(doc.starts, i)
					doc.ends = append(doc.ends, 0)
				}
				frames = append(frames, f)
				state = wantValueOrClose
				if c == '{' {
					state = wantKeyOrClose
				}
				i++
				continue
			case '"':
				end, ok := validString(b, i)
				if !ok {
					return ErrInvalidJSON
				}
				i = end
			case 't':
				if !hasLiteral(b, i, "true") {
					return ErrInvalidJSON
				}
				i += 4
			case 'f':
				if !hasLiteral(b, i, "false") {
					return ErrInvalidJSON
				}
				i += 5
			case 'n':
				if !hasLiteral(b, i, "null") {
					return ErrInvalidJSON
				}
				i += 4
			default:
				end, ok := validNumber(b, i)
				if !ok {
					return ErrInvalidJSON
				}
				i = end
			}
			state = wantCommaOrClose
		case wantKeyOrClose, wantKey:
			if c == '}' && state == wantKeyOrClose {
				f := frames[len(frames)-1]
				frames = frames[:len(frames)-1]
				if doc != nil {
					doc.ends[f.slot] = i + 1
				}
				keys = keys[:f.base]
				state = wantCommaOrClose
				i++
				continue
			}
			if c != '"' {
				return ErrInvalidJSON
			}
			end, ok := validString(b, i)
			if !ok {
				return ErrInvalidJSON
			}
			k := b[i+1 : end-1]
			if rules.spelling && dup == nil && !frames[len(frames)-1].free {
				if name, ok := variantSpelling(k); ok {
					dup = fmt.Errorf("key %q spells member %q: %w", k, name, ErrKeySpelling)
				}
				free = isFreeForm(k)
			}
			if hasByte(k, '\\') {
				k = appendUnescapedContent(nil, k)
			}
			if rules.siblings && dup == nil && string(k) == "__proto__" {
				dup = fmt.Errorf("key %q: %w", k, ErrAmbiguousArguments)
			}
			keys = append(keys, k)
			i = end
			state = wantColon
		case wantColon:
			if c != ':' {
				return ErrInvalidJSON
			}
			i++
			state = wantValue
		case wantCommaOrClose:
			if len(frames) == 0 {
				return ErrInvalidJSON // something after the top-level value
			}
			f := frames[len(frames)-1]
			switch {
			case c == ',':
				state = wantValue
				if f.object {
					state = wantKey
				}
			case c == '}' && f.object, c == ']' && !f.object:
				frames = frames[:len(frames)-1]
				if doc != nil {
					doc.ends[f.slot] = i + 1
				}
				if f.object {
					if err := distinct(keys[f.base:]); err != nil && dup == nil {
						dup = err
					}
					if rules.siblings && dup == nil {
						dup = foldDistinct(keys[f.base:])
					}
					keys = keys[:f.base]
				}
			default:
				return ErrInvalidJSON
			}
			i++
		}
	}
	if state != wantCommaOrClose || len(frames) != 0 {
		return ErrInvalidJSON
	}
	return dup
}

// What validateUnique expects next.
const (
	wantValue        = iota // a value
	wantValueOrClose        // a value or ']' (just after '[')
	wantKeyOrClose          // a key or '}' (just after '{')
	wantKey                 // a key (after ',' in an object)
	wantColon               // ':' after a key
	wantCommaOrClose        // ',' or the container's end after a value; the end of input at the top
)

// validString returns the index just past the string starting at
// b[i] == '"', checking it as gjson does: no control characters, only
// JSON's escapes, four hex digits after \u.
func validString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c < ' ':
			return i, false
		case c == '"':
			return i + 1, true
		case c == '\\':
			i++
			if i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if _, ok := hex4(b, i+1); !ok {
					return i, false
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

// validNumber returns the index just past the number starting at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte, i int) (int, bool) {
	digits := func(i int) int {
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b) || b[i] < '0' || b[i] > '9':
		return i, false
	case b[i] == '0':
		i++
	default:
		i = digits(i)
	}
	if i < len(b) && b[i] == '.' {
		s := i + 1
		if i = digits(s); i == s {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		s := i
		if i = digits(s); i == s {
			return i, false
		}
	}
	return i, true
}

// hasLiteral reports whether b holds lit at i.
func hasLiteral(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}
