package providers

import (
	"bytes"
	"errors"
	"fmt"
)

// Where a client reads a chat tool call, and what hookgate does with each.
//
// Streamed chunks (chat.completion.chunk):
//
//   - choices[].delta.tool_calls[].function.{name,arguments}: every client.
//     Held per call, assembled, judged by pre_tool_use, then emitted as it
//     came, re-encoded, or replaced by a note.
//   - choices[].delta.tool_calls[].custom.{name,input}: the shape of a
//     "custom" tool; openai-go's union reads it. The stream refuses it
//     (ErrUnjudgedCall): no provider streams it, and a custom call beside
//     a function one would be judged under the other's name.
//   - choices[].delta.tool_calls[].index: go-openai and openai-go collect
//     fragments by it. Only a plain non-negative integer (at most nine
//     digits) or null is read; 1.0, 1e0, -1, or a huge number refuses the
//     chunk (ErrBadIndex), never guessed at. choices[].index alike.
//   - choices[].delta.function_call: the legacy functions API, which
//     go-openai and openai-node still merge. Refused (ErrUnjudgedCall)
//     when it carries anything: hookgate does not hold the legacy shape.
//   - choices[].message: openai-node's ChatCompletionStream merges a
//     message member of a chunk's choice, and Writer mirrors each delta
//     there. Its tool_calls are allowed only when they are byte for byte
//     the delta's own tool_calls (then they are the call being held, and
//     go wherever the delta goes); any other tool_calls, or a
//     function_call, refuses the chunk (ErrUnjudgedCall).
//
// Plain responses (chat.completion), ParseChatResponse:
//
//   - choices[].message.tool_calls[].function.{name,arguments}: judged.
//   - choices[].message.tool_calls[].custom.{name,input}, type "custom":
//     judged under custom.name with arguments {"input": <input>}; an entry
//     carrying both function and custom is refused (ErrUnjudgedCall).
//   - choices[].message.function_call: refused when it carries anything.
//   - choices[].index and tool_calls[].index: read as for chunks.
//
// A refused chunk ends the stream with the route's error event; a refused
// plain body becomes a 502 in the OpenAI error shape.

// ErrUnjudgedCall: a chunk or body carries a tool call in a place or shape
// hookgate does not hold and judge, so it is not passed on.
var ErrUnjudgedCall = errors.New("a tool call in a shape hookgate does not judge")

// ErrBadIndex: an "index" that is not a plain non-negative integer. Clients
// read 1.0 or 1e0 as 1 and numbers past 2^53 as something else again, so
// hookgate does not guess which call a fragment belongs to.
var ErrBadIndex = errors.New("index is not a plain non-negative integer")

// readIndex reads an "index" member: absent or null gives (-1, nil); a plain
// integer of at most nine digits gives its value; anything else fails.
func readIndex(raw []byte) (int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return -1, nil
	}
	if n, ok := parseIndex(raw); ok {
		return n, nil
	}
	return -1, fmt.Errorf("index %.40q: %w", raw, ErrBadIndex)
}

// unjudged wraps ErrUnjudgedCall with where the call was found.
func unjudged(where string) error {
	return fmt.Errorf("%s: %w", where, ErrUnjudgedCall)
}
