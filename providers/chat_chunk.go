package providers

import (
	"bytes"
	"fmt"
)

// ChatChunk is a view of one chat.completion.chunk payload (an SSE event's
// Data). Decode fills it without copying: every Field and slice aliases the
// decoded bytes and is valid while they are (for a payload taken from an
// SSEFrame, until the next SSEParser call). Reuse one ChatChunk across
// chunks: Decode keeps its slices' capacity, so decoding allocates nothing
// once warm.
//
// A payload that repeats one of the keys the view reads is refused with
// ErrDuplicateKey (see json_dupkeys.go for why).
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
	// member is missing or null. Decode refuses any other value that is not
	// a plain non-negative integer (ErrBadIndex).
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
	// "functions" API). hookgate does not assemble it: Decode refuses one
	// that carries anything (ErrUnjudgedCall).
	FunctionCall Field
	// Other reports another meaningful delta member (reasoning_content,
	// reasoning, refusal, audio, function_call...): one whose value is not
	// null, "", {} or []. role, content and tool_calls are not counted.
	Other bool
	// FinishReason is the choice's finish_reason.
	FinishReason Field

	toolCallsRaw []byte // delta.tool_calls as sent, to compare with message.tool_calls
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
	// Index is the wire "index"; -1 when absent or null. Decode refuses
	// any other value that is not a plain non-negative integer.
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

// Reset empties the view, keeping capacity.
func (c *ChatChunk) Reset() {
	c.Choices = c.Choices[:0]
	c.Usage, c.Error = Field{}, Field{}
}

// Decode reads data, a chunk payload. It fails with ErrInvalidJSON when data
// is not valid JSON or not an object, and with ErrDuplicateKey (which wraps
// ErrInvalidJSON) when a key it reads repeats; with ErrUnjudgedCall when a
// choice carries a tool call where or in a shape hookgate does not judge,
// and with ErrBadIndex when an index is not a plain non-negative integer.
// The view is then empty.
// "[DONE]" is not a chunk: check SSEFrame.Done first.
func (c *ChatChunk) Decode(data []byte) error {
	c.Reset()
	if err := checkCanonical(data); err != nil {
		return fmt.Errorf("chat chunk: %w", err)
	}
	it, ok := iterObject(data)
	if !ok {
		return fmt.Errorf("chat chunk: not an object: %w", ErrInvalidJSON)
	}
	seen := keySet{fold: true}
	for key, val, ok := it.next(); ok; key, val, ok = it.next() {
		var err error
		switch {
		case seen.once(key, "choices"):
			err = c.decodeChoices(val)
		case seen.once(key, "usage"):
			c.Usage = Field{val}
		case seen.once(key, "error"):
			c.Error = Field{val}
		}
		if err == nil {
			err = seen.err
		}
		if err != nil {
			c.Reset()
			return fmt.Errorf("chat chunk: %w", err)
		}
	}
	return nil
}

// keySet notices a repeated key among the few a view reads. once reports
// whether key is name; on its second sighting it records ErrDuplicateKey.
type keySet struct {
	names [8]string
	n     int
	err   error
	// fold matches keys as Go's encoding/json does (the chat chunk view,
	// which Go agents read that way); otherwise keys match exactly.
	fold bool
}

func (s *keySet) once(key []byte, name string) bool {
	if s.fold {
		if !keyIsFold(key, name) {
			return false
		}
	} else if !keyIs(key, name) {
		return false
	}
	for _, x := range s.names[:s.n] {
		if x == name {
			s.err = fmt.Errorf("key %q repeated: %w", name, ErrDuplicateKey)
			return true
		}
	}
	if s.n < len(s.names) {
		s.names[s.n] = name
		s.n++
	}
	return true
}

