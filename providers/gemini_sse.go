package providers

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrGeminiSSEBlock: a streamGenerateContent?alt=sse block that is not
// exactly one "data:" line. genai-go cuts a block at its first ':' and
// decodes the rest as one JSON value, so an "event:" or "id:" line, a
// comment, or a second data line is an error to it, while other SSE
// readers (@google/genai, browsers' EventSource) skip or join them: the
// readings differ, and such a stream is refused. It also reports a stream
// that ends blocks with both "\n\n" and "\r\n\r\n": genai-go looks for
// "\n\n" first in all it has buffered, so where it cuts such a stream
// depends on how the bytes arrive.
var ErrGeminiSSEBlock = errors.New("gemini sse block that is not exactly one data line")

// GeminiSSEBlock is one block of an alt=sse stream.
type GeminiSSEBlock struct {
	// Raw is the block as sent, its terminator included; for a last block
	// the stream ended without a terminator, the stream's terminator is
	// added, so that relaying Raw gives every client a whole block.
	Raw []byte
	// Data is the block's payload: what follows "data:", a JSON value for
	// GeminiFrame.Decode (leading spaces are JSON whitespace).
	Data []byte
}

// GeminiSSESplitter cuts an alt=sse stream into blocks the way genai-go
// reads it: a block ends at "\n\n" or "\r\n\r\n", one trailing '\r' of a
// block is dropped, empty blocks are skipped (and not handed out), and an
// unterminated block at the end of the stream is a block (genai-go reads
// it). Every block handed out is exactly "data:" and one line; anything
// else fails with ErrGeminiSSEBlock, a block longer than the maximum with
// ErrEventTooLarge. After an error the splitter hands out nothing more.
//
// Raw and Data alias the splitter's buffer and are valid until the next
// Feed.
type GeminiSSESplitter struct {
	buf   []byte
	start int // where the next block begins in buf
	max   int
	term  string // the stream's terminator, fixed by its first block
	ended bool
	err   error
}

// NewGeminiSSESplitter returns a splitter refusing blocks longer than
// maxBlock bytes (DefaultMaxSSEEvent when maxBlock <= 0).
func NewGeminiSSESplitter(maxBlock int) *GeminiSSESplitter {
	if maxBlock <= 0 {
		maxBlock = DefaultMaxSSEEvent
	}
	return &GeminiSSESplitter{max: maxBlock}
}

// Feed appends stream bytes. The blocks handed out before are invalid
// after it.
func (s *GeminiSSESplitter) Feed(b []byte) {
	if s.start > 0 {
		n := copy(s.buf, s.buf[s.start:])
		s.buf, s.start = s.buf[:n], 0
	}
	s.buf = append(s.buf, b...)
}

// End marks the end of the stream: a pending unterminated block becomes
// the last one.
func (s *GeminiSSESplitter) End() { s.ended = true }

// Err is the error that stopped the splitter, or nil.
func (s *GeminiSSESplitter) Err() error { return s.err }

// Next returns the next block; ok is false when no whole block is
// buffered (or, after End, the stream is done) or on error.
func (s *GeminiSSESplitter) Next() (blk GeminiSSEBlock, ok bool, err error) {
	for s.err == nil {
		rest := s.buf[s.start:]
		lf := bytes.Index(rest, []byte("\n\n"))
		crlf := bytes.Index(rest, []byte("\r\n\r\n"))
		end, term := -1, ""
		switch {
		case lf >= 0 && (crlf < 0 || lf < crlf):
			end, term = lf, "\n\n"
		case crlf >= 0:
			end, term = crlf, "\r\n\r\n"
		}
		if end < 0 {
			if len(rest) > s.max {
				s.err = fmt.Errorf("gemini sse block of more than %d bytes: %w", s.max, ErrEventTooLarge)
				break
			}
			if !s.ended || len(bytes.TrimRight(rest, "\r\n")) == 0 {
				return GeminiSSEBlock{}, false, nil
			}
			// The last block, unterminated: genai-go reads it whole.
			line := bytes.TrimRight(rest, "\r\n")
			s.start = len(s.buf)
			if s.term == "" {
				s.term = "\n\n"
			}
			raw := append(line[:len(line):len(line)], s.term...)
			return s.block(raw, line)
		}
		if end > s.max {
			s.err = fmt.Errorf("gemini sse block of more than %d bytes: %w", s.max, ErrEventTooLarge)
			break
		}
		raw := rest[:end+len(term)]
		line := rest[:end]
		s.start += end + len(term)
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			continue // genai-go skips an empty block, and so do SSE readers
		}
		if s.term == "" {
			s.term = term
		} else if s.term != term {
			s.err = fmt.Errorf("blocks ended by both %q and %q: %w", s.term, term, ErrGeminiSSEBlock)
			break
		}
		return s.block(raw, line)
	}
	return GeminiSSEBlock{}, false, s.err
}

// block checks a block's line: "data:" and one line.
func (s *GeminiSSESplitter) block(raw, line []byte) (GeminiSSEBlock, bool, error) {
	if bytes.IndexByte(line, '\n') >= 0 || bytes.IndexByte(line, '\r') >= 0 {
		s.err = fmt.Errorf("a block of more than one line: %w", ErrGeminiSSEBlock)
		return GeminiSSEBlock{}, false, s.err
	}
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		s.err = fmt.Errorf("a block that is not a data line (%.20q): %w", line, ErrGeminiSSEBlock)
		return GeminiSSEBlock{}, false, s.err
	}
	return GeminiSSEBlock{Raw: raw, Data: data}, true, nil
}

// AppendGeminiSSEData appends payload as one alt=sse block, "data: " and
// the payload and "\r\n\r\n" (what Gemini sends). The payload must be one
// line of JSON, as the encoders of this package produce.
func AppendGeminiSSEData(dst, payload []byte) []byte {
	dst = append(dst, "data: "...)
	dst = append(dst, payload...)
	return append(dst, "\r\n\r\n"...)
}
