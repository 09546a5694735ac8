package providers

import (
	"fmt"
	"strconv"
)

// OllamaCodec reads Ollama's native /api/chat for the format-neutral
// interceptor. Frames are ChatResponses (OllamaLine): NDJSON lines of a
// stream, or a whole body. A call is an element of message.tool_calls,
// whole in one line (Ollama sends no argument deltas); the answer's text
// is message.content (thinking excluded); "done": true ends the answer;
// a top-level "error" is the upstream's error.
var OllamaCodec Codec = ollamaCodec{}

type ollamaCodec struct{}

// ollamaFrameState is OllamaCodec's reading of a frame.
type ollamaFrameState struct {
	view OllamaLine
}

func (ollamaCodec) Provider() string { return "ollama" }

func (ollamaCodec) ErrorBody(_ int, code, message string) []byte {
	return OllamaErrorBody(ollamaErrorText(code, message))
}

// OllamaErrorShape is Ollama's {"error":"message"}, the message led by
// hookgate's code.
func OllamaErrorShape(_ int, _, code, message string) []byte {
	return OllamaErrorBody(ollamaErrorText(code, message))
}

func ollamaErrorText(code, message string) string {
	if code == "" {
		return message
	}
	return code + ": " + message
}

// DecodeFrame reads one ChatResponse (OllamaLine.Decode is the gate) into
// f. A line with an error and a call is refused: the Go client stops at
// the error, ollama-js would still hand the call out.
func (ollamaCodec) DecodeFrame(payload []byte, f *CodecFrame) error {
	st, _ := f.State.(*ollamaFrameState)
	if st == nil {
		st = &ollamaFrameState{}
	}
	*f = CodecFrame{Calls: f.Calls[:0], Text: f.Text[:0], State: st}
	v := &st.view
	if err := v.Decode(payload); err != nil {
		return err
	}
	if v.Error.Set() && !v.Error.Equal("") {
		if v.HasCalls() {
			return fmt.Errorf("ollama line with an error and a tool call: %w", ErrUnjudgedCall)
		}
		f.Error, f.Ends, f.Meaningful = true, true, true
		return nil
	}
	for i := range v.Calls {
		c := &v.Calls[i]
		// function.index counts the calls of the answer across lines; the
		// position counts those of one line only.
		key := "tool_calls." + strconv.Itoa(c.Pos)
		if c.Index >= 0 {
			key = "function.index." + strconv.Itoa(c.Index)
		}
		call := CodecCall{ID: c.ID.Text(), Name: c.Name.Text(), Key: key}
		if c.Arguments.Set() {
			call.Args = c.Arguments.Raw
		}
		f.Calls = append(f.Calls, call)
	}
	f.Text = v.Content.AppendText(f.Text)
	f.Ends = v.Done
	f.Meaningful = v.Done || v.Content.NonEmpty() || v.Thinking.NonEmpty()
	return nil
}

// EditFrame applies the decisions: new arguments set in place, removed
// calls taken out (the kept ones keep their bytes and function.index;
// tool_calls goes when none is left), then text appended to
// message.content.
func (ollamaCodec) EditFrame(payload []byte, f *CodecFrame, edits []CallEdit, text string) ([]byte, error) {
	st, ok := f.State.(*ollamaFrameState)
	if !ok {
		return nil, fmt.Errorf("ollama edit: frame not decoded by OllamaCodec: %w", ErrNotFound)
	}
	return frameEdits{
		api:        "ollama",
		calls:      len(st.view.Calls),
		place:      func(call int) int { return st.view.Calls[call].Pos },
		setArgs:    SetOllamaCallArguments,
		remove:     func(out []byte, pos []int) ([]byte, error) { return RemoveOllamaCalls(out, pos, -1) },
		appendText: AppendOllamaText,
	}.apply(payload, edits, text)
}

// NewStream reads an NDJSON stream (OllamaNDJSONSplitter).
func (ollamaCodec) NewStream(_ CodecRequest, maxFrame int) CodecStream {
	return &ollamaStream{split: NewOllamaNDJSONSplitter(maxFrame)}
}

// ollamaStream is a streamed /api/chat response. Lines go to the client
// ending in '\n' (a '\r' before it is dropped, as every client drops it).
type ollamaStream struct {
	split *OllamaNDJSONSplitter
}

func (s *ollamaStream) Feed(b []byte) { s.split.Feed(b) }
func (s *ollamaStream) End()          { s.split.End() }

// Next hands out each line; a stream ending inside a line is Truncated,
// not an error of the line.
func (s *ollamaStream) Next() (raw, payload []byte, ok bool, err error) {
	line, ok, err := s.split.Next()
	if err != nil && s.split.Truncated() {
		return nil, nil, false, nil
	}
	return line, line, ok, err
}

func (s *ollamaStream) Truncated() bool { return s.split.Truncated() }

func (s *ollamaStream) Raw(dst, _, payload []byte) []byte { return s.Frame(dst, payload) }

func (s *ollamaStream) Frame(dst, payload []byte) []byte {
	return append(append(dst, payload...), '\n')
}

func (s *ollamaStream) Close(dst []byte) []byte { return dst }

// ErrorFrame is an error line, as Ollama ends a stream that failed: the
// Go client returns it as an error, ollama-js throws.
func (s *ollamaStream) ErrorFrame(dst []byte, code, message string) []byte {
	return append(dst, OllamaErrorLine(ollamaErrorText(code, message))...)
}

// Heartbeat is nil: the Go client fails on a blank line.
func (s *ollamaStream) Heartbeat() []byte { return nil }
