package providers

// AppendSSEData appends payload framed as one SSE event with one data
// line: "data: <payload>\n\n". A line break in payload (pretty-printed
// JSON) becomes a space: between JSON tokens both are white space, and an
// event of several data lines is read one way by go-openai (each line a
// payload) and another by the SDKs that join them, so hookgate never
// writes one.
func AppendSSEData(dst, payload []byte) []byte {
	dst = append(dst, "data: "...)
	start := len(dst)
	dst = append(dst, payload...)
	for i := start; i < len(dst); i++ {
		if dst[i] == '\n' || dst[i] == '\r' {
			dst[i] = ' '
		}
	}
	return append(dst, '\n', '\n')
}

// FrameSSEData returns payload framed as "data: <payload>\n\n" in a new slice.
func FrameSSEData(payload []byte) []byte {
	return AppendSSEData(make([]byte, 0, len(payload)+8), payload)
}

// SSEDone is the chat-completions end-of-stream event.
const SSEDone = "data: [DONE]\n\n"

// AppendSSEComment appends a comment event (": text\n\n"), the keep-alive
// that lets a held stream notice a departed client without disturbing it.
// Line breaks in text are replaced by spaces so the comment stays one line.
func AppendSSEComment(dst []byte, text string) []byte {
	dst = append(dst, ": "...)
	start := len(dst)
	dst = append(dst, text...)
	for i := start; i < len(dst); i++ {
		if dst[i] == '\n' || dst[i] == '\r' {
			dst[i] = ' '
		}
	}
	return append(dst, '\n', '\n')
}
