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

// maxJSONDepth bounds the nesting validateUnique walks: a value inside
// more than maxJSONDepth containers is refused.
const maxJSONDepth = 256

// dupFrame is one open container of validateUnique: whether it is an
// object, where its keys start in the key stack, its slot in the jsonDoc
// being indexed, and (validateKeys) whether it lies inside a free-form
// member.
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
