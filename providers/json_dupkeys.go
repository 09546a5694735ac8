package providers

import (
	"bytes"
	"fmt"
	"slices"
)

// Why duplicate keys are refused: gjson and sjson act on the FIRST
// occurrence of a key, while the JSON decoders agents and providers use
// (Python's json, JavaScript's JSON.parse, Go's encoding/json) keep the
// LAST. A body such as {"arguments":"ls","arguments":"rm -rf /"} would be
// judged on one value and executed with the other. hookgate fails closed:
// the views refuse such bodies.

// maxJSONDepth bounds the nesting checkUniqueKeys walks: a value inside
// more than maxJSONDepth containers is refused.
const maxJSONDepth = 256

// checkUniqueKeys fails if any object in raw (valid JSON) repeats a key,
// comparing keys by their decoded text ("a" and "\u0061" are one key). It
// is one forward pass over raw with an explicit stack, and allocates
// nothing for ordinary bodies (shallow, unescaped keys, fewer than 64 keys
// open at once). The parseBody views validate and check in one pass
// (validateUnique, the same rules); this check is for payloads validated
// otherwise.
func checkUniqueKeys(raw []byte) error {
	var (
		keyBuf   [64][]byte
		frameBuf [32]dupFrame
	)
	keys, frames := keyBuf[:0], frameBuf[:0]
	b := raw
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case ' ', '\t', '\r', '\n', ',', ':':
			i++
		case '{', '[':
			if len(frames) > maxJSONDepth {
				return errTooDeep
			}
			frames = append(frames, dupFrame{object: c == '{', base: len(keys)})
			i++
		case '}', ']':
			if len(frames) == 0 {
				return nil // not valid JSON; the caller validated it
			}
			f := frames[len(frames)-1]
			frames = frames[:len(frames)-1]
			if f.object {
				if err := distinct(keys[f.base:]); err != nil {
					return err
				}
				keys = keys[:f.base]
			}
			i++
		case '"':
			end, ok := skipString(b, i)
			if !ok {
				return nil
			}
			if j := skipSpace(b, end); j < len(b) && b[j] == ':' && len(frames) > 0 && frames[len(frames)-1].object {
				k := b[i+1 : end-1]
				if hasByte(k, '\\') {
					k = appendUnescapedContent(nil, k)
				}
				keys = append(keys, k)
				i = j + 1
				continue
			}
			if len(frames) > maxJSONDepth {
				return errTooDeep
			}
			i = end
		default:
			if len(frames) > maxJSONDepth {
				return errTooDeep
			}
			s := i
			for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ':' {
				i++
			}
			if i == s {
				return nil
			}
		}
	}
	return nil
}

// dupFrame is one open container of checkUniqueKeys and validateUnique:
// whether it is an object, where its keys start in the key stack, and
// (validateUnique) its slot in the jsonDoc being indexed, and
// (validateKeys) whether it lies inside a free-form member.
type dupFrame struct {
	object bool
	free   bool
	base   int
	slot   int
}

var errTooDeep = fmt.Errorf("nesting deeper than %d: %w", maxJSONDepth, ErrInvalidJSON)

// distinct fails if two of one object's keys are equal. Objects are
// small: up to 16 keys are compared pairwise, more are sorted in place
// (the slice is the object's own, dropped after).
func distinct(own [][]byte) error {
	if len(own) <= 16 {
		for i := 1; i < len(own); i++ {
			for j := 0; j < i; j++ {
				if string(own[i]) == string(own[j]) {
					return fmt.Errorf("key %q repeated: %w", own[i], ErrDuplicateKey)
				}
			}
		}
		return nil
	}
	slices.SortFunc(own, bytes.Compare)
	for i := 1; i < len(own); i++ {
		if bytes.Equal(own[i-1], own[i]) {
			return fmt.Errorf("key %q repeated: %w", own[i], ErrDuplicateKey)
		}
	}
	return nil
}
