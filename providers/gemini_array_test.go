package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// splitGeminiArray feeds in to a splitter cut at every step bytes.
func splitGeminiArray(in []byte, step int) ([][]byte, error) {
	s := NewGeminiArraySplitter(1 << 16)
	var out [][]byte
	for i := 0; i <= len(in); i += step {
		if i < len(in) {
			s.Feed(in[i:min(i+step, len(in))])
		}
		if i+step > len(in) {
			s.End()
		}
		for {
			e, ok, err := s.Next()
			if err != nil {
				return out, err
			}
			if !ok {
				break
			}
			out = append(out, bytes.Clone(e))
		}
	}
	return out, nil
}

func TestGeminiArraySplitter(t *testing.T) {
	in := []byte("[{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a]}\\\"\"}]}}]}\r\n,\r\n{\"usageMetadata\":{}}\r\n]")
	for step := 1; step <= len(in); step++ {
		got, err := splitGeminiArray(in, step)
		if err != nil || len(got) != 2 || !bytes.HasPrefix(got[1], []byte(`{"usageMetadata"`)) {
			t.Fatalf("step %d: %q %v", step, got, err)
		}
	}
	for _, bad := range []string{"", "[", "[{}", "{}", "[{},]", "[{}]x", "[1]", "[{}{}]", "[{]", `[{"a":}]`} {
		if _, err := splitGeminiArray([]byte(bad), 1); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("%q: err %v, want ErrInvalidJSON", bad, err)
		}
	}
	if _, err := splitGeminiArray([]byte(`[{"text":"`+string(bytes.Repeat([]byte("x"), 1<<16))+`"}]`), 4096); !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("big element: %v, want ErrEventTooLarge", err)
	}
}

// FuzzGeminiArraySplitter: splitting at any chunk boundary gives the
// elements encoding/json finds in the whole array, or fails when
// encoding/json does.
func FuzzGeminiArraySplitter(f *testing.F) {
	f.Add([]byte(`[{"a":1}, {"b":[1,"]"]}]`), uint8(3))
	f.Add([]byte("[{\"candidates\":[]}\r\n,\r\n{\"x\":\"\\\"}\"}]"), uint8(1))
	f.Add([]byte(`[]`), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		got, err := splitGeminiArray(in, int(step)+1)
		var want []json.RawMessage
		jerr := json.Unmarshal(in, &want)
		if err != nil {
			return // refusing is allowed
		}
		if jerr != nil {
			t.Fatalf("split %q into %q; encoding/json fails: %v", in, got, jerr)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d elements, encoding/json %d", in, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], bytes.TrimSpace(want[i])) {
				t.Fatalf("%q element %d: %q, encoding/json %q", in, i, got[i], want[i])
			}
		}
	})
}
