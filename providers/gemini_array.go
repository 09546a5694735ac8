package providers

import (
	"errors"
	"fmt"
)

// GeminiArraySplitter cuts the default streamGenerateContent stream (no
// alt=sse), one JSON array sent a piece at a time ("[{...}\r\n,\r\n{...}]"),
// into its elements, handing each out as soon as its closing brace has
// arrived. Each element must be an object of at most the maximum size;
// it is checked to be valid JSON (duplicate keys are GeminiFrame.Decode's
// to refuse). Anything else, text after the closing ']', or a stream that
// ends before it, fails with ErrInvalidJSON (ErrEventTooLarge for size).
// After an error the splitter hands out nothing more.
//
// The splitter scans each byte once: it keeps its place in an unfinished
// element between Feeds. An element handed out aliases the splitter's
// buffer and is valid until the next Feed.
type GeminiArraySplitter struct {
	buf   []byte
	pos   int // next byte to scan
	start int // start of the element being scanned, when state is arrayInElem
	max   int
	state arrayState
	depth int
	inStr bool
	esc   bool
	ended bool
	err   error
}

type arrayState uint8

// Where the splitter is in the array.
const (
	arrayBefore    arrayState = iota // before '['
	arrayFirst                       // after '[': an element or ']'
	arrayNextElem                    // after ',': an element
	arrayInElem                      // inside an element
	arrayAfterElem                   // after an element: ',' or ']'
	arrayDone                        // after ']': whitespace only
)

// NewGeminiArraySplitter returns a splitter refusing elements longer than
// maxElem bytes (DefaultMaxSSEEvent when maxElem <= 0).
func NewGeminiArraySplitter(maxElem int) *GeminiArraySplitter {
	if maxElem <= 0 {
		maxElem = DefaultMaxSSEEvent
	}
	return &GeminiArraySplitter{max: maxElem}
}

// Feed appends stream bytes; elements handed out before are invalid after
// it.
func (s *GeminiArraySplitter) Feed(b []byte) {
	// Drop what is scanned and handed out: only an unfinished element is kept.
	keep := s.pos
	if s.state == arrayInElem {
		keep = s.start
	}
	if keep > 0 {
		n := copy(s.buf, s.buf[keep:])
		s.buf = s.buf[:n]
		s.pos -= keep
		s.start -= keep
	}
	s.buf = append(s.buf, b...)
}

// End marks the end of the stream.
func (s *GeminiArraySplitter) End() { s.ended = true }

// Err is the error that stopped the splitter, or nil.
func (s *GeminiArraySplitter) Err() error { return s.err }

// Done reports whether the closing ']' has been read.
func (s *GeminiArraySplitter) Done() bool { return s.state == arrayDone && s.err == nil }

var errArrayTruncated = errors.New("stream ended inside the JSON array")

// Next returns the next element; ok is false when no whole element is
// buffered (or the stream is done) or on error.
func (s *GeminiArraySplitter) Next() (elem []byte, ok bool, err error) {
	if s.err != nil {
		return nil, false, s.err
	}
	b := s.buf
	for s.pos < len(b) {
		c := b[s.pos]
		if s.state == arrayInElem {
			if s.pos-s.start >= s.max {
				return s.fail(fmt.Errorf("gemini stream element of more than %d bytes: %w", s.max, ErrEventTooLarge))
			}
			s.pos++
			switch {
			case s.esc:
				s.esc = false
			case s.inStr:
				switch c {
				case '\\':
					s.esc = true
				case '"':
					s.inStr = false
				}
			case c == '"':
				s.inStr = true
			case c == '{' || c == '[':
				s.depth++
			case c == '}' || c == ']':
				s.depth--
				if s.depth == 0 {
					s.state = arrayAfterElem
					elem := b[s.start:s.pos:s.pos]
					if err := validateUnique(elem, nil); err != nil && !errors.Is(err, ErrDuplicateKey) {
						return s.fail(fmt.Errorf("gemini stream element: %w", err))
					}
					return elem, true, nil
				}
			}
			continue
		}
		if isSpace(c) {
			s.pos++
			continue
		}
		switch {
		case s.state == arrayBefore && c == '[':
			s.state = arrayFirst
		case s.state == arrayFirst && c == ']', s.state == arrayAfterElem && c == ']':
			s.state = arrayDone
		case s.state == arrayAfterElem && c == ',':
			s.state = arrayNextElem
		case (s.state == arrayFirst || s.state == arrayNextElem) && c == '{':
			s.state, s.start, s.depth = arrayInElem, s.pos, 1
		default:
			return s.fail(fmt.Errorf("gemini stream: %q where the JSON array does not allow it: %w", c, ErrInvalidJSON))
		}
		s.pos++
	}
	if s.ended && s.state != arrayDone {
		return s.fail(fmt.Errorf("gemini stream: %w: %w", errArrayTruncated, ErrInvalidJSON))
	}
	return nil, false, nil
}

func (s *GeminiArraySplitter) fail(err error) ([]byte, bool, error) {
	s.err = err
	return nil, false, err
}
