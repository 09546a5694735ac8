package providers

import (
	"fmt"
	"unicode/utf8"
)

// OllamaLine is a view of one ChatResponse of Ollama's /api/chat: a line of
// its NDJSON stream, or a whole non-streamed body. Decode fills it without
// copying: every Field aliases the decoded bytes and is valid while they
// are. Reuse one OllamaLine across lines: Decode keeps its slices'
// capacity.
//
// Decode is the canonical-form gate (ollama_keys.go): a line that repeats
// a key, or spells an Ollama member other than exactly, is refused, and
// so is any shape in which a client could find a call the view does not
// report (see Decode).
type OllamaLine struct {
	Model     Field
	CreatedAt Field
	// HasMessage reports a message object (not absent, not null).
	HasMessage bool
	// Role, Content and Thinking are message.role, .content and
	// .thinking (the model's reasoning, not answer text).
	Role, Content, Thinking Field
	// Calls are message.tool_calls: Ollama sends each call whole, in one
	// line; parallel calls come in one line or in several.
	Calls []OllamaCall
	// Done is the "done" flag: the line that ends the answer.
	Done       bool
	DoneReason Field
	// The usage counters, as sent (durations in nanoseconds).
	TotalDuration, LoadDuration         Field
	PromptEvalCount, PromptEvalDuration Field
	EvalCount, EvalDuration             Field
	// Error is a top-level "error": Ollama streams a failure as a line
	// {"error":"..."}, which the Go client returns as an error and stops.
	Error Field
}

// OllamaCall is one element of message.tool_calls.
type OllamaCall struct {
	// Pos is the call's position in tool_calls.
	Pos int
	// ID is the call's "id" (newer Ollama sends one; older none).
	ID Field
	// Name is function.name; Arguments is function.arguments, an object
	// (absent or null: no arguments).
	Name      Field
	Arguments Field
	// Index is function.index, -1 when absent.
	Index int
	// Raw is the whole element as sent.
	Raw []byte
}

// HasCalls reports whether the line carries a tool call.
func (l *OllamaLine) HasCalls() bool { return len(l.Calls) > 0 }

// Reset empties the view, keeping capacity.
func (l *OllamaLine) Reset() { *l = OllamaLine{Calls: l.Calls[:0]} }

// Decode reads data, one ChatResponse. It refuses, leaving the view empty:
//   - invalid JSON, or a value that is not an object (ErrInvalidJSON);
//   - a repeated key anywhere (ErrDuplicateKey) or a variant spelling of an
//     Ollama member (ErrKeySpelling);
//   - a message that is not an object, a role, content or thinking that is
//     not a string, a done that is not a boolean (ErrInvalidJSON): the Go
//     client fails on them, ollama-js reads them as they come;
//   - tool_calls that is not an array, an element that is not an object, a
//     function that is absent, null or not an object, a name or id that is
//     not a string, an index that is not a plain non-negative integer,
//     arguments that are not an object (a JSON string included: the Go
//     client fails on it, ollama-js and ollama-python hand the string to
//     the agent, which may parse it), invalid UTF-8 in a call
//     (ErrInvalidJSON, ErrBadIndex).
func (l *OllamaLine) Decode(data []byte) error {
	l.Reset()
	if err := l.decode(data); err != nil {
		l.Reset()
		return fmt.Errorf("ollama line: %w", err)
	}
	return nil
}

