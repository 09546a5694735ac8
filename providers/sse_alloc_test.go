//go:build !race

package providers

import "testing"

// Once its buffers have grown, the parser allocates nothing per frame, fed
// whole or in pieces, including multi-line data.
func TestSSEParserZeroAllocs(t *testing.T) {
	in := readFixture(t, "openrouter/chat-kimi-parallel-processing-comments.sse")
	multi := []byte("event: x\ndata: a\ndata: b\nid: 3\n\n: ping\n\ndata: c\r\n\r\n")
	p := NewSSEParser(0)
	run := func(b []byte, step int) func() {
		return func() {
			p.Reset()
			for i := 0; i < len(b); i += step {
				j := min(i+step, len(b))
				p.Feed(b[i:j])
				for {
					f, err := p.Next()
					if err != nil {
						t.Fatal(err)
					}
					if f == nil {
						break
					}
				}
			}
			p.End()
			for f, _ := p.Next(); f != nil; f, _ = p.Next() {
			}
		}
	}
	for _, c := range []struct {
		name string
		in   []byte
		step int
	}{{"whole", in, len(in)}, {"1KiB reads", in, 1024}, {"7-byte reads", in, 7}, {"multiline", multi, 5}} {
		if n := testing.AllocsPerRun(20, run(c.in, c.step)); n != 0 {
			t.Errorf("%s: %v allocs per stream, want 0", c.name, n)
		}
	}
}