func (c *ChatChunk) decodeChoices(raw []byte) error {
	arr, ok := iterArray(raw)
	if !ok {
		return nil
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
		seen := keySet{fold: true}
		var message []byte
		for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
			var err error
			switch {
			case seen.once(key, "index"):
				var n int
				if n, err = readIndex(v); err == nil && n >= 0 {
					ch.Index = n
				}
			case seen.once(key, "delta"):
				err = ch.decodeDelta(v)
			case seen.once(key, "finish_reason"):
				ch.FinishReason = Field{v}
			case seen.once(key, "message"):
				message = v
			}
			if err == nil {
				err = seen.err
			}
			if err != nil {
				return err
			}
		}
		if err := ch.checkMessage(message); err != nil {
			return err
		}
		message = nil
	}
	return nil
}

// checkMessage refuses a choice's "message" member (openai-node merges it
// into the streamed completion) that carries a tool call other than the
// delta's own: tool_calls that are not byte for byte the delta's, or a
// function_call.
func (ch *ChunkChoice) checkMessage(raw []byte) error {
	obj, ok := iterObject(raw)
	if !ok {
		if meaningful(raw) {
			return unjudged("a chunk's choice.message that is not an object")
		}
		return nil
	}
	seen := keySet{fold: true}
	for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
		switch {
		case seen.once(key, "tool_calls"):
			if meaningful(v) && !bytes.Equal(bytes.TrimSpace(v), bytes.TrimSpace(ch.toolCallsRaw)) {
				return unjudged("a chunk's choice.message.tool_calls that differ from its delta's")
			}
		case seen.once(key, "function_call"):
			if meaningful(v) {
				return unjudged("a chunk's choice.message.function_call")
			}
		}
		if seen.err != nil {
			return seen.err
		}
	}
	return nil
}

func (ch *ChunkChoice) decodeDelta(raw []byte) error {
	obj, ok := iterObject(raw)
	if !ok {
		return nil
	}
	seen := keySet{fold: true}
	for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
		var err error
		switch {
		case seen.once(key, "content"):
			ch.Content = Field{v}
		case seen.once(key, "role"):
			ch.Role = Field{v}
		case seen.once(key, "tool_calls"):
			ch.toolCallsRaw = v
			err = ch.decodeToolCalls(v)
		case seen.once(key, "function_call"):
			ch.FunctionCall = Field{v}
			if meaningful(v) {
				err = unjudged("a delta's legacy function_call")
			}
		default:
			if meaningful(v) {
				ch.Other = true
			}
		}
		if err == nil {
			err = seen.err
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (ch *ChunkChoice) decodeToolCalls(raw []byte) error {
	arr, ok := iterArray(raw)
	if !ok {
		return nil
	}
	for val, ok := arr.next(); ok; val, ok = arr.next() {
		d := ToolCallDelta{Index: -1, Pos: len(ch.ToolCalls)}
		obj, ok := iterObject(val)
		if !ok {
			ch.ToolCalls = append(ch.ToolCalls, d)
			continue
		}
		seen := keySet{fold: true}
		for key, v, ok := obj.next(); ok && seen.err == nil; key, v, ok = obj.next() {
			switch {
			case seen.once(key, "index"):
				n, err := readIndex(v)
				if err != nil {
					return err
				}
				d.Index = n
			case seen.once(key, "id"):
				d.ID = Field{v}
			case seen.once(key, "type"):
				d.Type = Field{v}
				if keyIsFold(bytes.Trim(v, `"`), "custom") {
					return unjudged(`a streamed tool call of type "custom"`)
				}
			case seen.once(key, "custom"):
				if meaningful(v) {
					return unjudged("a streamed tool call with a custom member")
				}
			case seen.once(key, "function"):
				fn, ok := iterObject(v)
				if !ok {
					continue
				}
				var fseen keySet
				for fk, fv, ok := fn.next(); ok; fk, fv, ok = fn.next() {
					switch {
					case fseen.once(fk, "name"):
						d.Name = Field{fv}
					case fseen.once(fk, "arguments"):
						d.Arguments = Field{fv}
					}
					if fseen.err != nil {
						return fseen.err
					}
				}
			}
		}
		if seen.err != nil {
			return seen.err
		}
		ch.ToolCalls = append(ch.ToolCalls, d)
	}
	return nil
}
