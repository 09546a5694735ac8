package providers

// SynthesizeMessage returns a whole Messages response whose only content is
// a text block, with stop_reason "end_turn": the answer hookgate gives
// itself when a hook refuses a request, in a form every Anthropic SDK reads
// as a normal reply.
func SynthesizeMessage(id, model, text string) []byte {
	b := appendMessageHead(nil, id, model)
	b = append(b, `"content":[{"type":"text","text":`...)
	b = appendQuoted(b, text)
	b = append(b, `}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}`...)
	return b
}

// SynthesizeMessageStream returns the same answer as a whole stream:
// message_start, one text block, message_delta and message_stop.
func SynthesizeMessageStream(id, model, text string) []byte {
	start := append([]byte(`{"type":"message_start","message":`), appendMessageHead(nil, id, model)...)
	start = append(start, `"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`...)
	out := AppendMessagesEvent(nil, MessageStart, start)
	out = AppendMessagesTextBlockEvents(out, 0, text)
	out = AppendMessagesEvent(out, MessageDelta, []byte(`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":0}}`))
	return AppendMessagesEvent(out, MessageStop, []byte(`{"type":"message_stop"}`))
}

// appendMessageHead appends `{"id":..,"type":"message","role":"assistant",
// "model":..,` (the object is left open).
func appendMessageHead(b []byte, id, model string) []byte {
	b = append(b, `{"id":`...)
	b = appendQuoted(b, id)
	b = append(b, `,"type":"message","role":"assistant","model":`...)
	b = appendQuoted(b, model)
	return append(b, ',')
}
