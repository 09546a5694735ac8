//go:build !race

package providers

import "testing"

// A relay parser allocates nothing per frame once its buffers have grown:
// not for frames passed on as they came (a recording, fed whole or in
// pieces), nor for one with a line left out or a leading BOM dropped.
func TestRelaySSEParserZeroAllocs(t *testing.T) {
	in := readFixture(t, "openrouter/chat-kimi-parallel-processing-comments.sse")
	dropped := []byte("\uFEFFevent: x\nfoo: 1\ndata: {}\nid: 3\n\n: ping\n\ndata: {}\r\nbar\r\n\r\n")
	p := NewRelaySSEParser(0)
	run := func(b []byte, step int) func() {
		return func() {
			p.Reset()
			for i := 0; i < len(b); i += step {
				p.Feed(b[i:min(i+step, len(b))])
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
	}{{"whole", in, len(in)}, {"1KiB reads", in, 1024}, {"7-byte reads", in, 7}, {"lines left out", dropped, 5}} {
		if n := testing.AllocsPerRun(20, run(c.in, c.step)); n != 0 {
			t.Errorf("%s: %v allocs per stream, want 0", c.name, n)
		}
	}
}
