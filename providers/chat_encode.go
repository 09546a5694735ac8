package providers

import (
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
)

// Encoders for synthesised chat.completion.chunk payloads. Each is encoded
// fresh from hookgate's reading of a template, an original chunk of the
// same stream: its id, created, model and system_fingerprint, nothing else
// (see singleChoiceChunk). Frame the result with FrameSSEData.

// ToolCallOut is a tool call to put on the wire.
type ToolCallOut struct {
	// Index is the tool_calls "index" the client will see. Clients collect
	// calls by it, so re-emitted calls should be numbered 0, 1, 2... in the
	// order they are sent.
	Index     int
	ID        string
	Name      string
	Arguments string
}

// StripToolCalls returns a copy of chunk without tool_calls in any choice's
// delta (nor in the "message" mirror Writer sends beside it; a null
// tool_calls is left as it is), and
// whether what remains still says something: content text, another
// meaningful delta member (reasoning, refusal...), a finish_reason, usage
// or an error. A repeated role alone is not meaningful; the encoders below
// carry the template's role into the chunks that replace it.
func StripToolCalls(chunk []byte) (out []byte, meaningful bool, err error) {
	var view ChatChunk
	if err := view.Decode(chunk); err != nil {
		return nil, false, fmt.Errorf("strip tool calls: %w", err)
	}
	meaningful = view.HasUsage() || view.HasError()
	out = chunk
	for i := range view.Choices {
		ch := &view.Choices[i]
		if ch.HasContent() || ch.Other || ch.Finished() {
			meaningful = true
		}
		for _, p := range [...]string{jpath("choices", ch.Pos, "delta", "tool_calls"), jpath("choices", ch.Pos, "message", "tool_calls")} {
			if v := gjson.GetBytes(out, p); !v.Exists() || v.Type == gjson.Null {
				continue // "tool_calls": null says nothing; leave the bytes alone
			}
			if out, err = deletePath(out, p); err != nil {
				return nil, false, fmt.Errorf("strip tool calls: %w", err)
			}
		}
	}
	return detach(out, chunk), meaningful, nil
}

// EncodeToolCallChunk returns a chunk carrying one tool call for the given
// choice: delta {"tool_calls":[{"index","id","type":"function",
// "function":{"name","arguments"}}]}, plus the template delta's role if it
// had one.
func EncodeToolCallChunk(template []byte, choice int, call ToolCallOut) ([]byte, error) {
	var d []byte
	d = append(d, `"tool_calls":[{"index":`...)
	d = strconv.AppendInt(d, int64(call.Index), 10)
	d = append(d, `,"id":`...)
	d = appendQuoted(d, call.ID)
	d = append(d, `,"type":"function","function":{"name":`...)
	d = appendQuoted(d, call.Name)
	d = append(d, `,"arguments":`...)
	d = appendQuoted(d, call.Arguments)
	d = append(d, "}}]"...)
	out, err := singleChoiceChunk(template, choice, d)
	if err != nil {
		return nil, fmt.Errorf("encode tool call chunk: %w", err)
	}
	return out, nil
}

// EncodeContentChunk returns a chunk carrying a text content delta for the
// given choice, plus the template delta's role if it had one.
func EncodeContentChunk(template []byte, choice int, text string) ([]byte, error) {
	d := appendQuoted([]byte(`"content":`), text)
	out, err := singleChoiceChunk(template, choice, d)
	if err != nil {
		return nil, fmt.Errorf("encode content chunk: %w", err)
	}
	return out, nil
}

// SetChunkFinishReason returns a copy of chunk whose choice (by index) has
// finish_reason set to reason, or null when reason is "". OpenRouter's
// native_finish_reason, when set, is changed alike. A chunk without that
// choice (an empty-choices usage chunk) gains {"index":choice,"delta":{},
// "finish_reason":reason}.
func SetChunkFinishReason(chunk []byte, choice int, reason string) ([]byte, error) {
	if _, err := parseBody(chunk, "set finish_reason"); err != nil {
		return nil, err
	}
	val := appendJSONOrNull(nil, reason)
	pos, raw := findChoice(chunk, choice)
	var out []byte
	var err error
	if pos < 0 {
		ch := append([]byte(`{"index":`), strconv.Itoa(choice)...)
		ch = append(ch, `,"delta":{},"finish_reason":`...)
		ch = append(append(ch, val...), '}')
		if !gjson.GetBytes(chunk, "choices").IsArray() {
			out, err = setRaw(chunk, "choices", append(append([]byte{'['}, ch...), ']'))
		} else {
			out, err = setRaw(chunk, "choices.-1", ch)
		}
	} else {
		out, err = setRaw(chunk, jpath("choices", pos, "finish_reason"), val)
		if err == nil && gjson.GetBytes(raw, "native_finish_reason").Type == gjson.String {
			out, err = setRaw(out, jpath("choices", pos, "native_finish_reason"), val)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("set finish_reason: %w", err)
	}
	return detach(out, chunk), nil
}

// singleChoiceChunk encodes a fresh chunk for one choice, whose delta is
// {role?, members...}: nothing of template is copied but what hookgate read
// from it with the protocol's exact key names: "id", "created", "model" and
// "system_fingerprint" (clients check that a stream's chunks share an id),
// and the choice's delta.role. Any other member of the upstream's chunk,
// whether unknown or a spelling of a known one (which some client could
// read as a call), stays out.
func singleChoiceChunk(template []byte, choice int, members []byte) ([]byte, error) {
	if _, err := parseBody(template, "template"); err != nil {
		return nil, err
	}
	out := []byte(`{"id":`)
	out = appendQuoted(out, gjson.GetBytes(template, "id").String())
	out = append(out, `,"object":"chat.completion.chunk","created":`...)
	if c := gjson.GetBytes(template, "created"); c.Type == gjson.Number {
		out = strconv.AppendInt(out, c.Int(), 10)
	} else {
		out = append(out, '0')
	}
	out = append(out, `,"model":`...)
	out = appendQuoted(out, gjson.GetBytes(template, "model").String())
	if fp := gjson.GetBytes(template, "system_fingerprint"); fp.Type == gjson.String {
		out = appendQuoted(append(out, `,"system_fingerprint":`...), fp.Str)
	}
	out = append(out, `,"choices":[{"index":`...)
	out = strconv.AppendInt(out, int64(choice), 10)
	out = append(out, `,"delta":{`...)
	if pos, raw := findChoice(template, choice); pos >= 0 {
		if role := gjson.GetBytes(raw, "delta.role"); role.Type == gjson.String {
			out = append(appendQuoted(append(out, `"role":`...), role.Str), ',')
		}
	}
	out = append(out, members...)
	out = append(out, `},"finish_reason":null}]}`...)
	return out, nil
}
