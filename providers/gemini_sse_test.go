package providers

import (
	"bytes"
	"errors"
	"testing"
)

func TestGeminiSSESplitter(t *testing.T) {
	split := func(in string, step int) ([]GeminiSSEBlock, error) {
		s := NewGeminiSSESplitter(1 << 12)
		var out []GeminiSSEBlock
		for i := 0; i <= len(in); i += step {
			if i < len(in) {
				s.Feed([]byte(in[i:min(i+step, len(in))]))
			}
			if i+step > len(in) {
				s.End()
			}
			for {
				b, ok, err := s.Next()
				if err != nil {
					return out, err
				}
				if !ok {
					break
				}
				out = append(out, GeminiSSEBlock{Raw: bytes.Clone(b.Raw), Data: bytes.Clone(b.Data)})
			}
		}
		return out, nil
	}
	good := map[string][]string{
		"data: {}\r\n\r\ndata: {\"a\":1}\r\n\r\n": {" {}", ` {"a":1}`},
		"data:{}\n\n\n\ndata: []\n\n":             {"{}", " []"},
		"data: {}\r\n\n":                          {" {}"},
		"data: {}\r\n\r\ndata: {\"b\":2}":         {" {}", ` {"b":2}`}, // genai-go reads the unterminated last block
	}
	for in, want := range good {
		for step := 1; step <= len(in); step++ {
			got, err := split(in, step)
			if err != nil || len(got) != len(want) {
				t.Fatalf("%q step %d: %d blocks, %v", in, step, len(got), err)
			}
			for i := range got {
				if string(got[i].Data) != want[i] {
					t.Errorf("%q block %d: %q, want %q", in, i, got[i].Data, want[i])
				}
			}
		}
	}
	for _, bad := range []string{
		"event: x\ndata: {}\n\n", ": keepalive\n\n", "data: {}\ndata: {}\n\n",
		"id: 1\n\n", "\uFEFFdata: {}\n\n", "data: {}\r\n\r\ndata: {}\n\n", "data : {}\n\n",
	} {
		if _, err := split(bad, 1); !errors.Is(err, ErrGeminiSSEBlock) {
			t.Errorf("%q: %v, want ErrGeminiSSEBlock", bad, err)
		}
	}
	if _, err := split("data: "+string(bytes.Repeat([]byte("x"), 1<<13))+"\n\n", 512); !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("big block: %v", err)
	}
}
