package providers

import (
	"fmt"

	"github.com/tidwall/gjson"
)

// ChatChunk is a view of one chat.completion.chunk payload (an SSE event's
// Data). Decode fills it without copying: every Field and slice aliases the
// decoded bytes and is valid while they are (for a payload taken from an
// SSEFrame, until the next SSEParser call). Reuse one ChatChunk across
// chunks: Decode keeps its slices' capacity, so decoding allocates nothing
// once warm.
//
// When a key repeats, the last occurrence wins, as it does for the JSON
// decoders agents use (Python's json, JavaScript's JSON.parse, Go's
// encoding/json).
type ChatChunk struct {
	Choices []ChunkChoice
	// Usage is the top-level usage member. It may arrive on an empty-choices
	// chunk, on the finish chunk, on every chunk, or after the finish.
	Usage Field
	// Error is a top-level error member: OpenRouter reports a mid-stream
	// failure as a chunk carrying "error" beside its choices.
	Error Field
}

// ChunkChoice is one element of a chunk's choices.
type ChunkChoice struct {
	// Index is the choice's "index"; its position in the array when the
	// member is missing or not an integer.
	Index int
	// Pos is the choice's position in the choices array.
	Pos int
	// Content is delta.content: absent, null, "" or text.
	Content Field
	// Role is delta.role. Many providers repeat it on every delta.
	Role Field
	// ToolCalls are the delta's tool_calls entries, in array order.
	ToolCalls []ToolCallDelta
	// FunctionCall is the deprecated delta.function_call (the legacy
	// "functions" API); hookgate does not assemble it.
	FunctionCall Field
	// Other reports another meaningful delta member (reasoning_content,
	// reasoning, refusal, audio, function_call...): one whose value is not
	// null, "", {} or []. role, content and tool_calls are not counted.
	Other bool
	// FinishReason is the choice's finish_reason.
	FinishReason Field
}

// HasContent reports a content delta that is a non-empty string.
func (c *ChunkChoice) HasContent() bool { return c.Content.NonEmpty() }

// Finished reports a finish_reason that is set (not null, not "").
func (c *ChunkChoice) Finished() bool {
	return c.FinishReason.Set() && c.FinishReason.State() != FieldEmpty
}

// ToolCallDelta is one tool_calls entry of a delta. Which call it belongs
// to is the assembler's business: Index may be missing, start at 1, repeat
// for different calls, or several entries may share a delta.
type ToolCallDelta struct {
	// Index is the wire "index"; -1 when absent or not a non-negative integer.
	Index int
	// Pos is the entry's position in the tool_calls array.
	Pos       int
	ID        Field
	Type      Field
	Name      Field // function.name
	Arguments Field // function.arguments: a fragment, usually a JSON string
}

// HasIndex reports whether the entry carried a usable wire index.
func (d *ToolCallDelta) HasIndex() bool { return d.Index >= 0 }

// HasUsage reports a usage member that is not null.
func (c *ChatChunk) HasUsage() bool { return c.Usage.Set() }

// HasError reports a top-level error member that is not null.
func (c *ChatChunk) HasError() bool { return c.Error.Set() }

// HasToolCalls reports whether any choice carries tool-call deltas.
func (c *ChatChunk) HasToolCalls() bool {
	for i := range c.Choices {
		if len(c.Choices[i].ToolCalls) > 0 {
			return true
		}
	}
	return false
}

// Choice returns the choice whose Index is index, or nil.
func (c *ChatChunk) Choice(index int) *ChunkChoice {
	for i := range c.Choices {
		if c.Choices[i].Index == index {
			return &c.Choices[i]
		}
	}
	return nil
}

// Reset empties the view, keeping capacity.
func (c *ChatChunk) Reset() {
	c.Choices = c.Choices[:0]
	c.Usage, c.Error = Field{}, Field{}
}

