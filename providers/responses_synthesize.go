package providers

import "strconv"

// SynthesizeResponse returns a whole, completed Responses API response
// whose only output is an assistant message carrying text: the answer
// hookgate gives itself when a hook refuses a request, in a form every
// OpenAI SDK reads as a normal reply.
func SynthesizeResponse(id, model string, created int64, text string) []byte {
	return appendResponseObject(nil, id, model, created, "completed", "msg_"+id, text)
}

// SynthesizeResponseStream returns the same answer as a whole SSE body:
// response.created, the message item's events, response.completed, with
// sequence numbers from 0.
func SynthesizeResponseStream(id, model string, created int64, text string) []byte {
	var n int64
	seq := func() (int64, bool) { n++; return n - 1, true }
	var out []byte
	life := func(typ string, status string) {
		b := appendQuoted([]byte(`{"type":`), typ)
		b = append(b, `,"response":`...)
		b = appendResponseObject(b, id, model, created, status, "msg_"+id, text)
		out = ResponsesEventOut{Event: typ, Payload: closeEvent(b, seq)}.appendFrame(out)
	}
	life("response.created", "in_progress")
	for _, ev := range MessageItemEvents("msg_"+id, 0, text, seq) {
		out = ev.appendFrame(out)
	}
	life("response.completed", "completed")
	return out
}

func (e ResponsesEventOut) appendFrame(dst []byte) []byte {
	return AppendSSEEvent(dst, []byte(e.Event), e.Payload)
}

// appendResponseObject appends a response object; its output is the
// message once status is "completed", empty before.
func appendResponseObject(b []byte, id, model string, created int64, status, itemID, text string) []byte {
	b = append(b, `{"id":`...)
	b = appendQuoted(b, id)
	b = append(b, `,"object":"response","created_at":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, `,"status":`...)
	b = appendQuoted(b, status)
	b = append(b, `,"error":null,"incomplete_details":null,"model":`...)
	b = appendQuoted(b, model)
	b = append(b, `,"output":[`...)
	if status == "completed" {
		b = appendMessageItem(b, itemID, text, true)
	}
	return append(b, `],"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"usage":null}`...)
}
