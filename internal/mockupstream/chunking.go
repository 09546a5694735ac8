package mockupstream

import "math/rand/v2"

// chunker yields the length of each successive piece of a body. It works on
// the remaining bytes so that it never allocates a list of pieces: a 20 KB
// fixture at one byte per write would otherwise mean 20,000 slice headers.
type chunker struct {
	c   Chunking
	rng *rand.Rand
}

func newChunker(c Chunking) *chunker {
	k := &chunker{c: c}
	if c.Mode == Random {
		k.rng = rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))
	}
	return k
}

// next returns the length of the piece at the head of rest (len(rest) > 0).
func (k *chunker) next(rest []byte) int {
	n := len(rest)
	switch k.c.Mode {
	case PerEvent:
		n = eventEnd(rest)
	case PerLine:
		n = lineEnd(rest)
	case FixedSize:
		n = max(k.c.Size, 1)
	case Random:
		size := k.c.Size
		if size <= 0 {
			size = 64
		}
		n = 1 + k.rng.IntN(size)
	}
	return min(n, len(rest))
}

// lineEnd returns the length of the first line of b, its terminator (LF,
// CRLF or CR) included, or len(b) when b holds no terminator.
func lineEnd(b []byte) int {
	for i, c := range b {
		switch c {
		case '\n':
			return i + 1
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				return i + 2
			}
			return i + 1
		}
	}
	return len(b)
}

// eventEnd returns the length of the first SSE event of b: everything up to
// and including the first empty line. Without an empty line, the rest of b
// is one event.
func eventEnd(b []byte) int {
	off := 0
	for off < len(b) {
		n := lineEnd(b[off:])
		if b[off] == '\n' || b[off] == '\r' {
			return off + n // an empty line ends the event
		}
		off += n
	}
	return len(b)
}

// Chunks cuts body into the pieces a streamed response with c would write.
// The pieces share body's memory. Proxy tests use it to re-chunk fixtures
// without a server.
func Chunks(body []byte, c Chunking) [][]byte {
	var out [][]byte
	k := newChunker(c)
	for rest := body; len(rest) > 0; {
		n := k.next(rest)
		out = append(out, rest[:n:n])
		rest = rest[n:]
	}
	return out
}
