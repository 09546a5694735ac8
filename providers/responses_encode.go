package providers

import (
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
)

// Encoders for OpenAI Responses stream events. Events hookgate changes are
// patched from their own bytes (every member it does not touch keeps its
// bytes and order); events it adds are built whole, in the shape OpenAI
// sends. Frame either with AppendSSEEvent.

// Sequencer hands out the sequence_number of each event hookgate writes,
// so that the numbers a client sees stay contiguous. ok is false when the
// stream carries no sequence numbers: the event then gets none.
type Sequencer func() (n int64, ok bool)

// AppendSSEEvent appends payload framed as one SSE event with an "event:"
// line when event is not empty: "event: <event>\ndata: <payload>\n\n".
func AppendSSEEvent(dst []byte, event, payload []byte) []byte {
	if len(event) > 0 {
		dst = append(dst, "event: "...)
		dst = append(dst, event...)
		dst = append(dst, '\n')
	}
	return AppendSSEData(dst, payload)
}

// SetSequenceNumber returns a copy of an event payload whose
// sequence_number is n.
func SetSequenceNumber(payload []byte, n int64) ([]byte, error) {
	out, err := setRaw(payload, "sequence_number", strconv.AppendInt(nil, n, 10))
	if err != nil {
		return nil, fmt.Errorf("set sequence_number: %w", err)
	}
	return detach(out, payload), nil
}

// SetEventCallInput returns a copy of a function_call_arguments.done or
// custom_tool_call_input.done payload that repeats text as the whole input.
func SetEventCallInput(payload []byte, kind ResponsesCallKind, text string) ([]byte, error) {
	return setString(payload, kind.Member(), text, "set call input")
}

// SetItemCallInput returns a copy of an output_item.added or .done payload
// whose item carries text as its input ("arguments" or "input").
func SetItemCallInput(payload []byte, kind ResponsesCallKind, text string) ([]byte, error) {
	return setString(payload, "item."+kind.Member(), text, "set item input")
}

// SetEventDelta returns a copy of a delta event payload carrying text as its
// delta.
func SetEventDelta(payload []byte, text string) ([]byte, error) {
	return setString(payload, "delta", text, "set delta")
}

