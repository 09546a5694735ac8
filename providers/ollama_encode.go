package providers

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Edits of Ollama /api/chat response lines (or whole bodies) for
// hookgate's decisions. Each takes a line that OllamaLine.Decode accepted,
// without its '\n', returns a copy (nothing it returns aliases its input)
// that keeps the bytes of everything it does not edit; the stream writer
// ends each line with '\n'. The constructors ending in Line return whole
// lines, '\n' included.

// RemoveOllamaCalls returns a copy of line without the calls at the
// positions in remove (OllamaCall.Pos). The calls kept keep their bytes,
// unless firstIndex >= 0: then each kept call that carries a
// function.index is renumbered from firstIndex, so that a client placing
// calls by index finds no hole. When no call survives, tool_calls is
// deleted (an empty array is truthy to JavaScript agents). It fails with
// ErrNotFound when a position does not exist.
func RemoveOllamaCalls(line []byte, remove []int, firstIndex int) ([]byte, error) {
	const what = "remove ollama calls"
	var l OllamaLine
	if err := l.Decode(line); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	for _, r := range remove {
		if r < 0 || r >= len(l.Calls) {
			return nil, fmt.Errorf("%s: call %d: %w", what, r, ErrNotFound)
		}
	}
	out := []byte{'['}
	kept := 0
	for _, c := range l.Calls {
		if slices.Contains(remove, c.Pos) {
			continue
		}
		raw := c.Raw
		if firstIndex >= 0 && c.Index >= 0 {
			var err error
			if raw, err = setRaw(raw, "function.index", strconv.AppendInt(nil, int64(firstIndex+kept), 10)); err != nil {
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
	var (
		res []byte
		err error
	)
	if kept == 0 {
		res, err = deletePath(line, "message.tool_calls")
	} else {
		res, err = setRaw(line, "message.tool_calls", out)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(res, line), nil
}

// SetOllamaCallArguments returns a copy of line whose call at position
// pos has arguments (a JSON object) in place of its own.
func SetOllamaCallArguments(line []byte, pos int, arguments []byte) ([]byte, error) {
	const what = "set ollama call arguments"
	var l OllamaLine
	if err := l.Decode(line); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if pos < 0 || pos >= len(l.Calls) {
		return nil, fmt.Errorf("%s: call %d: %w", what, pos, ErrNotFound)
	}
	if i := skipSpace(arguments, 0); i >= len(arguments) || arguments[i] != '{' || validateUnique(arguments, nil) != nil {
		return nil, fmt.Errorf("%s: arguments are not a JSON object: %w", what, ErrInvalidJSON)
	}
	res, err := setRaw(line, jpath("message", "tool_calls", pos, "function", "arguments"), arguments)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(res, line), nil
}

// AppendOllamaText returns a copy of line whose message.content ends with
// text as well: a note or a disclaimer. A line without a message gains
// {"role":"assistant","content":text}.
func AppendOllamaText(line []byte, text string) ([]byte, error) {
	const what = "append ollama text"
	var l OllamaLine
	if err := l.Decode(line); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var (
		res []byte
		err error
	)
	if l.HasMessage {
		content := appendQuoted(nil, l.Content.Text()+text)
		res, err = setRaw(line, "message.content", content)
	} else {
		res, err = setRaw(line, "message", appendOllamaMessage(nil, text))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(res, line), nil
}

func appendOllamaMessage(dst []byte, text string) []byte {
	dst = append(dst, `{"role":"assistant","content":`...)
	dst = appendQuoted(dst, text)
	return append(dst, '}')
}

// appendOllamaHead appends `{"model":...,"created_at":...,"message":{...}`
// (no closing brace). createdAt is the upstream's own stamp when known;
// empty is now: the Go client fails on a created_at that is not a time.
func appendOllamaHead(dst []byte, model, createdAt, text string) []byte {
	if createdAt == "" {
		createdAt = time.Now().UTC().Format(time.RFC3339Nano)
	}
	dst = append(dst, `{"model":`...)
	dst = appendQuoted(dst, model)
	dst = append(dst, `,"created_at":`...)
	dst = appendQuoted(dst, createdAt)
	dst = append(dst, `,"message":`...)
	return appendOllamaMessage(dst, text)
}

// OllamaTextLine is a stream line whose message is text alone, not done:
// a block note or a disclaimer of its own.
func OllamaTextLine(model, createdAt, text string) []byte {
	return append(appendOllamaHead(nil, model, createdAt, text), `,"done":false}`+"\n"...)
}

// OllamaDoneLine is the line that ends an answer: an empty message, done,
// with doneReason ("stop") when not empty.
func OllamaDoneLine(model, createdAt, doneReason string) []byte {
	b := append(appendOllamaHead(nil, model, createdAt, ""), `,"done":true`...)
	if doneReason != "" {
		b = append(b, `,"done_reason":`...)
		b = appendQuoted(b, doneReason)
	}
	return append(b, "}\n"...)
}

// OllamaAnswerBody is a whole non-streamed /api/chat response whose
// message is text, done with done_reason "stop".
func OllamaAnswerBody(model, createdAt, text string) []byte {
	return append(appendOllamaHead(nil, model, createdAt, text), `,"done":true,"done_reason":"stop"}`...)
}

// AppendOllamaErrorBody appends Ollama's error shape, {"error":"message"}:
// the body of an error response, which the Go client reads as a
// StatusError and ollama-js throws.
func AppendOllamaErrorBody(dst []byte, message string) []byte {
	dst = append(dst, `{"error":`...)
	dst = appendQuoted(dst, message)
	return append(dst, '}')
}

// OllamaErrorBody is AppendOllamaErrorBody into a new slice.
func OllamaErrorBody(message string) []byte { return AppendOllamaErrorBody(nil, message) }

// OllamaErrorLine is the error body as a stream line, '\n' included: how
// Ollama ends a stream that failed after its status was sent. The Go
// client returns it as an error.
func OllamaErrorLine(message string) []byte {
	return append(AppendOllamaErrorBody(nil, message), '\n')
}
