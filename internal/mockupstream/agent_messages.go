package mockupstream

import (
	"bytes"
	"encoding/json"
)

// The scripted model's answers on the Anthropic Messages API: the events
// a streamed message sends, and the message a plain request returns.

func (t agentTurn) stopReason() string {
	if t.Call != nil {
		return "tool_use"
	}
	return "end_turn"
}

func messagesUsage(output int) map[string]any {
	return map[string]any{"input_tokens": 100, "output_tokens": output, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

func (t agentTurn) messageObject() string {
	content := []map[string]any{}
	if t.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": t.Text})
	}
	if t.Call != nil {
		content = append(content, map[string]any{"type": "tool_use", "id": "toolu_" + t.ID, "name": t.Call.Name, "input": json.RawMessage(t.Call.Arguments)})
	}
	return jsonOf(map[string]any{
		"id": "msg_" + t.ID, "type": "message", "role": "assistant", "model": t.Model, "content": content,
		"stop_reason": t.stopReason(), "stop_sequence": nil, "usage": messagesUsage(20),
	})
}

// messagesSSE is the turn as a Messages event stream: message_start, a
// text block, a tool_use block whose input arrives as one JSON delta,
// message_delta with the stop reason, message_stop.
func (t agentTurn) messagesSSE() []byte {
	var b bytes.Buffer
	emit := func(typ string, fields map[string]any) {
		fields["type"] = typ
		b.WriteString("event: " + typ + "\ndata: " + jsonOf(fields) + "\n\n")
	}
	emit("message_start", map[string]any{"message": map[string]any{
		"id": "msg_" + t.ID, "type": "message", "role": "assistant", "model": t.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": messagesUsage(1),
	}})
	index := 0
	if t.Text != "" {
		emit("content_block_start", map[string]any{"index": index, "content_block": map[string]any{"type": "text", "text": ""}})
		emit("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "text_delta", "text": t.Text}})
		emit("content_block_stop", map[string]any{"index": index})
		index++
	}
	if t.Call != nil {
		emit("content_block_start", map[string]any{"index": index, "content_block": map[string]any{"type": "tool_use", "id": "toolu_" + t.ID, "name": t.Call.Name, "input": map[string]any{}}})
		emit("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": t.Call.Arguments}})
		emit("content_block_stop", map[string]any{"index": index})
	}
	emit("message_delta", map[string]any{"delta": map[string]any{"stop_reason": t.stopReason(), "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	emit("message_stop", map[string]any{})
	return b.Bytes()
}
