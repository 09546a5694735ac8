package providers

import "fmt"

// ErrNotAnIndex: a member that numbers something a client counts by (a
// Messages block's "index", a Responses event's "sequence_number",
// "output_index" or "content_index") is not a plain non-negative integer
// literal of at most 2^53. Clients disagree on such numbers: encoding/json
// refuses 1.0 and 1e0 for an int64 while JavaScript reads both as 1, and
// above 2^53 JavaScript rounds. Such an event is refused. It wraps
// ErrInvalidJSON.
var ErrNotAnIndex = fmt.Errorf("a number a client counts by is not a plain non-negative integer: %w", ErrInvalidJSON)

// maxWireIndex is 2^53, the largest integer every JSON reader (a
// JavaScript number included) holds exactly.
const maxWireIndex = 1 << 53

// parseWireIndex reads raw, a JSON value, as a wire index: only digits,
// no leading zero, no sign, fraction or exponent, at most 2^53.
func parseWireIndex(raw []byte) (int64, error) {
	if len(raw) == 0 || len(raw) > 16 || (len(raw) > 1 && raw[0] == '0') {
		return 0, ErrNotAnIndex
	}
	var n int64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, ErrNotAnIndex
		}
		n = n*10 + int64(c-'0')
	}
	if n > maxWireIndex {
		return 0, ErrNotAnIndex
	}
	return n, nil
}
