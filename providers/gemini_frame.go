package providers

import (
	"fmt"
	"unicode/utf8"
)

// GeminiFrame is a view of one GenerateContentResponse: an SSE data
// payload of streamGenerateContent?alt=sse, one element of its default
// JSON-array stream, or a whole generateContent body. Decode fills it
// without copying: every Field aliases the decoded bytes and is valid
// while they are. Reuse one GeminiFrame across frames: Decode keeps its
// slices' capacity.
//
// Decode is the canonical-form gate (gemini_keys.go): a frame that repeats
// a key, or spells a Gemini member other than exactly, is refused, and so
// is any shape in which a client could find a call the view does not
// report (see Decode).
type GeminiFrame struct {
	Candidates []GeminiCandidate
	// UsageMetadata, PromptFeedback, ModelVersion and ResponseID are the
	// top-level members as sent. A blocked prompt has promptFeedback and no
	// candidates.
	UsageMetadata  Field
	PromptFeedback Field
	ModelVersion   Field
	ResponseID     Field
	// Error is a top-level "error" member. genai-go yields such a frame as
	// an APIError and skips its candidates; other clients may not.
	Error Field
}

// GeminiCandidate is one element of candidates.
type GeminiCandidate struct {
	// Index is the candidate's "index"; its position when the member is
	// absent or null.
	Index int
	// Pos is the candidate's position in the candidates array.
	Pos          int
	FinishReason Field
	// Role is content.role.
	Role  Field
	Parts []GeminiPart

	content []byte // the content object as sent; nil when absent or null
}

// GeminiPartKind says what a part carries.
type GeminiPartKind uint8

// The kinds of part. A part with a functionCall is a call whatever else it
// holds; otherwise a part with a text member is text.
const (
	GeminiPartOther GeminiPartKind = iota // inlineData, executableCode, ... or nothing
	GeminiPartText                        // a text member
	GeminiPartCall                        // a functionCall member that is not null
)

// GeminiPart is one element of a candidate's content.parts.
type GeminiPart struct {
	// Pos is the part's position in the parts array.
	Pos  int
	Kind GeminiPartKind
	Text Field
	// Thought is the part's "thought" flag (a thought summary, not answer
	// text).
	Thought          bool
	ThoughtSignature Field
	// Call is the functionCall of a GeminiPartCall part.
	Call GeminiCall
	// Raw is the whole part as sent.
	Raw []byte
}

// GeminiCall is a functionCall: a whole call (Gemini sends no argument
// deltas).
type GeminiCall struct {
	Name Field
	// Args is the args object as sent; absent or null is no arguments.
	Args Field
	ID   Field
}

// HasCalls reports whether any candidate carries a functionCall part.
func (f *GeminiFrame) HasCalls() bool {
	for i := range f.Candidates {
		for j := range f.Candidates[i].Parts {
			if f.Candidates[i].Parts[j].Kind == GeminiPartCall {
				return true
			}
		}
	}
	return false
}

// Reset empties the view, keeping capacity.
func (f *GeminiFrame) Reset() {
	*f = GeminiFrame{Candidates: f.Candidates[:0]}
}

// Decode reads data, one GenerateContentResponse. It refuses, leaving the
// view empty:
//   - invalid JSON, or a value that is not an object (ErrInvalidJSON);
//   - a repeated key anywhere (ErrDuplicateKey) or a variant spelling of a
//     Gemini member (ErrKeySpelling);
//   - candidates that is not an array of objects, a content that is not an
//     object, parts that is not an array of objects (ErrInvalidJSON):
//     genai-go fails or panics on them, other readers may not;
//   - an index that is not a plain non-negative integer (ErrBadIndex);
//   - a functionCall that is not an object, args that are not an object,
//     a name or args that are not valid UTF-8 (encoding/json would read
//     them with U+FFFD), a name that is not a string (ErrInvalidJSON);
//   - a functionCall streamed in pieces (partialArgs, willContinue), which
//     hookgate does not assemble (ErrUnjudgedCall).
func (f *GeminiFrame) Decode(data []byte) error {
	f.Reset()
	if err := f.decode(data); err != nil {
		f.Reset()
		return fmt.Errorf("gemini frame: %w", err)
	}
	return nil
}

func (f *GeminiFrame) decode(data []byte) error {
	if err := checkGeminiCanonical(data); err != nil {
		return err
	}
	it, ok := iterObject(data)
	if !ok {
		return fmt.Errorf("not an object: %w", ErrInvalidJSON)
	}
	for key, val, ok := it.next(); ok; key, val, ok = it.next() {
		switch string(key) {
		case "candidates":
			if err := f.decodeCandidates(val); err != nil {
				return err
			}
		case "usageMetadata":
			f.UsageMetadata = Field{val}
		case "promptFeedback":
			f.PromptFeedback = Field{val}
		case "modelVersion":
			f.ModelVersion = Field{val}
		case "responseId":
			f.ResponseID = Field{val}
		case "error":
			f.Error = Field{val}
		}
	}
	return nil
}

