package providers

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

// refCanonical is the canonical-form gate written with encoding/json's
// tokenizer, independently of the scanner: it decodes each key, refuses a
// decoded key repeated in one object (ErrDuplicateKey) and one that
// strings.EqualFold (encoding/json's field matching) finds equal to a
// member name while its raw spelling is not exactly that name
// (ErrKeySpelling), outside free-form members. ok is false for input
// encoding/json does not read as one JSON value.
func refCanonical(raw []byte) (err error, ok bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	type frame struct {
		object bool
		free   bool
		keys   map[string]bool
	}
	var stack []frame
	expectKey := func() bool {
		return len(stack) > 0 && stack[len(stack)-1].object
	}
	freeNext := false
	var first error
	note := func(e error) {
		if first == nil {
			first = e
		}
	}
	// afterKey: the previous token was a key, so this one is its value.
	afterKey := false
	prev := int64(0)
	for {
		tok, terr := dec.Token()
		if terr == io.EOF {
			break
		}
		if terr != nil {
			return nil, false
		}
		off := dec.InputOffset()
		rawTok := strings.TrimLeft(string(raw[prev:off]), " \t\r\n,:")
		prev = off
		if s, isStr := tok.(string); isStr && expectKey() && !afterKey {
			f := &stack[len(stack)-1]
			if f.keys[s] {
				note(ErrDuplicateKey)
			}
			f.keys[s] = true
			freeNext = false
			if !f.free {
				for _, m := range memberNames {
					if strings.EqualFold(s, m) && rawTok != `"`+m+`"` {
						note(ErrKeySpelling)
					}
				}
				_, freeNext = freeFormMembers[rawTok[1:len(rawTok)-1]]
			}
			afterKey = true
			continue
		}
		inFree := len(stack) > 0 && stack[len(stack)-1].free
		if d, isDelim := tok.(json.Delim); isDelim {
			switch d {
			case '{', '[':
				stack = append(stack, frame{object: d == '{', free: inFree || afterKey && freeNext, keys: map[string]bool{}})
			default:
				stack = stack[:len(stack)-1]
			}
		}
		afterKey, freeNext = false, false
	}
	return first, true
}
