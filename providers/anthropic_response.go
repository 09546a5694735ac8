package providers

import (
	"fmt"
	"sort"

	"github.com/tidwall/gjson"
)

// MessagesResponse is a view of a non-streamed Messages response (a
// "message" object). Strings are copies; the view does not alias the body.
type MessagesResponse struct {
	ID    string
	Model string
	// StopReason is "" when null or absent.
	StopReason string
	Content    []MessagesBlock
}

// MessagesBlock is one element of content.
type MessagesBlock struct {
	// Pos is the block's position in content; the edits below address
	// blocks by it.
	Pos  int
	Type string
	// Text is a text block's text.
	Text string
	// ID, Name and Input (raw JSON, "" when absent) are a tool_use
	// block's.
	ID, Name, Input string
}

// Text returns the text of the text blocks, concatenated.
func (r *MessagesResponse) Text() string {
	var b []byte
	for _, c := range r.Content {
		if c.Type == "text" {
			b = append(b, c.Text...)
		}
	}
	return string(b)
}

// ToolUses returns the tool_use blocks, in order.
func (r *MessagesResponse) ToolUses() []MessagesBlock {
	var out []MessagesBlock
	for _, c := range r.Content {
		if c.Type == "tool_use" {
			out = append(out, c)
		}
	}
	return out
}

// ParseMessagesResponse reads a Messages response body.
func ParseMessagesResponse(body []byte) (*MessagesResponse, error) {
	const what = "messages response"
	if err := checkCanonical(body); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	root, err := parseBody(body, what)
	if err != nil {
		return nil, err
	}
	content := root.Get("content")
	if content.Exists() && !content.IsArray() {
		return nil, fmt.Errorf("%s: content is %s, not an array: %w", what, content.Type, ErrInvalidJSON)
	}
	r := &MessagesResponse{ID: root.Get("id").String(), Model: root.Get("model").String()}
	if s := root.Get("stop_reason"); s.Type == gjson.String {
		r.StopReason = s.Str
	}
	pos := 0
	content.ForEach(func(_, b gjson.Result) bool {
		blk := MessagesBlock{Pos: pos, Type: b.Get("type").String()}
		switch blk.Type {
		case "text":
			blk.Text = b.Get("text").String()
		case "tool_use":
			blk.ID, blk.Name, blk.Input = b.Get("id").String(), b.Get("name").String(), rawOrEmpty(b.Get("input"))
		}
		r.Content = append(r.Content, blk)
		pos++
		return true
	})
	return r, nil
}

// contentBlockPath validates body and returns "content.<pos>", failing with
// ErrNotFound when there is no such block.
func contentBlockPath(body []byte, pos int, what string) (string, error) {
	if _, err := parseBody(body, what); err != nil {
		return "", err
	}
	p := jpath("content", pos)
	if !gjson.GetBytes(body, p).IsObject() {
		return "", fmt.Errorf("%s: content block %d: %w", what, pos, ErrNotFound)
	}
	return p, nil
}

// RemoveMessagesBlocks returns a copy of body without the content blocks at
// the given positions.
func RemoveMessagesBlocks(body []byte, positions ...int) ([]byte, error) {
	const what = "remove blocks"
	if _, err := parseBody(body, what); err != nil {
		return nil, err
	}
	n := len(gjson.GetBytes(body, "content").Array())
	drop := map[int]bool{}
	for _, p := range positions {
		if p < 0 || p >= n {
			return nil, fmt.Errorf("%s: content has %d blocks, no position %d: %w", what, n, p, ErrNotFound)
		}
		drop[p] = true
	}
	order := make([]int, 0, len(drop))
	for p := range drop {
		order = append(order, p)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(order)))
	out := body
	var err error
	for _, p := range order {
		if out, err = deletePath(out, jpath("content", p)); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	return detach(out, body), nil
}

// SetMessagesToolInput returns a copy of body in which the tool_use block
// at pos has input, a JSON object, as its input.
func SetMessagesToolInput(body []byte, pos int, input []byte) ([]byte, error) {
	const what = "set tool input"
	p, err := contentBlockPath(body, pos, what)
	if err != nil {
		return nil, err
	}
	if !gjson.ValidBytes(input) {
		return nil, fmt.Errorf("%s: input: %w", what, ErrInvalidJSON)
	}
	out, err := setRaw(body, p+".input", input)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// AppendMessagesText returns a copy of body whose content ends with a
// text block holding text.
func AppendMessagesText(body []byte, text string) ([]byte, error) {
	const what = "append text block"
	root, err := parseBody(body, what)
	if err != nil {
		return nil, err
	}
	block := append(appendQuoted([]byte(`{"type":"text","text":`), text), '}')
	var out []byte
	if c := root.Get("content"); c.IsArray() {
		out, err = setRaw(body, "content.-1", block)
	} else {
		out, err = setRaw(body, "content", append(append([]byte{'['}, block...), ']'))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// AppendToMessagesTextBlock returns a copy of body in which the text block
// at pos ends with text: how hookgate adds its notes to the answer's last
// text. It fails with ErrNotFound when the block at pos is not a text
// block with a string text.
func AppendToMessagesTextBlock(body []byte, pos int, text string) ([]byte, error) {
	const what = "append to text block"
	p, err := contentBlockPath(body, pos, what)
	if err != nil {
		return nil, err
	}
	block := gjson.GetBytes(body, p)
	if block.Get("type").String() != "text" || block.Get("text").Type != gjson.String {
		return nil, fmt.Errorf("%s: content block %d is not a text block: %w", what, pos, ErrNotFound)
	}
	out, err := setRaw(body, p+".text", appendQuoted(nil, block.Get("text").Str+text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// SetMessagesResponseStopReason returns a copy of body with stop_reason set
// to reason (null when reason is "").
func SetMessagesResponseStopReason(body []byte, reason string) ([]byte, error) {
	const what = "set stop_reason"
	if _, err := parseBody(body, what); err != nil {
		return nil, err
	}
	out, err := setRaw(body, "stop_reason", appendJSONOrNull(nil, reason))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}
