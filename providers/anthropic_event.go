package providers

import (
	"fmt"
)

// The event types of an Anthropic Messages stream (the payload's "type",
// which the "event:" line repeats).
const (
	MessageStart      = "message_start"
	ContentBlockStart = "content_block_start"
	ContentBlockDelta = "content_block_delta"
	ContentBlockStop  = "content_block_stop"
	MessageDelta      = "message_delta"
	MessageStop       = "message_stop"
	MessagesPing      = "ping"
	MessagesError     = "error"
)

// MessagesEvent is a view of one Messages stream event's payload (an SSE
// event's Data). Decode fills it without copying: every Field aliases the
// decoded bytes and is valid while they are (for a payload taken from an
// SSEFrame, until the next SSEParser call). Reuse one MessagesEvent across
// events; decoding allocates nothing.
//
// A payload that repeats one of the keys the view reads is refused with
// ErrDuplicateKey (see json_dupkeys.go for why). Anthropic pads its
// payloads with spaces before the closing brace; that is fine.
type MessagesEvent struct {
	// Type is the payload's "type": message_start, content_block_start...
	Type Field
	// Index is the content block's "index"; -1 when absent. An index that
	// is not a plain non-negative integer fails Decode with ErrNotAnIndex.
	Index int
	// Message is message_start's message object.
	Message Field
	// Block is content_block_start's content_block.
	Block MessagesBlockStart
	// Delta is content_block_delta's or message_delta's delta.
	Delta MessagesDelta
	// Usage is message_delta's top-level usage.
	Usage Field
	// Error is an error event's error object.
	Error Field
}

// MessagesBlockStart is the content_block of a content_block_start.
type MessagesBlockStart struct {
	// Type is text, thinking, redacted_thinking, tool_use, server_tool_use...
	Type Field
	// ID, Name and Input are a tool_use block's. Input is "{}" in a
	// stream; the input arrives as input_json_delta fragments.
	ID, Name, Input Field
}

// MessagesDelta is the delta of a content_block_delta (Type, Text,
// PartialJSON, Thinking, Signature) or of a message_delta (StopReason).
type MessagesDelta struct {
	Type        Field // text_delta, input_json_delta, thinking_delta, signature_delta...
	Text        Field
	PartialJSON Field
	Thinking    Field
	Signature   Field
	StopReason  Field
}

// Is reports whether the event's type is name.
func (e *MessagesEvent) Is(name string) bool { return e.Type.Equal(name) }

// HasIndex reports whether the event carried a usable block index.
func (e *MessagesEvent) HasIndex() bool { return e.Index >= 0 }

// Reset empties the view.
func (e *MessagesEvent) Reset() { *e = MessagesEvent{Index: -1} }

// Decode reads data, an event payload. It fails with ErrInvalidJSON when
// data is not valid JSON or not an object, and with ErrDuplicateKey (which
// wraps ErrInvalidJSON) when a key it reads repeats, and with ErrNotAnIndex
// when "index" is not a plain non-negative integer; the view is then empty.
func (e *MessagesEvent) Decode(data []byte) error {
	e.Reset()
	if err := checkCanonical(data); err != nil {
		return fmt.Errorf("messages event: %w", err)
	}
	it, ok := iterObject(data)
	if !ok {
		return fmt.Errorf("messages event: not an object: %w", ErrInvalidJSON)
	}
	var seen keySet
	for key, val, ok := it.next(); ok; key, val, ok = it.next() {
		var err error
		switch {
		case seen.once(key, "type"):
			e.Type = Field{val}
		case seen.once(key, "index"):
			var n int64
			if n, err = parseWireIndex(val); err == nil {
				e.Index = int(n)
			}
		case seen.once(key, "message"):
			e.Message = Field{val}
		case seen.once(key, "content_block"):
			err = e.Block.decode(val)
		case seen.once(key, "delta"):
			err = e.Delta.decode(val)
		case seen.once(key, "usage"):
			e.Usage = Field{val}
		case seen.once(key, "error"):
			e.Error = Field{val}
		}
		if err == nil {
			err = seen.err
		}
		if err != nil {
			e.Reset()
			return fmt.Errorf("messages event: %w", err)
		}
	}
	return nil
}

func (b *MessagesBlockStart) decode(raw []byte) error {
	obj, ok := iterObject(raw)
	if !ok {
		return nil
	}
	var seen keySet
	for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
		switch {
		case seen.once(key, "type"):
			b.Type = Field{v}
		case seen.once(key, "id"):
			b.ID = Field{v}
		case seen.once(key, "name"):
			b.Name = Field{v}
		case seen.once(key, "input"):
			b.Input = Field{v}
		}
		if seen.err != nil {
			return seen.err
		}
	}
	return nil
}

func (d *MessagesDelta) decode(raw []byte) error {
	obj, ok := iterObject(raw)
	if !ok {
		return nil
	}
	var seen keySet
	for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
		switch {
		case seen.once(key, "type"):
			d.Type = Field{v}
		case seen.once(key, "text"):
			d.Text = Field{v}
		case seen.once(key, "partial_json"):
			d.PartialJSON = Field{v}
		case seen.once(key, "thinking"):
			d.Thinking = Field{v}
		case seen.once(key, "signature"):
			d.Signature = Field{v}
		case seen.once(key, "stop_reason"):
			d.StopReason = Field{v}
		}
		if seen.err != nil {
			return seen.err
		}
	}
	return nil
}