// Decode reads data, a chunk payload. It fails with ErrInvalidJSON when data
// is not valid JSON or not an object; "[DONE]" is not a chunk (check
// SSEFrame.Done first).
func (c *ChatChunk) Decode(data []byte) error {
	c.Reset()
	if !gjson.ValidBytes(data) {
		return fmt.Errorf("chat chunk: %w", ErrInvalidJSON)
	}
	it, ok := iterObject(data)
	if !ok {
		return fmt.Errorf("chat chunk: not an object: %w", ErrInvalidJSON)
	}
	for key, val, ok := it.next(); ok; key, val, ok = it.next() {
		switch {
		case keyIs(key, "choices"):
			c.Choices = c.Choices[:0]
			c.decodeChoices(val)
		case keyIs(key, "usage"):
			c.Usage = Field{val}
		case keyIs(key, "error"):
			c.Error = Field{val}
		}
	}
	return nil
}

func (c *ChatChunk) decodeChoices(raw []byte) {
	arr, ok := iterArray(raw)
	if !ok {
		return
	}
	for val, ok := arr.next(); ok; val, ok = arr.next() {
		pos := len(c.Choices)
		// Reuse the element (and its ToolCalls capacity) left from earlier chunks.
		if pos < cap(c.Choices) {
			c.Choices = c.Choices[:pos+1]
		} else {
			c.Choices = append(c.Choices, ChunkChoice{})
		}
		ch := &c.Choices[pos]
		tc := ch.ToolCalls[:0]
		*ch = ChunkChoice{Index: pos, Pos: pos, ToolCalls: tc}
		obj, ok := iterObject(val)
		if !ok {
			continue
		}
		for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
			switch {
			case keyIs(key, "index"):
				if n, ok := parseIndex(v); ok {
					ch.Index = n
				}
			case keyIs(key, "delta"):
				ch.decodeDelta(v)
			case keyIs(key, "finish_reason"):
				ch.FinishReason = Field{v}
			}
		}
	}
}

func (ch *ChunkChoice) decodeDelta(raw []byte) {
	ch.Content, ch.Role, ch.FunctionCall, ch.Other = Field{}, Field{}, Field{}, false
	ch.ToolCalls = ch.ToolCalls[:0]
	obj, ok := iterObject(raw)
	if !ok {
		return
	}
	for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
		switch {
		case keyIs(key, "content"):
			ch.Content = Field{v}
		case keyIs(key, "role"):
			ch.Role = Field{v}
		case keyIs(key, "tool_calls"):
			ch.ToolCalls = ch.ToolCalls[:0]
			ch.decodeToolCalls(v)
		default:
			if keyIs(key, "function_call") {
				ch.FunctionCall = Field{v}
			}
			if meaningful(v) {
				ch.Other = true
			}
		}
	}
}

func (ch *ChunkChoice) decodeToolCalls(raw []byte) {
	arr, ok := iterArray(raw)
	if !ok {
		return
	}
	for val, ok := arr.next(); ok; val, ok = arr.next() {
		d := ToolCallDelta{Index: -1, Pos: len(ch.ToolCalls)}
		obj, ok := iterObject(val)
		if !ok {
			ch.ToolCalls = append(ch.ToolCalls, d)
			continue
		}
		for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
			switch {
			case keyIs(key, "index"):
				d.Index = -1
				if n, ok := parseIndex(v); ok {
					d.Index = n
				}
			case keyIs(key, "id"):
				d.ID = Field{v}
			case keyIs(key, "type"):
				d.Type = Field{v}
			case keyIs(key, "function"):
				d.Name, d.Arguments = Field{}, Field{}
				fn, ok := iterObject(v)
				if !ok {
					continue
				}
				for fk, fv, ok := fn.next(); ok; fk, fv, ok = fn.next() {
					switch {
					case keyIs(fk, "name"):
						d.Name = Field{fv}
					case keyIs(fk, "arguments"):
						d.Arguments = Field{fv}
					}
				}
			}
		}
		ch.ToolCalls = append(ch.ToolCalls, d)
	}
}
