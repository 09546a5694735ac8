package providers

import (
	"fmt"
	"slices"
	"strconv"
)

// Edits of Gemini response frames for hookgate's decisions. Each takes a
// frame that GeminiFrame.Decode accepted, returns a copy (nothing it
// returns aliases its input), and keeps the bytes of everything it does
// not edit.

// RemoveGeminiCalls returns a copy of frame in which the candidate at
// position cand has the parts at the positions in remove (functionCall
// parts, as GeminiPart.Pos) taken out. Gemini signs only the first of
// parallel calls (thoughtSignature) and wants the signature back on the
// first part of the turn: when a removed part carries one and the first
// surviving part carries none, the signature moves there. When no part
// survives, the parts array is left empty and the signature is dropped
// (the caller adds a note part, or replaces the frame). It fails with
// ErrNotFound when the candidate or a position does not exist.
func RemoveGeminiCalls(frame []byte, cand int, remove []int) ([]byte, error) {
	const what = "remove gemini calls"
	var f GeminiFrame
	if err := f.Decode(frame); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if cand < 0 || cand >= len(f.Candidates) {
		return nil, fmt.Errorf("%s: candidate %d: %w", what, cand, ErrNotFound)
	}
	parts := f.Candidates[cand].Parts
	for _, r := range remove {
		if r < 0 || r >= len(parts) {
			return nil, fmt.Errorf("%s: part %d: %w", what, r, ErrNotFound)
		}
	}
	var signature []byte
	for _, p := range parts {
		if signature == nil && slices.Contains(remove, p.Pos) && p.ThoughtSignature.Set() {
			signature = p.ThoughtSignature.Raw
		}
	}
	out := []byte{'['}
	kept := 0
	for _, p := range parts {
		if slices.Contains(remove, p.Pos) {
			continue
		}
		raw := p.Raw
		if kept == 0 && signature != nil && !p.ThoughtSignature.Set() {
			var err error
			if raw, err = setRaw(raw, "thoughtSignature", signature); err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
		}
		if kept > 0 {
			out = append(out, ',')
		}
		out = append(out, raw...)
		kept++
	}
	out = append(out, ']')
	res, err := setRaw(frame, jpath("candidates", cand, "content", "parts"), out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(res, frame), nil
}

// AppendGeminiText returns a copy of frame whose candidate at position
// cand ends with one more part, {"text": text}: a note or a disclaimer. A
// candidate without content gains {"role":"model","parts":[...]}. It
// fails with ErrNotFound when there is no such candidate.
func AppendGeminiText(frame []byte, cand int, text string) ([]byte, error) {
	const what = "append gemini text"
	var f GeminiFrame
	if err := f.Decode(frame); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if cand < 0 || cand >= len(f.Candidates) {
		return nil, fmt.Errorf("%s: candidate %d: %w", what, cand, ErrNotFound)
	}
	part := appendGeminiTextPart(nil, text)
	c := f.Candidates[cand]
	var (
		res []byte
		err error
	)
	if c.content != nil {
		arr := []byte{'['}
		for i, p := range c.Parts {
			if i > 0 {
				arr = append(arr, ',')
			}
			arr = append(arr, p.Raw...)
		}
		if len(c.Parts) > 0 {
			arr = append(arr, ',')
		}
		arr = append(append(arr, part...), ']')
		res, err = setRaw(frame, jpath("candidates", cand, "content", "parts"), arr)
	} else {
		content := append(append([]byte(`{"role":"model","parts":[`), part...), "]}"...)
		res, err = setRaw(frame, jpath("candidates", cand, "content"), content)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(res, frame), nil
}

func appendGeminiTextPart(dst []byte, text string) []byte {
	dst = append(dst, `{"text":`...)
	dst = appendQuoted(dst, text)
	return append(dst, '}')
}

// GeminiTextFrame is a whole GenerateContentResponse of one candidate
// (index 0) whose content is one text part: a block note when nothing of
// a frame is left. finishReason ("STOP") is left out when empty.
func GeminiTextFrame(text, finishReason string) []byte {
	b := []byte(`{"candidates":[{"content":{"role":"model","parts":[`)
	b = appendGeminiTextPart(b, text)
	b = append(b, "]}"...)
	if finishReason != "" {
		b = append(b, `,"finishReason":`...)
		b = appendQuoted(b, finishReason)
	}
	return append(b, `,"index":0}]}`...)
}

// AppendGeminiErrorBody appends Gemini's error shape,
// {"error":{"code":N,"message":"...","status":"..."}}: a whole response
// body, or (as an alt=sse data payload) an error in a stream, which
// genai-go yields as an APIError. status is GeminiErrorStatus(code) when
// empty.
func AppendGeminiErrorBody(dst []byte, code int, message, status string) []byte {
	if status == "" {
		status = GeminiErrorStatus(code)
	}
	dst = append(dst, `{"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(code), 10)
	dst = append(dst, `,"message":`...)
	dst = appendQuoted(dst, message)
	dst = append(dst, `,"status":`...)
	dst = appendQuoted(dst, status)
	return append(dst, "}}"...)
}

// GeminiErrorBody is AppendGeminiErrorBody into a new slice.
func GeminiErrorBody(code int, message, status string) []byte {
	return AppendGeminiErrorBody(nil, code, message, status)
}

// GeminiErrorStatus is the google.rpc status name Google's APIs send with
// an HTTP status.
func GeminiErrorStatus(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 409:
		return "ABORTED"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case 501:
		return "UNIMPLEMENTED"
	case 503:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	default:
		if code >= 400 && code < 500 {
			return "FAILED_PRECONDITION"
		}
		return "INTERNAL"
	}
}
