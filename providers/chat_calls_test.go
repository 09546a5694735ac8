package providers

import (
	"errors"
	"testing"
)

// An index a client could read as another number is refused, never guessed.
func TestChatChunkRefusesIndexesClientsReadDifferently(t *testing.T) {
	var c ChatChunk
	for _, idx := range []string{`1.0`, `1e0`, `-1`, `9007199254740993`, `1234567890`, `"1"`, `true`, `{}`} {
		for _, in := range []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":` + idx + `,"function":{"name":"exec","arguments":"{}"}}]}}]}`,
			`{"choices":[{"index":` + idx + `,"delta":{"content":"x"}}]}`,
		} {
			if err := c.Decode([]byte(in)); !errors.Is(err, ErrBadIndex) {
				t.Errorf("Decode(%s) = %v, want ErrBadIndex", in, err)
			}
		}
	}
	if err := c.Decode([]byte(`{"choices":[{"index":null,"delta":{"tool_calls":[{"index":null,"function":{"name":"ls"}}]}}]}`)); err != nil {
		t.Errorf("null indexes refused: %v", err)
	}
}

// Tool calls in places or shapes hookgate does not hold are refused.
func TestChatChunkRefusesUnjudgedCalls(t *testing.T) {
	var c ChatChunk
	for _, in := range []string{
		`{"choices":[{"index":0,"delta":{"function_call":{"name":"exec","arguments":"{}"}}}]}`,
		`{"choices":[{"index":0,"delta":{"Function_Call":{"name":"exec"}}}]}`,
		`{"choices":[{"index":0,"delta":{},"message":{"tool_calls":[{"index":0,"function":{"name":"exec","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"ls"}}]},"message":{"tool_calls":[{"index":0,"function":{"name":"exec"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"message":{"function_call":{"name":"exec"}}}]}`,
		`{"choices":[{"index":0,"delta":{},"message":"exec"}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"type":"function","function":{"name":"ls"},"custom":{"name":"exec","input":"rm -rf /"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"type":"custom","function":{"name":"ls"}}]}}]}`,
	} {
		// A variant spelling (Function_Call) is already refused by the
		// canonical-form gate; either refusal ends the stream.
		if err := c.Decode([]byte(in)); !errors.Is(err, ErrUnjudgedCall) && !IsAmbiguousKey(err) {
			t.Errorf("Decode(%s) = %v, want ErrUnjudgedCall or an ambiguous key", in, err)
		}
	}
	// Writer mirrors each delta in "message": the same calls, byte for byte.
	for _, in := range []string{
		`{"choices":[{"index":0,"message":{"tool_calls":[{"index":0,"function":{"name":"ls"}}]},"delta":{"tool_calls":[{"index":0,"function":{"name":"ls"}}]}}]}`,
		`{"choices":[{"index":0,"message":{"content":null,"tool_calls":null,"function_call":null},"delta":{"function_call":null}}]}`,
	} {
		if err := c.Decode([]byte(in)); err != nil {
			t.Errorf("Decode(%s) = %v", in, err)
		}
	}
}
