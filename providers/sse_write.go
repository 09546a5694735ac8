package providers

// AppendSSEData appends payload framed as one SSE event: "data: <payload>\n\n".
// A payload that spans lines (pretty-printed JSON) becomes one "data:" line
// per line, which a client joins back with "\n"; CR and CRLF inside it are
// treated as line breaks, as SSE readers do.
func AppendSSEData(dst, payload []byte) []byte {
	for {
		i := indexLineEnd(payload)
		if i < 0 {
			break
		}
		dst = append(dst, "data: "...)
		dst = append(dst, payload[:i]...)
		dst = append(dst, '\n')
		if payload[i] == '\r' && i+1 < len(payload) && payload[i+1] == '\n' {
			i++
		}
		payload = payload[i+1:]
	}
	dst = append(dst, "data: "...)
	dst = append(dst, payload...)
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
