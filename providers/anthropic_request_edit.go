package providers

import (
	"fmt"

	"github.com/tidwall/gjson"
)

// Edits of Messages request bodies, for the context hooks add. Each returns
// a copy; everything it does not edit keeps its bytes, so the agent's
// cache_control markers stay where the agent put them.

// InjectMessagesSystem returns a copy of body whose system prompt carries
// text as well. A missing or null system becomes text. A string system is
// extended: text, a blank line, then the agent's prompt (after: the other
// way round). A list of blocks gains a text block, first or (after) last,
// and its blocks are left untouched, cache_control included.
func InjectMessagesSystem(body []byte, text string, after bool) ([]byte, error) {
	const what = "inject system text"
	root, err := parseBody(body, what)
	if err != nil {
		return nil, err
	}
	sys := root.Get("system")
	var val []byte
	switch {
	case !sys.Exists() || sys.Type == gjson.Null || (sys.Type == gjson.String && sys.Str == ""):
		val = appendQuoted(nil, text)
	case sys.Type == gjson.String && after:
		val = appendQuoted(nil, sys.Str+"\n\n"+text)
	case sys.Type == gjson.String:
		val = appendQuoted(nil, text+"\n\n"+sys.Str)
	case sys.IsArray():
		block := append(appendQuoted([]byte(`{"type":"text","text":`), text), '}')
		val = spliceArray([]byte(sys.Raw), block, !after)
	default:
		return nil, fmt.Errorf("%s: system is %s: %w", what, sys.Type, ErrInvalidJSON)
	}
	out, err := setRaw(body, "system", val)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// spliceArray returns the JSON array arr with elem added first or last; the
// other elements keep their bytes.
func spliceArray(arr, elem []byte, first bool) []byte {
	out := []byte{'['}
	if first {
		out = append(out, elem...)
	}
	it, _ := iterArray(arr)
	n := 0
	for v, ok := it.next(); ok; v, ok = it.next() {
		if n > 0 || first {
			out = append(out, ',')
		}
		out = append(out, v...)
		n++
	}
	if !first {
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, elem...)
	}
	return append(out, ']')
}

// ReplaceMessagesToolResult returns a copy of body in which every
// tool_result block for the call toolUseID has its content replaced by the
// string content (is_error and other members are kept). It fails with
// ErrNotFound when there is no such block.
func ReplaceMessagesToolResult(body []byte, toolUseID, content string) ([]byte, error) {
	const what = "replace tool result"
	root, err := parseBody(body, what)
	if err != nil {
		return nil, err
	}
	out := body
	n := 0
	for i, m := range root.Get("messages").Array() {
		c := m.Get("content")
		if !c.IsArray() {
			continue
		}
		for j, b := range c.Array() {
			if b.Get("type").String() != "tool_result" || b.Get("tool_use_id").String() != toolUseID {
				continue
			}
			if out, err = setRaw(out, jpath("messages", i, "content", j, "content"), appendQuoted(nil, content)); err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
			n++
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: no tool_result for %q: %w", what, toolUseID, ErrNotFound)
	}
	return detach(out, body), nil
}

// AppendToMessagesMessage returns a copy of body with text appended, as is,
// to messages[pos] (which must exist): a string content is extended, a list
// of blocks gains a text block at its end, a null or missing content
// becomes text.
func AppendToMessagesMessage(body []byte, pos int, text string) ([]byte, error) {
	const what = "append to message"
	if _, err := parseBody(body, what); err != nil {
		return nil, err
	}
	if !gjson.GetBytes(body, jpath("messages", pos)).IsObject() {
		return nil, fmt.Errorf("%s %d: %w", what, pos, ErrNotFound)
	}
	out, err := appendToContent(body, jpath("messages", pos, "content"), text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}
