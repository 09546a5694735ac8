//go:build !race

package providers

import "testing"

// Decoding Anthropic events into a reused MessagesEvent allocates nothing.
func TestMessagesEventDecodeAllocs(t *testing.T) {
	in := readFixture(t, "anthropic/messages-thinking-then-tool-use.sse")
	var payloads [][]byte
	p := NewSSEParser(0)
	p.Feed(in)
	p.End()
	for f, _ := p.Next(); f != nil; f, _ = p.Next() {
		if f.HasData() {
			payloads = append(payloads, append([]byte(nil), f.Data...))
		}
	}
	var ev MessagesEvent
	decode := func() {
		for _, d := range payloads {
			if err := ev.Decode(d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := testing.AllocsPerRun(50, decode); n != 0 {
		t.Fatalf("%v allocs per stream, want 0", n)
	}
}