func (f *GeminiFrame) decodeCandidates(raw []byte) error {
	if isNull(raw) {
		return nil
	}
	arr, ok := iterArray(raw)
	if !ok {
		return fmt.Errorf("candidates is not an array: %w", ErrInvalidJSON)
	}
	for val, ok := arr.next(); ok; val, ok = arr.next() {
		pos := len(f.Candidates)
		if pos < cap(f.Candidates) {
			f.Candidates = f.Candidates[:pos+1]
		} else {
			f.Candidates = append(f.Candidates, GeminiCandidate{})
		}
		c := &f.Candidates[pos]
		*c = GeminiCandidate{Index: pos, Pos: pos, Parts: c.Parts[:0]}
		obj, ok := iterObject(val)
		if !ok {
			return fmt.Errorf("candidate %d is not an object: %w", pos, ErrInvalidJSON)
		}
		for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
			switch string(key) {
			case "index":
				n, err := readIndex(v)
				if err != nil {
					return fmt.Errorf("candidate %d: %w", pos, err)
				}
				if n >= 0 {
					c.Index = n
				}
			case "finishReason":
				c.FinishReason = Field{v}
			case "content":
				if err := c.decodeContent(v); err != nil {
					return fmt.Errorf("candidate %d: %w", pos, err)
				}
			}
		}
	}
	return nil
}

func (c *GeminiCandidate) decodeContent(raw []byte) error {
	if isNull(raw) {
		return nil
	}
	obj, ok := iterObject(raw)
	if !ok {
		return fmt.Errorf("content is not an object: %w", ErrInvalidJSON)
	}
	c.content = raw
	for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
		switch string(key) {
		case "role":
			c.Role = Field{v}
		case "parts":
			if isNull(v) {
				continue
			}
			arr, ok := iterArray(v)
			if !ok {
				return fmt.Errorf("parts is not an array: %w", ErrInvalidJSON)
			}
			for p, ok := arr.next(); ok; p, ok = arr.next() {
				part := GeminiPart{Pos: len(c.Parts), Raw: p}
				if err := part.decode(p); err != nil {
					return fmt.Errorf("part %d: %w", part.Pos, err)
				}
				c.Parts = append(c.Parts, part)
			}
		}
	}
	return nil
}

func (p *GeminiPart) decode(raw []byte) error {
	obj, ok := iterObject(raw)
	if !ok {
		return fmt.Errorf("not an object: %w", ErrInvalidJSON)
	}
	hasText := false
	for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
		switch string(key) {
		case "text":
			p.Text = Field{v}
			hasText = !isNull(v)
		case "thought":
			p.Thought = rawBool(v)
		case "thoughtSignature":
			p.ThoughtSignature = Field{v}
		case "functionCall":
			if isNull(v) {
				continue
			}
			if err := p.Call.decode(v); err != nil {
				return err
			}
			p.Kind = GeminiPartCall
		}
	}
	if p.Kind != GeminiPartCall && hasText {
		p.Kind = GeminiPartText
	}
	return nil
}

func (c *GeminiCall) decode(raw []byte) error {
	obj, ok := iterObject(raw)
	if !ok {
		return fmt.Errorf("functionCall is not an object: %w", ErrInvalidJSON)
	}
	for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
		switch string(key) {
		case "name":
			if !isNull(v) && v[0] != '"' {
				return fmt.Errorf("functionCall.name is not a string: %w", ErrInvalidJSON)
			}
			c.Name = Field{v}
		case "args":
			if !isNull(v) && v[0] != '{' {
				return fmt.Errorf("functionCall.args is not an object: %w", ErrInvalidJSON)
			}
			c.Args = Field{v}
		case "id":
			if !isNull(v) && v[0] != '"' {
				return fmt.Errorf("functionCall.id is not a string: %w", ErrInvalidJSON)
			}
			c.ID = Field{v}
		case "partialArgs", "willContinue":
			if meaningful(v) && string(v) != "false" {
				return unjudged("a functionCall streamed in pieces (" + string(key) + ")")
			}
		}
	}
	if !utf8.Valid(c.Name.Raw) || !utf8.Valid(c.Args.Raw) || !utf8.Valid(c.ID.Raw) {
		return fmt.Errorf("functionCall with invalid UTF-8: %w", ErrInvalidJSON)
	}
	return nil
}

// isNull reports a raw value that is null.
func isNull(raw []byte) bool { return string(raw) == "null" }
