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

// Decoding chunks into a reused ChatChunk allocates nothing, and the
// assembler allocates only per call (its id and name strings).
func TestChatChunkAndAssemblerAllocs(t *testing.T) {
	in := readFixture(t, "openrouter/chat-kimi-parallel-processing-comments.sse")
	var payloads [][]byte
	p := NewSSEParser(0)
	p.Feed(in)
	p.End()
	for f, _ := p.Next(); f != nil; f, _ = p.Next() {
		if f.HasData() && !f.Done {
			payloads = append(payloads, append([]byte(nil), f.Data...))
		}
	}
	var c ChatChunk
	decode := func() {
		for _, d := range payloads {
			if err := c.Decode(d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := testing.AllocsPerRun(20, decode); n != 0 {
		t.Errorf("ChatChunk.Decode: %v allocs per stream, want 0", n)
	}
	a := NewToolCallAssembler(ToolCallLimits{})
	assemble := func() {
		a.Reset()
		for seq, d := range payloads {
			if err := c.Decode(d); err != nil {
				t.Fatal(err)
			}
			for i := range c.Choices {
				if _, err := a.Add(uint64(seq), c.Choices[i].ToolCalls); err != nil {
					t.Fatal(err)
				}
			}
		}
		a.Finish()
	}
	if n := testing.AllocsPerRun(20, assemble); n > 2*2 {
		t.Errorf("assembly: %v allocs per stream of 2 calls, want at most 4 (id and name per call)", n)
	}
}
