package providers

import (
	"bytes"
	"errors"
	"testing"
)

// splitOllama feeds in to a splitter cut at every step bytes.
func splitOllama(in []byte, step, max int) ([][]byte, error) {
	s := NewOllamaNDJSONSplitter(max)
	var out [][]byte
	for i := 0; i <= len(in); i += step {
		if i < len(in) {
			s.Feed(in[i:min(i+step, len(in))])
		}
		if i+step > len(in) {
			s.End()
		}
		for {
			l, ok, err := s.Next()
			if err != nil {
				return out, err
			}
			if !ok {
				break
			}
			out = append(out, bytes.Clone(l))
		}
	}
	return out, nil
}

func TestOllamaNDJSONSplitter(t *testing.T) {
	in := []byte("{\"a\":\"x\\n\"}\r\n\n  \r\n{\"b\":2}\n\t\n")
	for step := 1; step <= len(in); step++ {
		got, err := splitOllama(in, step, 0)
		if err != nil || len(got) != 2 || string(got[0]) != `{"a":"x\n"}` || string(got[1]) != `{"b":2}` {
			t.Fatalf("step %d: %q %v", step, got, err)
		}
	}
	for _, bad := range []string{`{"a":1}`, "{\"a\":1}\n{\"b\"", "{}\n{}\r"} {
		got, err := splitOllama([]byte(bad), 1, 0)
		if !errors.Is(err, ErrTruncatedLine) || !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("%q: %q, err %v, want ErrTruncatedLine", bad, got, err)
		}
	}
	for _, ok := range []string{"", "\n", " \r\n\n"} {
		if got, err := splitOllama([]byte(ok), 1, 0); err != nil || len(got) != 0 {
			t.Errorf("%q: %q %v, want no line and no error", ok, got, err)
		}
	}
	long := append(bytes.Repeat([]byte("x"), 100), '\n')
	if _, err := splitOllama(long, 7, 64); !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("long line: %v, want ErrEventTooLarge", err)
	}
	if _, err := splitOllama(long[:100], 100, 64); !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("long unterminated line: %v, want ErrEventTooLarge", err)
	}
	if got, err := splitOllama(long, 7, 100); err != nil || len(got) != 1 {
		t.Errorf("line of the maximum: %d lines, %v", len(got), err)
	}
	s := NewOllamaNDJSONSplitter(0)
	s.Feed([]byte(`{"a":1}`))
	s.End()
	if _, _, err := s.Next(); err == nil || !s.Truncated() {
		t.Errorf("truncated tail: err %v, Truncated %v", err, s.Truncated())
	}
	if _, _, err2 := s.Next(); err2 == nil {
		t.Error("the splitter went on after an error")
	}
}

// FuzzOllamaNDJSONSplitter: splitting at any chunk boundary gives the
// lines bufio.Scanner (the Go client's reader) finds, blank ones left
// out, and fails exactly when the stream ends inside a line.
func FuzzOllamaNDJSONSplitter(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\r\n"), uint8(3))
	f.Add([]byte("\n\r\n{}\r\r\n x \n"), uint8(1))
	f.Add([]byte("{}\n{"), uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		got, err := splitOllama(in, int(step)+1, 1<<20)
		want, truncated := scanLines(in)
		if truncated != (err != nil) {
			t.Fatalf("%q: err %v, truncated %v", in, err, truncated)
		}
		if truncated {
			want = want[:len(want)-1]
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %q, bufio.Scanner %q", in, got, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%q line %d: %q, bufio.Scanner %q", in, i, got[i], want[i])
			}
		}
	})
}
