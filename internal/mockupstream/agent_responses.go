package mockupstream

import (
	"bytes"
	"encoding/json"
)

// The scripted model's answers on the OpenAI Responses API: the events a
// streamed response sends, and the response object a plain one returns.

const agentCreatedAt = 1700000000

func (t agentTurn) responseID() string { return "resp_" + t.ID }

// responseItems are the turn's output items as completed: a message with
// one output_text part, then the function call if any.
func (t agentTurn) responseItems() []map[string]any {
	var items []map[string]any
	if t.Text != "" {
		items = append(items, t.messageItem("completed", t.Text))
	}
	if t.Call != nil {
		items = append(items, t.callItem("completed", t.Call.Arguments))
	}
	return items
}

func (t agentTurn) messageItem(status, text string) map[string]any {
	content := []map[string]any{}
	if status == "completed" {
		content = append(content, outputText(text))
	}
	return map[string]any{"id": "msg_" + t.ID, "type": "message", "status": status, "role": "assistant", "content": content}
}

func outputText(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}}
}

func (t agentTurn) callItem(status, args string) map[string]any {
	return map[string]any{"id": "fc_" + t.ID, "type": "function_call", "status": status, "call_id": t.Call.ID, "name": t.Call.Name, "arguments": args}
}

// responseObject is the response as a plain request returns it, and as
// response.completed carries it; status "in_progress" has no output yet.
func (t agentTurn) responseObject(status string) string {
	r := map[string]any{
		"id": t.responseID(), "object": "response", "created_at": agentCreatedAt, "status": status,
		"model": t.Model, "output": []any{}, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{},
		"error": nil, "incomplete_details": nil, "instructions": nil, "metadata": map[string]any{},
		"temperature": 1, "top_p": 1, "text": map[string]any{"format": map[string]any{"type": "text"}},
		"usage": nil,
	}
	if status == "completed" {
		r["output"] = t.responseItems()
		r["usage"] = map[string]any{
			"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 20, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": 120,
		}
	}
	return jsonOf(r)
}

// responsesSSE is the turn as a Responses event stream, with event: lines
// and contiguous sequence numbers, as OpenAI sends it.
func (t agentTurn) responsesSSE() []byte {
	var b bytes.Buffer
	seq := 0
	emit := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		b.WriteString("event: " + typ + "\ndata: " + jsonOf(fields) + "\n\n")
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	emit("response.created", map[string]any{"response": raw(t.responseObject("in_progress"))})
	emit("response.in_progress", map[string]any{"response": raw(t.responseObject("in_progress"))})
	index := 0
	if t.Text != "" {
		id := "msg_" + t.ID
		emit("response.output_item.added", map[string]any{"output_index": index, "item": t.messageItem("in_progress", "")})
		emit("response.content_part.added", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "part": outputText("")})
		emit("response.output_text.delta", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "delta": t.Text, "logprobs": []any{}})
		emit("response.output_text.done", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "text": t.Text, "logprobs": []any{}})
		emit("response.content_part.done", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "part": outputText(t.Text)})
		emit("response.output_item.done", map[string]any{"output_index": index, "item": t.messageItem("completed", t.Text)})
		index++
	}
	if t.Call != nil {
		id := "fc_" + t.ID
		emit("response.output_item.added", map[string]any{"output_index": index, "item": t.callItem("in_progress", "")})
		emit("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": index, "delta": t.Call.Arguments})
		emit("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": index, "arguments": t.Call.Arguments})
		emit("response.output_item.done", map[string]any{"output_index": index, "item": t.callItem("completed", t.Call.Arguments)})
	}
	emit("response.completed", map[string]any{"response": raw(t.responseObject("completed"))})
	return b.Bytes()
}
