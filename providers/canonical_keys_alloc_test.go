//go:build !race

package providers

import "testing"

// The gate runs on every relayed frame: an ordinary frame allocates
// nothing, and a key with a fold candidate neither.
func TestCheckCanonicalAllocatesNothing(t *testing.T) {
	for _, in := range []string{
		`{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hello"},"finish_reason":null}]}`,
		`{"choices":[],"X-Trace":"a","Ünicode":1}`,
	} {
		b := []byte(in)
		if n := testing.AllocsPerRun(100, func() { _ = checkCanonical(b) }); n != 0 {
			t.Errorf("checkCanonical(%s): %v allocations", in, n)
		}
	}
}
