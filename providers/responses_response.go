package providers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// ResponsesOutput says where a response object sits in a document: a
// non-streamed response body is the response, a lifecycle event
// (response.completed, .incomplete, .failed) carries it under "response".
type ResponsesOutput string

// The two places.
const (
	PlainOutput ResponsesOutput = "output"
	EventOutput ResponsesOutput = "response.output"
)

func (at ResponsesOutput) object() string {
	if at == EventOutput {
		return "response"
	}
	return ""
}

// ResponsesResponse is a view of a Responses API response object. Strings
// are copies; the view does not alias the document.
type ResponsesResponse struct {
	ID, Model, Status string
	// Output holds the output items, in order.
	Output []ResponsesOutputItem
	// Text is the text of every output_text part of the message items, in
	// order, joined as the SDKs' output_text joins it (without separator).
	Text string
}

// ResponsesOutputItem is one element of output.
type ResponsesOutputItem struct {
	// Pos is the item's position in output; the edits address items by it.
	Pos  int
	Type string
	Kind ResponsesCallKind
	ID   string
	// CallID, Name and Input describe a call: Input is the arguments of a
	// function call (as sent: a string holding JSON), or the input of a
	// custom tool call. An object sent where the string belongs is kept as
	// its JSON text.
	CallID, Name, Input string
	// Text is a message item's output_text, its parts joined.
	Text string
	// LastTextPart is the position in a message item's content of its last
	// output_text part, -1 when it has none (or is no message).
	LastTextPart int
}

// Calls returns the items that are calls the agent runs.
func (r *ResponsesResponse) Calls() []ResponsesOutputItem {
	var out []ResponsesOutputItem
	for _, it := range r.Output {
		if it.Kind != NotACall {
			out = append(out, it)
		}
	}
	return out
}

// ParseResponsesResponse reads a non-streamed response body.
func ParseResponsesResponse(body []byte) (*ResponsesResponse, error) {
	if err := checkCanonical(body); err != nil {
		return nil, fmt.Errorf("responses response: %w", err)
	}
	return ReadResponsesOutput(body, PlainOutput)
}

// ReadResponsesOutput reads the response object at the given place. It
// fails with ErrInvalidJSON for a document that is not a JSON object,
// repeats a key, or has an output member that is not an array.
func ReadResponsesOutput(doc []byte, at ResponsesOutput) (*ResponsesResponse, error) {
	root, err := parseBody(doc, "responses output")
	if err != nil {
		return nil, err
	}
	obj := root
	if p := at.object(); p != "" {
		obj = root.Get(p)
	}
	out := obj.Get("output")
	if out.Exists() && out.Type != gjson.Null && !out.IsArray() {
		return nil, fmt.Errorf("responses output: output is %s, not an array: %w", out.Type, ErrInvalidJSON)
	}
	r := &ResponsesResponse{ID: obj.Get("id").String(), Model: obj.Get("model").String(), Status: obj.Get("status").String()}
	var text strings.Builder
	pos := 0
	out.ForEach(func(_, item gjson.Result) bool {
		it := ResponsesOutputItem{Pos: pos, Type: item.Get("type").String(), ID: item.Get("id").String(), LastTextPart: -1}
		it.Kind = ResponsesCallKindOf([]byte(it.Type))
		if it.Kind != NotACall {
			it.CallID, it.Name = item.Get("call_id").String(), item.Get("name").String()
			if v := item.Get(it.Kind.Member()); v.Type == gjson.String {
				it.Input = v.Str
			} else if v.Exists() && v.Type != gjson.Null {
				it.Input = v.Raw
			}
		}
		if it.Type == "message" {
			var parts []string
			k := 0
			item.Get("content").ForEach(func(_, p gjson.Result) bool {
				if p.Get("type").Str == "output_text" {
					parts = append(parts, p.Get("text").Str)
					it.LastTextPart = k
				}
				k++
				return true
			})
			it.Text = strings.Join(parts, "")
			text.WriteString(it.Text)
		}
		r.Output = append(r.Output, it)
		pos++
		return true
	})
	r.Text = text.String()
	return r, nil
}

// replaceResponsesOutputItem returns a copy of doc whose output item at pos
// is item (a JSON object).
func replaceResponsesOutputItem(doc []byte, at ResponsesOutput, pos int, item []byte) ([]byte, error) {
	const what = "replace output item"
	p, err := outputItemPath(doc, at, pos, what)
	if err != nil {
		return nil, err
	}
	out, err := setRaw(doc, p, item)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, doc), nil
}

// SetResponsesOutputInput returns a copy of doc whose call item at pos
// carries text as its input ("arguments" or "input", by kind).
func SetResponsesOutputInput(doc []byte, at ResponsesOutput, pos int, kind ResponsesCallKind, text string) ([]byte, error) {
	const what = "set output item input"
	p, err := outputItemPath(doc, at, pos, what)
	if err != nil {
		return nil, err
	}
	out, err := setRaw(doc, p+"."+kind.Member(), appendQuoted(nil, text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, doc), nil
}

// AppendResponsesOutputItem returns a copy of doc with item added at the
// end of output (created when missing or null).
func AppendResponsesOutputItem(doc []byte, at ResponsesOutput, item []byte) ([]byte, error) {
	const what = "append output item"
	if _, err := parseBody(doc, what); err != nil {
		return nil, err
	}
	p := string(at)
	var out []byte
	var err error
	if gjson.GetBytes(doc, p).IsArray() {
		out, err = setRaw(doc, p+".-1", item)
	} else {
		out, err = setRaw(doc, p, append(append([]byte{'['}, item...), ']'))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, doc), nil
}

// RemoveResponsesOutputItems returns a copy of doc without the output
// items at the given positions: the items after them move up.
func RemoveResponsesOutputItems(doc []byte, at ResponsesOutput, positions ...int) ([]byte, error) {
	const what = "remove output items"
	if _, err := parseBody(doc, what); err != nil {
		return nil, err
	}
	order := append([]int(nil), positions...)
	sort.Sort(sort.Reverse(sort.IntSlice(order)))
	out := doc
	var err error
	for i, pos := range order {
		if i > 0 && pos == order[i-1] {
			continue
		}
		p := jpath(string(at), pos)
		if !gjson.GetBytes(out, p).IsObject() {
			return nil, fmt.Errorf("%s: %s: %w", what, p, ErrNotFound)
		}
		if out, err = deletePath(out, p); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	return detach(out, doc), nil
}

// AppendToResponsesOutputText returns a copy of doc in which the text of
// the part at contentIndex of the message item at pos ends with text, and
// so does the response's output_text, where the document carries one (an
// SDK's convenience member some servers send too).
func AppendToResponsesOutputText(doc []byte, at ResponsesOutput, pos, contentIndex int, text string) ([]byte, error) {
	const what = "append to output text"
	p, err := outputItemPath(doc, at, pos, what)
	if err != nil {
		return nil, err
	}
	out, err := appendToString(doc, jpath(p+".content", contentIndex, "text"), text, what)
	if err != nil {
		return nil, err
	}
	whole := "output_text"
	if o := at.object(); o != "" {
		whole = o + ".output_text"
	}
	if gjson.GetBytes(out, whole).Type == gjson.String {
		if out, err = appendToString(out, whole, text, what); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func outputItemPath(doc []byte, at ResponsesOutput, pos int, what string) (string, error) {
	if _, err := parseBody(doc, what); err != nil {
		return "", err
	}
	p := jpath(string(at), pos)
	if !gjson.GetBytes(doc, p).IsObject() {
		return "", fmt.Errorf("%s: %s: %w", what, p, ErrNotFound)
	}
	return p, nil
}
