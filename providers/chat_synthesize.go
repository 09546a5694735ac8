package providers

import (
	"strconv"
)

// SynthesizeCompletion returns a whole chat.completion body whose only
// choice is an assistant message with content and finish_reason "stop":
// the answer hookgate gives itself when a hook refuses a request, in a form
// every OpenAI SDK reads as a normal reply.
func SynthesizeCompletion(id, model string, created int64, content string) []byte {
	b := appendEnvelope(nil, id, "chat.completion", model, created)
	b = append(b, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	b = appendQuoted(b, content)
	b = append(b, `},"finish_reason":"stop"}]}`...)
	return b
}

// SynthesizeStream returns the same answer as a whole SSE body: a role and
// content chunk, a finish chunk, and [DONE].
func SynthesizeStream(id, model string, created int64, content string) []byte {
	chunk := appendEnvelope(nil, id, "chat.completion.chunk", model, created)
	first := append(append([]byte(nil), chunk...), `,"choices":[{"index":0,"delta":{"role":"assistant","content":`...)
	first = appendQuoted(first, content)
	first = append(first, `},"finish_reason":null}]}`...)
	last := append(append([]byte(nil), chunk...), `,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`...)
	out := AppendSSEData(nil, first)
	out = AppendSSEData(out, last)
	return append(out, SSEDone...)
}

func appendEnvelope(b []byte, id, object, model string, created int64) []byte {
	b = append(b, `{"id":`...)
	b = appendQuoted(b, id)
	b = append(b, `,"object":`...)
	b = appendQuoted(b, object)
	b = append(b, `,"created":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, `,"model":`...)
	return appendQuoted(b, model)
}
