package providers

import (
	"fmt"
	"strconv"
)

// GeminiCodec reads Google's Gemini API (generateContent and
// streamGenerateContent) for the format-neutral interceptor. Frames are
// GenerateContentResponses (GeminiFrame): a call is a functionCall part,
// whole in one frame; the answer's text is its text parts that are not
// thoughts; a candidate's finishReason, or a prompt refused with
// promptFeedback and no candidate, ends the answer; a top-level "error"
// is the upstream's error.
//
// hookgate reads one candidate: a frame with more is refused, since the
// notes, the disclaimer and the order of calls are the answer's, and an
// agent asking for several answers at once is not an agent loop.
var GeminiCodec Codec = geminiCodec{}

type geminiCodec struct{}

// geminiFrameState is GeminiCodec's reading of a frame: the view, and the
// part position of each call.
type geminiFrameState struct {
	view  GeminiFrame
	parts []int
}

func (geminiCodec) Provider() string { return "gemini" }

func (geminiCodec) ErrorBody(status int, code, message string) []byte {
	return GeminiErrorBody(status, geminiErrorText(code, message), "")
}

// GeminiErrorShape is Google's {"error":{"code","message","status"}}, the
// message led by hookgate's code.
func GeminiErrorShape(status int, _, code, message string) []byte {
	return GeminiErrorBody(status, geminiErrorText(code, message), "")
}

func geminiErrorText(code, message string) string {
	if code == "" {
		return message
	}
	return code + ": " + message
}

// DecodeFrame reads one GenerateContentResponse (GeminiFrame.Decode is the
// gate) into f.
func (geminiCodec) DecodeFrame(payload []byte, f *CodecFrame) error {
	st, _ := f.State.(*geminiFrameState)
	if st == nil {
		st = &geminiFrameState{}
	}
	*f = CodecFrame{Calls: f.Calls[:0], Text: f.Text[:0], State: st}
	st.parts = st.parts[:0]
	v := &st.view
	if err := v.Decode(payload); err != nil {
		return err
	}
	if v.Error.Set() {
		// genai-go yields such a frame as an APIError and skips its
		// candidates; a reader that does not would find their calls.
		if v.HasCalls() {
			return fmt.Errorf("gemini frame with an error and a functionCall: %w", ErrUnjudgedCall)
		}
		f.Error, f.Ends, f.Meaningful = true, true, true
		return nil
	}
	if len(v.Candidates) > 1 {
		return fmt.Errorf("gemini frame with %d candidates: hookgate reads one answer at a time: %w", len(v.Candidates), ErrUnjudgedCall)
	}
	f.Meaningful = v.UsageMetadata.Set() || v.PromptFeedback.Set()
	if len(v.Candidates) == 0 {
		// A refused prompt: promptFeedback and nothing else is the end.
		f.Ends = v.PromptFeedback.Set()
		return nil
	}
	c := &v.Candidates[0]
	if c.FinishReason.Set() {
		f.Ends, f.Meaningful = true, true
	}
	for i := range c.Parts {
		p := &c.Parts[i]
		switch p.Kind {
		case GeminiPartCall:
			f.Calls = append(f.Calls, CodecCall{
				ID:   p.Call.ID.Text(),
				Name: p.Call.Name.Text(),
				Args: p.Call.Args.Raw,
				Key:  "part" + strconv.Itoa(p.Pos),
			})
			if p.Call.Args.IsNull() {
				f.Calls[len(f.Calls)-1].Args = nil
			}
			st.parts = append(st.parts, p.Pos)
		case GeminiPartText:
			f.Meaningful = true
			if !p.Thought {
				f.Text = p.Text.AppendText(f.Text)
			}
		default:
			f.Meaningful = true
		}
	}
	return nil
}

// EditFrame applies the decisions to the frame's one candidate: new args
// set in place, removed calls taken out (the thought signature moving to
// the first surviving part, RemoveGeminiCalls), then text as one more
// part.
func (geminiCodec) EditFrame(payload []byte, f *CodecFrame, edits []CallEdit, text string) ([]byte, error) {
	st, ok := f.State.(*geminiFrameState)
	if !ok {
		return nil, fmt.Errorf("gemini edit: frame not decoded by GeminiCodec: %w", ErrNotFound)
	}
	return frameEdits{
		api:   "gemini",
		calls: len(st.parts),
		place: func(call int) int { return st.parts[call] },
		setArgs: func(out []byte, pos int, args []byte) ([]byte, error) {
			out, err := setRaw(out, jpath("candidates", 0, "content", "parts", pos, "functionCall", "args"), args)
			if err != nil {
				return nil, fmt.Errorf("gemini edit: %w", err)
			}
			return out, nil
		},
		remove: func(out []byte, parts []int) ([]byte, error) { return RemoveGeminiCalls(out, 0, parts) },
		appendText: func(out []byte, text string) ([]byte, error) {
			if len(st.view.Candidates) == 0 {
				return GeminiTextFrame(text, ""), nil
			}
			return AppendGeminiText(out, 0, text)
		},
	}.apply(payload, edits, text)
}

// NewStream reads an alt=sse stream or the default JSON-array one, as the
// request asked.
func (geminiCodec) NewStream(req CodecRequest, maxFrame int) CodecStream {
	if r, ok := req.(*geminiCodecRequest); ok && !r.sse {
		return &geminiArrayStream{split: NewGeminiArraySplitter(maxFrame)}
	}
	return &geminiSSEStream{split: NewGeminiSSESplitter(maxFrame)}
}
