package providers

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/tidwall/gjson"
)

// ChatResponse is a view of a non-streamed chat.completion body. Strings
// are copies; the view does not alias the body.
type ChatResponse struct {
	// ID is the body's "id" ("" when absent).
	ID      string
	Choices []ResponseChoice
	// HasUsage reports a usage member that is not null.
	HasUsage bool
}

// ResponseChoice is one element of choices.
type ResponseChoice struct {
	// Index is the choice's "index" (its position when missing); Pos its
	// position in the array.
	Index, Pos int
	Role       string
	// Content is message.content: the string, or the text of its parts
	// joined with "\n". ContentState says which form it had (FieldOther for
	// an array of parts).
	Content      string
	ContentState FieldState
	ToolCalls    []ResponseToolCall
	// FinishReason is "" when null or absent. Gemini's compatible endpoint,
	// Ollama and forced tool_choice answer "stop" even with tool calls:
	// judge ToolCalls, not this.
	FinishReason string
}

// ResponseToolCall is one element of message.tool_calls.
type ResponseToolCall struct {
	// Pos is the call's position in message.tool_calls; the edits below
	// address calls by it.
	Pos int
	// Index is the element's own "index" member (DeepSeek, OpenRouter add
	// one); -1 when absent.
	Index     int
	ID        string
	Type      string
	Name      string
	Arguments string
	// Custom marks a call of type "custom" (a free-form tool): Name is
	// custom.name and Arguments {"input": custom.input}, so hooks judge it
	// as JSON like any other call.
	Custom bool
}

// customArguments is the JSON object {"input": <the custom call's input>}.
func customArguments(input []byte) string {
	return string(appendQuoted([]byte(`{"input":`), rawValueText(input))) + "}"
}

// parseBody validates a body for the gjson-based views: valid JSON, an
// object, and no repeated keys (one pass, validateUnique).
func parseBody(body []byte, what string) (gjson.Result, error) {
	if err := checkBody(body, nil, what); err != nil {
		return gjson.Result{}, err
	}
	return gjson.ParseBytes(body), nil
}

// ParseChatResponse reads a chat.completion body. Leading whitespace (as
// OpenRouter sends while it waits) is fine. Like ParseChatRequest it reads
// each object in one pass, with the values gjson's Get would give.
func ParseChatResponse(body []byte) (*ChatResponse, error) {
	if err := checkCanonical(body); err != nil {
		return nil, fmt.Errorf("chat response: %w", err)
	}
	d, err := parseDoc(body, "chat response")
	if err != nil {
		return nil, err
	}
	defer d.release()
	var top [3]span
	d.pick(d.root(), responseKeys, top[:])
	usage := d.raw(top[2])
	r := &ChatResponse{ID: rawString(d.raw(top[0])), HasUsage: usage != nil && string(usage) != "null"}
	var c [3]span
	var m [4]span
	var t [5]span
	var f, cu [2]span
	for it, pos := d.values(top[1]), 0; ; pos++ {
		v, ok := it.next()
		if !ok {
			break
		}
		d.pick(v, choiceKeys, c[:])
		ch := ResponseChoice{Index: pos, Pos: pos}
		idx, err := readIndex(d.raw(c[0]))
		if err != nil {
			return nil, fmt.Errorf("chat response: choice %d: %w", pos, err)
		}
		if idx >= 0 {
			ch.Index = idx
		}
		d.pick(c[1], responseMessageKeys, m[:])
		if meaningful(d.raw(m[3])) {
			return nil, fmt.Errorf("chat response: choice %d: %w", pos, unjudged("message.function_call"))
		}
		ch.Role = rawString(d.raw(m[0]))
		ch.Content, ch.ContentState = d.contentText(m[1])
		for calls, k := d.values(m[2]), 0; ; k++ {
			tc, ok := calls.next()
			if !ok {
				break
			}
			d.pick(tc, responseCallKeys, t[:])
			d.pick(t[2], functionKeys, f[:])
			call := ResponseToolCall{Pos: k, Index: -1, ID: rawString(d.raw(t[0])), Type: rawString(d.raw(t[1])),
				Name: rawString(d.raw(f[0])), Arguments: rawValueText(d.raw(f[1]))}
			if call.Index, err = readIndex(d.raw(t[3])); err != nil {
				return nil, fmt.Errorf("chat response: choice %d, tool call %d: %w", pos, k, err)
			}
			if custom := d.raw(t[4]); meaningful(custom) || call.Type == "custom" {
				if meaningful(d.raw(t[2])) || call.Type != "custom" {
					return nil, fmt.Errorf("chat response: choice %d, tool call %d: %w", pos, k,
						unjudged(`a tool call that is not both of type "custom" and in the custom shape alone`))
				}
				d.pick(t[4], customKeys, cu[:])
				call.Custom = true
				call.Name = rawString(d.raw(cu[0]))
				call.Arguments = customArguments(d.raw(cu[1]))
			}
			ch.ToolCalls = append(ch.ToolCalls, call)
		}
		if fr := d.raw(c[2]); len(fr) > 0 && fr[0] == '"' {
			ch.FinishReason = textOf(fr)
		}
		r.Choices = append(r.Choices, ch)
	}
	return r, nil
}

// The members ParseChatResponse reads, in the order of its arrays.
var (
	responseKeys        = []string{"id", "choices", "usage"}
	choiceKeys          = []string{"index", "message", "finish_reason"}
	responseMessageKeys = []string{"role", "content", "tool_calls", "function_call"}
	responseCallKeys    = []string{"id", "type", "function", "index", "custom"}
	customKeys          = []string{"name", "input"}
)

