package bench

import "bytes"

var keyFinishReason = []byte(`"finish_reason"`)

// findStringValue looks for key followed by a string value (spaces allowed
// around the colon), `"finish_reason":"stop"` say, in b from offset from;
// `"finish_reason":null` does not count. Like findKey, it returns whether it
// was found and, if not, where to resume once b has grown.
func findStringValue(b []byte, from int, key []byte) (bool, int) {
	for {
		k := bytes.Index(b[from:], key)
		if k < 0 {
			return false, max(from, len(b)-len(key)+1)
		}
		i := from + k
		j := skipSpace(b, i+len(key))
		if j < len(b) && b[j] == ':' {
			j = skipSpace(b, j+1)
		} else if j < len(b) {
			from = i + 1
			continue
		}
		switch {
		case j >= len(b):
			return false, i // the value is not all here yet
		case b[j] == '"':
			return true, i
		default:
			from = i + 1
		}
	}
}
