package providers

import (
	"fmt"
)

// ResponsesEventKind classifies an OpenAI Responses stream event by the
// "type" member of its payload (the member clients decode by; the SSE
// "event:" line may be missing, come after the data, or disagree).
type ResponsesEventKind uint8

// The kinds hookgate acts on. Everything else is RespOther and passes as
// it came.
const (
	RespOther      ResponsesEventKind = iota
	RespCreated                       // response.created
	RespItemAdded                     // response.output_item.added
	RespItemDone                      // response.output_item.done
	RespArgsDelta                     // response.function_call_arguments.delta, response.custom_tool_call_input.delta
	RespArgsDone                      // response.function_call_arguments.done, response.custom_tool_call_input.done
	RespTextDelta                     // response.output_text.delta
	RespTextDone                      // response.output_text.done
	RespPartAdded                     // response.content_part.added
	RespPartDone                      // response.content_part.done
	RespCompleted                     // response.completed
	RespIncomplete                    // response.incomplete
	RespFailed                        // response.failed
	RespError                         // error
)

// Terminal reports the events after which a Responses stream may end
// cleanly: the response's last word (completed, incomplete, failed) or an
// in-band error.
func (k ResponsesEventKind) Terminal() bool {
	return k == RespCompleted || k == RespIncomplete || k == RespFailed || k == RespError
}

// HasResponse reports the lifecycle events whose "response" member is the
// whole response, output included.
func (k ResponsesEventKind) HasResponse() bool {
	return k == RespCompleted || k == RespIncomplete || k == RespFailed
}

// ResponsesEventKindOf maps an event type to its kind.
func ResponsesEventKindOf(typ []byte) ResponsesEventKind {
	switch string(typ) {
	case "response.created":
		return RespCreated
	case "response.output_item.added":
		return RespItemAdded
	case "response.output_item.done":
		return RespItemDone
	case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
		return RespArgsDelta
	case "response.function_call_arguments.done", "response.custom_tool_call_input.done":
		return RespArgsDone
	case "response.output_text.delta":
		return RespTextDelta
	case "response.output_text.done":
		return RespTextDone
	case "response.content_part.added":
		return RespPartAdded
	case "response.content_part.done":
		return RespPartDone
	case "response.completed":
		return RespCompleted
	case "response.incomplete":
		return RespIncomplete
	case "response.failed":
		return RespFailed
	case "error":
		return RespError
	}
	return RespOther
}

// ResponsesCallKind says whether an output item is a call the agent runs
// itself, and which. Calls of other kinds (web search, file search, code
// interpreter, MCP) run at the provider and are reported, not requested.
type ResponsesCallKind uint8

const (
	// NotACall is any other item: a message, reasoning, a built-in tool.
	NotACall ResponsesCallKind = iota
	// FunctionCall is a "function_call" item: its arguments are JSON text.
	FunctionCall
	// CustomToolCall is a "custom_tool_call" item (a free-form tool such as
	// a coding agent's apply_patch): its input is plain text.
	CustomToolCall
)

// ResponsesCallKindOf maps an item type to its call kind.
func ResponsesCallKindOf(typ []byte) ResponsesCallKind {
	switch string(typ) {
	case "function_call":
		return FunctionCall
	case "custom_tool_call":
		return CustomToolCall
	}
	return NotACall
}

// Member names the item member holding the call's input: "arguments" or
// "input". It is also the member of the ...done event that repeats it.
func (k ResponsesCallKind) Member() string {
	if k == CustomToolCall {
		return "input"
	}
	return "arguments"
}

// DeltaType is the type of the events that stream the input.
func (k ResponsesCallKind) DeltaType() string {
	if k == CustomToolCall {
		return "response.custom_tool_call_input.delta"
	}
	return "response.function_call_arguments.delta"
}

// OutputType is the type of the input item that answers such a call.
func (k ResponsesCallKind) OutputType() string {
	if k == CustomToolCall {
		return "custom_tool_call_output"
	}
	return "function_call_output"
}

// ResponsesEvent is a view of one Responses stream event payload (an SSE
// event's Data). Like ChatChunk, Decode fills it without copying: every
// Field aliases the payload and is valid while it is. Reuse one view across
// events; decoding allocates nothing.
//
// A payload that repeats a key the view reads is refused with
// ErrDuplicateKey; so is, for the events hookgate may rewrite (items and
// the response lifecycle), a repeated key anywhere in the payload, since a
// client would read another value than hookgate judged.
type ResponsesEvent struct {
	Kind ResponsesEventKind
	// Type is the "type" member as sent.
	Type Field
	// Sequence is "sequence_number"; HasSequence reports it was present.
	// It, "output_index" and "content_index" must each be a plain
	// non-negative integer, or Decode fails with ErrNotAnIndex.
	Sequence    int64
	HasSequence bool
	// OutputIndex is "output_index"; HasOutputIndex reports it was
	// present.
	OutputIndex    int
	HasOutputIndex bool
	// ContentIndex is "content_index" (the part of a message item a text
	// or part event is about); HasContentIndex reports it was present.
	ContentIndex    int
	HasContentIndex bool
	// ItemID is "item_id" (argument and text events).
	ItemID Field
	// Item is the "item" member of output_item.added and .done.
	Item ResponsesItem
	// Delta is "delta": a text or arguments fragment.
	Delta Field
	// Arguments and Input are the "arguments" and "input" members, which
	// function_call_arguments.done and custom_tool_call_input.done carry.
	Arguments Field
	Input     Field
	// Part is the "part" member of content_part.added and .done.
	Part Field
	// Response is the "response" member of lifecycle events.
	Response Field
	// Error is the "error" member of error events (and of some failures).
	Error Field

	custom bool // the type names a custom_tool_call_input event
}

