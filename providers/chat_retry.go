package providers

import (
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
)

// AppendToolRound returns a copy of a chat request body with one more
// round of the agent loop at the end of messages: the assistant message
// that made calls (with content, null when empty), and one tool message per
// call with its result. hookgate uses it to tell the model that its calls
// were blocked before asking again (on_block: retry).
func AppendToolRound(body []byte, content string, calls []ToolCallOut, results []string) ([]byte, error) {
	const what = "append tool round"
	if len(calls) != len(results) {
		return nil, fmt.Errorf("%s: %d calls but %d results", what, len(calls), len(results))
	}
	if _, err := parseBody(body, what); err != nil {
		return nil, err
	}
	if !gjson.GetBytes(body, "messages").IsArray() {
		return nil, fmt.Errorf("%s: no messages array: %w", what, ErrInvalidJSON)
	}
	msg := []byte(`{"role":"assistant","content":`)
	if content == "" {
		msg = append(msg, "null"...)
	} else {
		msg = appendQuoted(msg, content)
	}
	msg = append(msg, `,"tool_calls":[`...)
	for i, c := range calls {
		if i > 0 {
			msg = append(msg, ',')
		}
		msg = append(msg, `{"id":`...)
		msg = appendQuoted(msg, c.ID)
		msg = append(msg, `,"type":"function","function":{"name":`...)
		msg = appendQuoted(msg, c.Name)
		msg = append(msg, `,"arguments":`...)
		msg = appendQuoted(msg, c.Arguments)
		msg = append(msg, "}}"...)
	}
	msg = append(msg, "]}"...)
	out, err := setRaw(body, "messages.-1", msg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	for i, c := range calls {
		tool := appendQuoted([]byte(`{"role":"tool","tool_call_id":`), c.ID)
		tool = append(appendQuoted(append(tool, `,"content":`...), results[i]), '}')
		if out, err = setRaw(out, "messages.-1", tool); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	return detach(out, body), nil
}

// usageCounters are the usage members that add up across requests.
var usageCounters = []string{"prompt_tokens", "completion_tokens", "total_tokens"}

// AddUsage returns a copy of a chunk or response body whose usage counters
// include prior's (a usage object of an earlier request), so that a
// response hookgate continued after a retry reports what it all cost.
// A body without usage is returned unchanged.
func AddUsage(body, prior []byte) ([]byte, error) {
	u := gjson.GetBytes(body, "usage")
	if !u.IsObject() || len(prior) == 0 {
		return body, nil
	}
	p := gjson.ParseBytes(prior)
	out := body
	var err error
	for _, k := range usageCounters {
		cur := u.Get(k)
		if cur.Type != gjson.Number {
			continue
		}
		sum := cur.Int() + p.Get(k).Int()
		if out, err = setRaw(out, "usage."+k, strconv.AppendInt(nil, sum, 10)); err != nil {
			return nil, fmt.Errorf("add usage: %w", err)
		}
	}
	return detach(out, body), nil
}

// SumUsage adds two usage objects' counters into a new usage object.
func SumUsage(a, b []byte) []byte {
	if len(a) == 0 {
		return append([]byte(nil), b...)
	}
	if len(b) == 0 {
		return append([]byte(nil), a...)
	}
	out := []byte{'{'}
	ga, gb := gjson.ParseBytes(a), gjson.ParseBytes(b)
	for i, k := range usageCounters {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendQuoted(out, k)
		out = append(out, ':')
		out = strconv.AppendInt(out, ga.Get(k).Int()+gb.Get(k).Int(), 10)
	}
	return append(out, '}')
}

// SetID returns a copy of a chunk or response body whose top-level id is
// id: a continuation after a retry keeps the response's first id.
func SetID(body []byte, id string) ([]byte, error) {
	if gjson.GetBytes(body, "id").String() == id {
		return body, nil
	}
	out, err := setRaw(body, "id", appendQuoted(nil, id))
	if err != nil {
		return nil, fmt.Errorf("set id: %w", err)
	}
	return detach(out, body), nil
}
