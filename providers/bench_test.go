package providers

import (
	"testing"
)

// benchStream is the Kimi stream through OpenRouter: reasoning deltas,
// keep-alive comments and two tool calls split over 13 deltas each.
const benchStream = "openrouter/chat-kimi-parallel-processing-comments.sse"

func benchFrames(b *testing.B) (in []byte, payloads [][]byte) {
	in = readFixture(b, benchStream)
	p := NewSSEParser(0)
	p.Feed(in)
	p.End()
	for f, err := p.Next(); f != nil || err != nil; f, err = p.Next() {
		if err != nil {
			b.Fatal(err)
		}
		if f.HasData() && !f.Done {
			payloads = append(payloads, append([]byte(nil), f.Data...))
		}
	}
	return in, payloads
}

// BenchmarkSSEParse parses the whole stream per op, fed in 512-byte reads;
// ns per chunk is reported as ns/frame.
func BenchmarkSSEParse(b *testing.B) {
	in, _ := benchFrames(b)
	p := NewSSEParser(0)
	frames := 0
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Reset()
		frames = 0
		for off := 0; off < len(in); off += 512 {
			p.Feed(in[off:min(off+512, len(in))])
			for f, _ := p.Next(); f != nil; f, _ = p.Next() {
				frames++
			}
		}
		p.End()
		for f, _ := p.Next(); f != nil; f, _ = p.Next() {
			frames++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(frames), "ns/frame")
}

// BenchmarkChatChunkDecode decodes every data payload of the stream per op.
func BenchmarkChatChunkDecode(b *testing.B) {
	_, payloads := benchFrames(b)
	total := 0
	for _, p := range payloads {
		total += len(p)
	}
	var c ChatChunk
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range payloads {
			if err := c.Decode(p); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(payloads)), "ns/chunk")
}

// BenchmarkToolCallAssembly decodes the payloads and assembles the calls,
// as the interceptor does, reusing the view and the assembler.
func BenchmarkToolCallAssembly(b *testing.B) {
	_, payloads := benchFrames(b)
	var c ChatChunk
	a := NewToolCallAssembler(ToolCallLimits{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Reset()
		for seq, p := range payloads {
			if err := c.Decode(p); err != nil {
				b.Fatal(err)
			}
			for j := range c.Choices {
				if _, err := a.Add(uint64(seq), c.Choices[j].ToolCalls); err != nil {
					b.Fatal(err)
				}
			}
		}
		a.Finish()
		if a.Len() != 2 {
			b.Fatalf("%d calls", a.Len())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(payloads)), "ns/chunk")
}

// BenchmarkToolCallAssemblyOnly isolates Add on pre-decoded deltas.
func BenchmarkToolCallAssemblyOnly(b *testing.B) {
	_, payloads := benchFrames(b)
	var views []ChatChunk
	for _, p := range payloads {
		var c ChatChunk
		if err := c.Decode(p); err != nil {
			b.Fatal(err)
		}
		if c.HasToolCalls() {
			views = append(views, c)
		}
	}
	a := NewToolCallAssembler(ToolCallLimits{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Reset()
		for seq := range views {
			if _, err := a.Add(uint64(seq), views[seq].Choices[0].ToolCalls); err != nil {
				b.Fatal(err)
			}
		}
		a.Finish()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(views)), "ns/delta")
}