// Final returns the whole call input an ...arguments.done or ...input.done
// event repeats.
func (e *ResponsesEvent) Final() Field {
	if e.custom {
		return e.Input
	}
	return e.Arguments
}

// TextPart reports a content_part event whose part is output_text.
func (e *ResponsesEvent) TextPart() bool { return memberOf(e.Part.Raw, "type").Equal("output_text") }

// ResponseID returns the id of the event's "response" member.
func (e *ResponsesEvent) ResponseID() Field { return memberOf(e.Response.Raw, "id") }

// ResponsesItem is a view of an output item object.
type ResponsesItem struct {
	// Raw is the item as sent; nil when the event had none.
	Raw []byte

	// The members hookgate reads.
	Type, ID, CallID, Name, Arguments, Input, Status, Role Field
}

// CallKind classifies the item.
func (it *ResponsesItem) CallKind() ResponsesCallKind {
	var tmp [64]byte
	return ResponsesCallKindOf(stringValue(it.Type, tmp[:0]))
}

// CallInput returns the member holding the call's input for its kind.
func (it *ResponsesItem) CallInput() Field {
	if it.CallKind() == CustomToolCall {
		return it.Input
	}
	return it.Arguments
}

// Reset empties the view.
func (e *ResponsesEvent) Reset() { *e = ResponsesEvent{} }

// Decode reads data, an event payload. It fails with ErrInvalidJSON for a
// payload that is not a JSON object, with ErrDuplicateKey as described
// on the type, and with ErrNotAnIndex for a number a client counts by
// that is not a plain non-negative integer; the view is then empty.
func (e *ResponsesEvent) Decode(data []byte) error {
	e.Reset()
	if err := checkCanonical(data); err != nil {
		return fmt.Errorf("responses event: %w", err)
	}
	it, ok := iterObject(data)
	if !ok {
		return fmt.Errorf("responses event: not an object: %w", ErrInvalidJSON)
	}
	// A keySet remembers eight names; two cover the twelve read here.
	var seenA, seenB keySet
	for key, val, ok := it.next(); ok; key, val, ok = it.next() {
		var err error
		switch {
		case seenA.once(key, "type"):
			e.Type = Field{val}
		case seenA.once(key, "sequence_number"):
			if e.Sequence, err = parseWireIndex(val); err == nil {
				e.HasSequence = true
			}
		case seenA.once(key, "output_index"):
			var n int64
			if n, err = parseWireIndex(val); err == nil {
				e.OutputIndex, e.HasOutputIndex = int(n), true
			}
		case seenA.once(key, "item_id"):
			e.ItemID = Field{val}
		case seenA.once(key, "item"):
			err = e.Item.decode(val)
		case seenA.once(key, "delta"):
			e.Delta = Field{val}
		case seenA.once(key, "arguments"):
			e.Arguments = Field{val}
		case seenA.once(key, "input"):
			e.Input = Field{val}
		case seenB.once(key, "response"):
			e.Response = Field{val}
		case seenB.once(key, "error"):
			e.Error = Field{val}
		case seenB.once(key, "content_index"):
			var n int64
			if n, err = parseWireIndex(val); err == nil {
				e.ContentIndex, e.HasContentIndex = int(n), true
			}
		case seenB.once(key, "part"):
			e.Part = Field{val}
		}
		if err == nil {
			err = seenA.err
		}
		if err == nil {
			err = seenB.err
		}
		if err != nil {
			e.Reset()
			return fmt.Errorf("responses event: %w", err)
		}
	}
	var tmp [64]byte
	typ := stringValue(e.Type, tmp[:0])
	e.Kind = ResponsesEventKindOf(typ)
	e.custom = e.Kind == RespArgsDone && string(typ) == "response.custom_tool_call_input.done"
	return nil
}

func (it *ResponsesItem) decode(raw []byte) error {
	*it = ResponsesItem{Raw: raw}
	obj, ok := iterObject(raw)
	if !ok {
		return nil
	}
	var seen keySet
	for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
		switch {
		case seen.once(key, "type"):
			it.Type = Field{v}
		case seen.once(key, "id"):
			it.ID = Field{v}
		case seen.once(key, "call_id"):
			it.CallID = Field{v}
		case seen.once(key, "name"):
			it.Name = Field{v}
		case seen.once(key, "arguments"):
			it.Arguments = Field{v}
		case seen.once(key, "input"):
			it.Input = Field{v}
		case seen.once(key, "status"):
			it.Status = Field{v}
		case seen.once(key, "role"):
			it.Role = Field{v}
		}
		if seen.err != nil {
			return seen.err
		}
	}
	return nil
}

// memberOf returns the raw value of one member of an object (absent when
// raw is not an object or has no such member).
func memberOf(raw []byte, name string) Field {
	obj, ok := iterObject(raw)
	if !ok {
		return Field{}
	}
	for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
		if keyIs(key, name) {
			return Field{v}
		}
	}
	return Field{}
}

// ResponsesEventType returns the "type" member of an event payload without
// validating or allocating (nil when there is none): the cheap look a
// relay takes at every event to notice the stream's end.
func ResponsesEventType(data []byte) []byte {
	return stringValue(memberOf(data, "type"), nil)
}

// stringValue returns the decoded value of a string member: a slice of
// its bytes when it holds no escape (the usual case, without allocating),
// else the decoded text appended to buf. Types must be compared decoded:
// a client reads "response\u002ecompleted" as "response.completed".
func stringValue(f Field, buf []byte) []byte {
	if !f.IsString() {
		return nil
	}
	in := f.Raw[1 : len(f.Raw)-1]
	if !hasByte(in, '\\') {
		return in
	}
	return appendUnescapedContent(buf, in)
}