func (l *OllamaLine) decode(data []byte) error {
	if err := checkOllamaCanonical(data); err != nil {
		return err
	}
	it, ok := iterObject(data)
	if !ok {
		return fmt.Errorf("not an object: %w", ErrInvalidJSON)
	}
	for key, val, ok := it.next(); ok; key, val, ok = it.next() {
		switch string(key) {
		case "model":
			l.Model = Field{val}
		case "created_at":
			l.CreatedAt = Field{val}
		case "message":
			if err := l.decodeMessage(val); err != nil {
				return err
			}
		case "done":
			if !isNull(val) && string(val) != "true" && string(val) != "false" {
				return fmt.Errorf("done is not a boolean: %w", ErrInvalidJSON)
			}
			l.Done = string(val) == "true"
		case "done_reason":
			l.DoneReason = Field{val}
		case "total_duration":
			l.TotalDuration = Field{val}
		case "load_duration":
			l.LoadDuration = Field{val}
		case "prompt_eval_count":
			l.PromptEvalCount = Field{val}
		case "prompt_eval_duration":
			l.PromptEvalDuration = Field{val}
		case "eval_count":
			l.EvalCount = Field{val}
		case "eval_duration":
			l.EvalDuration = Field{val}
		case "error":
			l.Error = Field{val}
		}
	}
	return nil
}

func (l *OllamaLine) decodeMessage(raw []byte) error {
	if isNull(raw) {
		return nil
	}
	obj, ok := iterObject(raw)
	if !ok {
		return fmt.Errorf("message is not an object: %w", ErrInvalidJSON)
	}
	l.HasMessage = true
	for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
		switch string(key) {
		case "role", "content", "thinking":
			if !isNull(v) && v[0] != '"' {
				return fmt.Errorf("message.%s is not a string: %w", key, ErrInvalidJSON)
			}
			switch string(key) {
			case "role":
				l.Role = Field{v}
			case "content":
				l.Content = Field{v}
			default:
				l.Thinking = Field{v}
			}
		case "tool_calls":
			calls, err := decodeOllamaCalls(l.Calls[:0], v)
			if err != nil {
				return err
			}
			l.Calls = calls
		}
	}
	return nil
}

// decodeOllamaCalls appends the calls of a tool_calls value (null: none)
// to dst.
func decodeOllamaCalls(dst []OllamaCall, raw []byte) ([]OllamaCall, error) {
	if isNull(raw) {
		return dst, nil
	}
	arr, ok := iterArray(raw)
	if !ok {
		return nil, fmt.Errorf("tool_calls is not an array: %w", ErrInvalidJSON)
	}
	for v, ok := arr.next(); ok; v, ok = arr.next() {
		c := OllamaCall{Pos: len(dst), Index: -1, Raw: v}
		if err := c.decode(v); err != nil {
			return nil, fmt.Errorf("tool call %d: %w", c.Pos, err)
		}
		dst = append(dst, c)
	}
	return dst, nil
}

func (c *OllamaCall) decode(raw []byte) error {
	obj, ok := iterObject(raw)
	if !ok {
		return fmt.Errorf("not an object: %w", ErrInvalidJSON)
	}
	var fn []byte
	for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
		switch string(key) {
		case "id":
			if !isNull(v) && v[0] != '"' {
				return fmt.Errorf("id is not a string: %w", ErrInvalidJSON)
			}
			c.ID = Field{v}
		case "function":
			fn = v
		}
	}
	if fn == nil || isNull(fn) {
		return fmt.Errorf("no function: %w", ErrInvalidJSON)
	}
	f, ok := iterObject(fn)
	if !ok {
		return fmt.Errorf("function is not an object: %w", ErrInvalidJSON)
	}
	for key, v, ok := f.next(); ok; key, v, ok = f.next() {
		switch string(key) {
		case "name":
			if !isNull(v) && v[0] != '"' {
				return fmt.Errorf("function.name is not a string: %w", ErrInvalidJSON)
			}
			c.Name = Field{v}
		case "arguments":
			if !isNull(v) && v[0] != '{' {
				return fmt.Errorf("function.arguments is not an object: %w", ErrInvalidJSON)
			}
			c.Arguments = Field{v}
		case "index":
			n, err := readIndex(v)
			if err != nil {
				return fmt.Errorf("function.%w", err)
			}
			c.Index = n
		}
	}
	if !utf8.Valid(c.Name.Raw) || !utf8.Valid(c.Arguments.Raw) || !utf8.Valid(c.ID.Raw) {
		return fmt.Errorf("tool call with invalid UTF-8: %w", ErrInvalidJSON)
	}
	return nil
}