// responseChoicePath returns "choices.<pos>" for the choice with the given
// index, after validating body.
func responseChoicePath(body []byte, choice int, what string) (string, error) {
	if _, err := parseBody(body, what); err != nil {
		return "", err
	}
	pos, _ := findChoice(body, choice)
	if pos < 0 {
		return "", fmt.Errorf("%s: choice %d: %w", what, choice, ErrNotFound)
	}
	return jpath("choices", pos), nil
}

// RemoveResponseToolCalls returns a copy of body without the tool calls at
// the given positions of the choice's message.tool_calls. Remaining calls
// that carry an "index" member are renumbered 0, 1, ...; when none remain
// the tool_calls member is removed (set finish_reason yourself, e.g. to
// "stop").
func RemoveResponseToolCalls(body []byte, choice int, positions ...int) ([]byte, error) {
	const what = "remove tool calls"
	cp, err := responseChoicePath(body, choice, what)
	if err != nil {
		return nil, err
	}
	tcPath := cp + ".message.tool_calls"
	n := len(gjson.GetBytes(body, tcPath).Array())
	drop := map[int]bool{}
	for _, p := range positions {
		if p < 0 || p >= n {
			return nil, fmt.Errorf("%s: choice %d has %d tool calls, no position %d: %w", what, choice, n, p, ErrNotFound)
		}
		drop[p] = true
	}
	order := make([]int, 0, len(drop))
	for p := range drop {
		order = append(order, p)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(order)))
	out := body
	if len(drop) == n && n > 0 {
		out, err = deletePath(out, tcPath)
	} else {
		for _, p := range order {
			if out, err = deletePath(out, jpath(tcPath, p)); err != nil {
				break
			}
		}
		if err == nil {
			out, err = renumberIndexes(out, tcPath)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// renumberIndexes sets the "index" member of each element that has one to
// the element's position.
func renumberIndexes(body []byte, arrPath string) ([]byte, error) {
	var err error
	for k, tc := range gjson.GetBytes(body, arrPath).Array() {
		if i := tc.Get("index"); i.Exists() && i.Raw != strconv.Itoa(k) {
			if body, err = setRaw(body, jpath(arrPath, k, "index"), []byte(strconv.Itoa(k))); err != nil {
				return nil, err
			}
		}
	}
	return body, nil
}

// SetResponseToolCallArguments returns a copy of body in which the tool
// call at position pos of the choice's message has arguments args.
func SetResponseToolCallArguments(body []byte, choice, pos int, args string) ([]byte, error) {
	const what = "set tool call arguments"
	cp, err := responseChoicePath(body, choice, what)
	if err != nil {
		return nil, err
	}
	p := jpath(cp+".message.tool_calls", pos)
	if !gjson.GetBytes(body, p).IsObject() {
		return nil, fmt.Errorf("%s: choice %d tool call %d: %w", what, choice, pos, ErrNotFound)
	}
	out, err := setRaw(body, p+".function.arguments", appendQuoted(nil, args))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// SetResponseCustomInput returns a copy of body whose custom tool call
// (choice, position in message.tool_calls) has custom.input set to input.
func SetResponseCustomInput(body []byte, choice, pos int, input string) ([]byte, error) {
	const what = "set custom tool call input"
	cp, err := responseChoicePath(body, choice, what)
	if err != nil {
		return nil, err
	}
	p := jpath(cp+".message.tool_calls", pos)
	if !gjson.GetBytes(body, p+".custom").IsObject() {
		return nil, fmt.Errorf("%s: choice %d tool call %d: %w", what, choice, pos, ErrNotFound)
	}
	out, err := setRaw(body, p+".custom.input", appendQuoted(nil, input))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// AppendResponseContent returns a copy of body with text appended to the
// choice's message.content: a null or missing content becomes text, a
// string is extended, an array of parts gains a text part.
func AppendResponseContent(body []byte, choice int, text string) ([]byte, error) {
	const what = "append content"
	cp, err := responseChoicePath(body, choice, what)
	if err != nil {
		return nil, err
	}
	out, err := appendToContent(body, cp+".message.content", text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// appendToContent appends text to the content member at p (see
// AppendResponseContent for the forms).
func appendToContent(body []byte, p, text string) ([]byte, error) {
	cur := gjson.GetBytes(body, p)
	switch {
	case !cur.Exists() || cur.Type == gjson.Null:
		return setRaw(body, p, appendQuoted(nil, text))
	case cur.Type == gjson.String:
		return setRaw(body, p, appendQuoted(nil, cur.Str+text))
	case cur.IsArray():
		part := append(appendQuoted([]byte(`{"type":"text","text":`), text), '}')
		return setRaw(body, p+".-1", part)
	default:
		return nil, fmt.Errorf("%s is %s, not text: %w", p, cur.Type, ErrInvalidJSON)
	}
}

// SetResponseFinishReason returns a copy of body with the choice's
// finish_reason set to reason (null when reason is "").
func SetResponseFinishReason(body []byte, choice int, reason string) ([]byte, error) {
	const what = "set finish_reason"
	cp, err := responseChoicePath(body, choice, what)
	if err != nil {
		return nil, err
	}
	out, err := setRaw(body, cp+".finish_reason", appendJSONOrNull(nil, reason))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}
