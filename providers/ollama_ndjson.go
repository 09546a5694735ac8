package providers

import "fmt"

// OllamaNDJSONSplitter cuts Ollama's streamed /api/chat response, one JSON
// object a line ("application/x-ndjson"), into its lines, handing each out
// as soon as its '\n' has arrived, without the '\n' and without one '\r'
// before it (the Go api client's bufio.Scanner drops both; ollama-js cuts
// at '\n' and JSON.parse ignores the '\r').
//
// Lines made only of JSON whitespace are skipped: no client finds anything
// in them (ollama-js skips a line it cannot parse, the Go client stops at
// it), and Ollama sends none. A line longer than the maximum fails with
// ErrEventTooLarge (the Go client fails past 8 MiB). Bytes after the last
// '\n' when the stream ends are a truncation (ErrTruncatedLine), even when
// they hold a whole object: Ollama ends every line, and ollama-js would
// still parse such a tail. The splitter does not read the lines: their
// JSON is OllamaLine.Decode's. After an error it hands out nothing more.
//
// The splitter scans each byte once. A line handed out aliases the
// splitter's buffer and is valid until the next Feed.
type OllamaNDJSONSplitter struct {
	buf       []byte
	start     int // start of the line being scanned
	pos       int // next byte to scan
	max       int
	ended     bool
	truncated bool
	err       error
}

// ErrTruncatedLine: an NDJSON stream ended inside a line. It wraps
// ErrInvalidJSON.
var ErrTruncatedLine = fmt.Errorf("stream ended inside an NDJSON line: %w", ErrInvalidJSON)

// NewOllamaNDJSONSplitter returns a splitter refusing lines longer than
// maxLine bytes (DefaultMaxSSEEvent, 8 MiB, when maxLine <= 0).
func NewOllamaNDJSONSplitter(maxLine int) *OllamaNDJSONSplitter {
	if maxLine <= 0 {
		maxLine = DefaultMaxSSEEvent
	}
	return &OllamaNDJSONSplitter{max: maxLine}
}

// Feed appends stream bytes; lines handed out before are invalid after
// it. Bytes fed after End are ignored.
func (s *OllamaNDJSONSplitter) Feed(b []byte) {
	if s.ended {
		return
	}
	if s.start > 0 {
		n := copy(s.buf, s.buf[s.start:])
		s.buf = s.buf[:n]
		s.pos -= s.start
		s.start = 0
	}
	s.buf = append(s.buf, b...)
}

// End marks the end of the stream.
func (s *OllamaNDJSONSplitter) End() { s.ended = true }

// Err is the error that stopped the splitter, or nil.
func (s *OllamaNDJSONSplitter) Err() error { return s.err }

// Truncated reports a stream that ended inside a line.
func (s *OllamaNDJSONSplitter) Truncated() bool { return s.truncated }

// Next returns the next line; ok is false when no whole line is buffered
// (or, after End, none is left) or on error.
func (s *OllamaNDJSONSplitter) Next() (line []byte, ok bool, err error) {
	if s.err != nil {
		return nil, false, s.err
	}
	for {
		b := s.buf
		i := s.pos
		for i < len(b) && b[i] != '\n' && i-s.start <= s.max {
			i++
		}
		if i-s.start > s.max {
			return s.fail(fmt.Errorf("ollama stream line of more than %d bytes: %w", s.max, ErrEventTooLarge))
		}
		if i == len(b) {
			s.pos = i
			if s.ended && !blankLine(b[s.start:]) {
				s.truncated = true
				return s.fail(fmt.Errorf("ollama stream: %w", ErrTruncatedLine))
			}
			return nil, false, nil
		}
		line = b[s.start:i:i]
		s.start, s.pos = i+1, i+1
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[: n-1 : n-1]
		}
		if blankLine(line) {
			continue
		}
		return line, true, nil
	}
}

// blankLine reports a line of JSON whitespace only.
func blankLine(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

func (s *OllamaNDJSONSplitter) fail(err error) ([]byte, bool, error) {
	s.err = err
	return nil, false, err
}
