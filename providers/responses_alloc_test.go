//go:build !race

package providers

import "testing"

// Decoding the events that dominate a stream (text and argument deltas)
// allocates nothing.
func TestResponsesEventDecodeZeroAllocs(t *testing.T) {
	var ev ResponsesEvent
	for _, p := range []string{
		`{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hel\"lo","logprobs":[],"sequence_number":12}`,
		`{"type":"response.function_call_arguments.delta","delta":"{\"","item_id":"fc_1","obfuscation":"gXoA7j","output_index":0,"sequence_number":3}`,
		`{"type":"response.reasoning_text.delta","content_index":0,"delta":" user","item_id":"fa6f","output_index":0,"sequence_number":5}`,
	} {
		b := []byte(p)
		if n := testing.AllocsPerRun(100, func() { _ = ev.Decode(b) }); n != 0 {
			t.Errorf("%s: %v allocs, want 0", p, n)
		}
	}
}
