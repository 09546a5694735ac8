package providers

// geminiSSEStream is a streamGenerateContent?alt=sse response: blocks of
// one data line, split as genai-go splits them (GeminiSSESplitter). The
// frames hookgate writes end with the stream's own terminator, since
// genai-go cuts at the first "\n\n" of all it has buffered and a stream
// mixing "\n\n" and "\r\n\r\n" is cut in other places.
type geminiSSEStream struct {
	split *GeminiSSESplitter
}

func (s *geminiSSEStream) Feed(b []byte) { s.split.Feed(b) }
func (s *geminiSSEStream) End()          { s.split.End() }

func (s *geminiSSEStream) Next() (raw, payload []byte, ok bool, err error) {
	blk, ok, err := s.split.Next()
	return blk.Raw, blk.Data, ok, err
}

// Truncated is false: the splitter hands out an unterminated last block
// whole, as genai-go reads it; a stream that stops before its answer ends
// is the interceptor's to tell.
func (s *geminiSSEStream) Truncated() bool { return false }

func (s *geminiSSEStream) Raw(dst, raw, _ []byte) []byte { return append(dst, raw...) }

func (s *geminiSSEStream) Frame(dst, payload []byte) []byte {
	term := s.split.term
	if term == "" {
		term = "\r\n\r\n" // what Gemini sends
	}
	dst = append(dst, "data: "...)
	dst = append(dst, payload...)
	return append(dst, term...)
}

func (s *geminiSSEStream) Close(dst []byte) []byte { return dst }

// ErrorFrame is an error payload, which genai-go yields as an APIError.
func (s *geminiSSEStream) ErrorFrame(dst []byte, code, message string) []byte {
	return s.Frame(dst, GeminiErrorBody(502, geminiErrorText(code, message), ""))
}

// Heartbeat is an empty block, the stream's terminator alone: genai-go
// fails on a comment block but skips an empty one, and Gemini CLI's
// reader takes blank lines between frames.
func (s *geminiSSEStream) Heartbeat() []byte {
	if s.split.term == "\n\n" {
		return []byte("\n\n")
	}
	return []byte("\r\n\r\n")
}

// geminiArrayStream is the default streamGenerateContent response, one
// JSON array sent an element at a time. hookgate writes the array's
// framing itself ("[", ",\r\n" between elements, "]"): the elements keep
// their bytes, the whitespace between them is hookgate's.
type geminiArrayStream struct {
	split   *GeminiArraySplitter
	written int // elements written to the client
}

func (s *geminiArrayStream) Feed(b []byte) { s.split.Feed(b) }
func (s *geminiArrayStream) End()          { s.split.End() }

func (s *geminiArrayStream) Next() (raw, payload []byte, ok bool, err error) {
	elem, ok, err := s.split.Next()
	return elem, elem, ok, err
}

// Truncated reports an array that never reached its ']'.
func (s *geminiArrayStream) Truncated() bool { return !s.split.Done() }

func (s *geminiArrayStream) Raw(dst, _, payload []byte) []byte { return s.Frame(dst, payload) }

func (s *geminiArrayStream) Frame(dst, payload []byte) []byte {
	if s.written == 0 {
		dst = append(dst, '[')
	} else {
		dst = append(dst, ",\r\n"...)
	}
	s.written++
	return append(dst, payload...)
}

func (s *geminiArrayStream) Close(dst []byte) []byte {
	if s.written == 0 {
		dst = append(dst, '[')
	}
	return append(dst, ']')
}

// ErrorFrame is an error element, then the array's end, so that a client
// reading the array whole reads the error.
func (s *geminiArrayStream) ErrorFrame(dst []byte, code, message string) []byte {
	dst = s.Frame(dst, GeminiErrorBody(502, geminiErrorText(code, message), ""))
	return s.Close(dst)
}

// Heartbeat is nil: whitespace between elements would be safe JSON, but
// not before the first one is written.
func (s *geminiArrayStream) Heartbeat() []byte { return nil }
