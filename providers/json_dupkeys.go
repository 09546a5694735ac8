package providers

import (
	"bytes"
	"fmt"
	"sort"
)

// Why duplicate keys are refused: gjson and sjson act on the FIRST
// occurrence of a key, while the JSON decoders agents and providers use
// (Python's json, JavaScript's JSON.parse, Go's encoding/json) keep the
// LAST. A body such as {"arguments":"ls","arguments":"rm -rf /"} would be
// judged on one value and executed with the other. hookgate fails closed:
// the views refuse such bodies.

// maxJSONDepth bounds the nesting checkUniqueKeys walks.
const maxJSONDepth = 256

// checkUniqueKeys fails if any object in raw (valid JSON) repeats a key.
func checkUniqueKeys(raw []byte) error {
	var keys [][]byte
	return uniqueIn(raw, &keys, 0)
}

func uniqueIn(v []byte, keys *[][]byte, depth int) error {
	if depth > maxJSONDepth {
		return fmt.Errorf("nesting deeper than %d: %w", maxJSONDepth, ErrInvalidJSON)
	}
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return nil
	}
	switch v[0] {
	case '[':
		it, _ := iterArray(v)
		for e, ok := it.next(); ok; e, ok = it.next() {
			if err := uniqueIn(e, keys, depth+1); err != nil {
				return err
			}
		}
	case '{':
		base := len(*keys)
		it, _ := iterObject(v)
		for k, e, ok := it.next(); ok; k, e, ok = it.next() {
			if hasByte(k, '\\') {
				k = appendUnescapedContent(nil, k)
			}
			*keys = append(*keys, k)
			// A child object truncates back to its own base on return, so
			// everything above base stays this object's keys.
			if err := uniqueIn(e, keys, depth+1); err != nil {
				return err
			}
		}
		own := (*keys)[base:]
		if len(own) > 1 {
			sort.Slice(own, func(i, j int) bool { return bytes.Compare(own[i], own[j]) < 0 })
			for i := 1; i < len(own); i++ {
				if bytes.Equal(own[i-1], own[i]) {
					return fmt.Errorf("key %q repeated: %w", own[i], ErrDuplicateKey)
				}
			}
		}
		*keys = (*keys)[:base]
	}
	return nil
}