func setString(payload []byte, path, text, what string) ([]byte, error) {
	if _, err := parseBody(payload, what); err != nil {
		return nil, err
	}
	out, err := setRaw(payload, path, appendQuoted(nil, text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, payload), nil
}

// closeEvent ends a built event payload with its sequence number, if the
// stream has them.
func closeEvent(b []byte, seq Sequencer) []byte {
	if seq != nil {
		if n, ok := seq(); ok {
			b = append(b, `,"sequence_number":`...)
			b = strconv.AppendInt(b, n, 10)
		}
	}
	return append(b, '}')
}

// MessageItem returns a completed assistant message item whose only
// content is text: what hookgate adds to a response's output to carry its
// notes and appended text when the answer has no text of its own.
func MessageItem(itemID, text string) []byte {
	return appendMessageItem(nil, itemID, text, true)
}

func appendMessageItem(b []byte, itemID, text string, completed bool) []byte {
	b = append(b, `{"id":`...)
	b = appendQuoted(b, itemID)
	if !completed {
		return append(b, `,"type":"message","status":"in_progress","content":[],"role":"assistant"}`...)
	}
	b = append(b, `,"type":"message","status":"completed","content":[`...)
	b = appendTextPart(b, text)
	return append(b, `],"role":"assistant"}`...)
}

func appendTextPart(b []byte, text string) []byte {
	b = append(b, `{"type":"output_text","annotations":[],"logprobs":[],"text":`...)
	b = appendQuoted(b, text)
	return append(b, '}')
}

// MessageItemEvents returns the events that stream a whole assistant
// message item carrying text at output_index outputIndex, in the order
// OpenAI sends them (item added, part added, text delta, text done, part
// done, item done), so that every SDK's accumulator builds the item as it
// builds the model's own. Each is an event payload; its type is the SSE
// event name.
func MessageItemEvents(itemID string, outputIndex int, text string, seq Sequencer) []ResponsesEventOut {
	head := func(typ string) []byte {
		b := appendQuoted([]byte(`{"type":`), typ)
		b = append(b, `,"item_id":`...)
		b = appendQuoted(b, itemID)
		b = append(b, `,"output_index":`...)
		b = strconv.AppendInt(b, int64(outputIndex), 10)
		return append(b, `,"content_index":0`...)
	}
	item := func(typ string, completed bool) []byte {
		b := appendQuoted([]byte(`{"type":`), typ)
		b = append(b, `,"item":`...)
		b = appendMessageItem(b, itemID, text, completed)
		b = append(b, `,"output_index":`...)
		return strconv.AppendInt(b, int64(outputIndex), 10)
	}
	out := make([]ResponsesEventOut, 0, 6)
	add := func(typ string, b []byte) {
		out = append(out, ResponsesEventOut{Event: typ, Payload: closeEvent(b, seq)})
	}
	add("response.output_item.added", item("response.output_item.added", false))
	b := head("response.content_part.added")
	b = appendTextPart(append(b, `,"part":`...), "")
	add("response.content_part.added", b)
	b = head("response.output_text.delta")
	b = appendQuoted(append(b, `,"delta":`...), text)
	add("response.output_text.delta", append(b, `,"logprobs":[]`...))
	b = head("response.output_text.done")
	b = appendQuoted(append(b, `,"text":`...), text)
	add("response.output_text.done", append(b, `,"logprobs":[]`...))
	b = head("response.content_part.done")
	b = appendTextPart(append(b, `,"part":`...), text)
	add("response.content_part.done", b)
	add("response.output_item.done", item("response.output_item.done", true))
	return out
}

// ResponsesEventOut is an event hookgate built: its type, which is also
// its SSE event name, and its payload.
type ResponsesEventOut struct {
	Event   string
	Payload []byte
}

// Frame returns the event framed for the wire.
func (e ResponsesEventOut) Frame() []byte {
	return e.appendFrame(make([]byte, 0, len(e.Payload)+len(e.Event)+16))
}

// ResponsesErrorEvent returns an error event for a stream already under
// way, framed: "event: error" and a payload in the shape OpenAI sends
// ({"type":"error","code","message","param"}, its sequence number, and the
// same error nested under "error", which is what the OpenAI SDKs raise on).
func ResponsesErrorEvent(typ, code, message string, seq Sequencer) []byte {
	b := []byte(`{"type":"error","code":`)
	b = appendJSONOrNull(b, code)
	b = append(b, `,"message":`...)
	b = appendQuoted(b, message)
	b = append(b, `,"param":null,"error":{"type":`...)
	b = appendQuoted(b, typ)
	b = append(b, `,"code":`...)
	b = appendJSONOrNull(b, code)
	b = append(b, `,"message":`...)
	b = appendQuoted(b, message)
	b = append(b, `,"param":null}`...)
	return ResponsesEventOut{Event: "error", Payload: closeEvent(b, seq)}.Frame()
}

// EncodeOutputTextDelta builds an output_text.delta event carrying text for
// the given part of a message item: how hookgate adds its notes to the end
// of the answer's last text.
func EncodeOutputTextDelta(itemID string, outputIndex, contentIndex int, text string, seq Sequencer) ResponsesEventOut {
	const typ = "response.output_text.delta"
	b := appendQuoted([]byte(`{"type":`), typ)
	b = append(b, `,"item_id":`...)
	b = appendQuoted(b, itemID)
	b = append(b, `,"output_index":`...)
	b = strconv.AppendInt(b, int64(outputIndex), 10)
	b = append(b, `,"content_index":`...)
	b = strconv.AppendInt(b, int64(contentIndex), 10)
	b = append(b, `,"delta":`...)
	b = appendQuoted(b, text)
	b = append(b, `,"logprobs":[]`...)
	return ResponsesEventOut{Event: typ, Payload: closeEvent(b, seq)}
}

// AppendToDoneText returns a copy of the payload of an event that repeats
// a text part whole (output_text.done's "text", content_part.done's
// "part.text", a message item's output_item.done: the text of
// "item.content.<contentIndex>"), the text ending with text. It fails with
// ErrNotFound when the event carries no such text.
func AppendToDoneText(payload []byte, kind ResponsesEventKind, contentIndex int, text string) ([]byte, error) {
	var path string
	switch kind {
	case RespTextDone:
		path = "text"
	case RespPartDone:
		path = "part.text"
	case RespItemDone:
		path = jpath("item.content", contentIndex, "text")
	default:
		return nil, fmt.Errorf("append to done text: event kind %d: %w", kind, ErrNotFound)
	}
	return appendToString(payload, path, text, "append to done text")
}

// SetEventOutputIndex returns a copy of an event payload whose
// output_index is n: an item that moved because hookgate dropped one
// before it.
func SetEventOutputIndex(payload []byte, n int) ([]byte, error) {
	if _, err := parseBody(payload, "set output_index"); err != nil {
		return nil, err
	}
	out, err := setRaw(payload, "output_index", strconv.AppendInt(nil, int64(n), 10))
	if err != nil {
		return nil, fmt.Errorf("set output_index: %w", err)
	}
	return detach(out, payload), nil
}

// appendToString returns a copy of doc whose string at path ends with
// text.
func appendToString(doc []byte, path, text, what string) ([]byte, error) {
	if _, err := parseBody(doc, what); err != nil {
		return nil, err
	}
	v := gjson.GetBytes(doc, path)
	if v.Type != gjson.String {
		return nil, fmt.Errorf("%s: %s is not a string: %w", what, path, ErrNotFound)
	}
	out, err := setRaw(doc, path, appendQuoted(nil, v.Str+text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, doc), nil
}
