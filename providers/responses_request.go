package providers

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// ResponsesRequest is a view of a POST /v1/responses request body. Strings
// are copies; the view does not alias the body.
type ResponsesRequest struct {
	Model      string
	Stream     bool
	Background bool
	// User is "user", or "safety_identifier" when user is not set.
	User string
	// PreviousResponseID continues a conversation the upstream stored.
	PreviousResponseID string
	// Conversation names a conversation object the upstream keeps (given
	// as its id or as {"id": ...}).
	Conversation string
	// Instructions is the instructions string; InstructionsState says what
	// the member held (absent, null, a string, or another form).
	Instructions      string
	InstructionsState FieldState
	// InputString reports an input given as one string: a single user
	// message, Input[0] with Pos InputStringPos.
	InputString bool
	// Input holds the input items, in order.
	Input []ResponsesInputItem
	// ToolTypes are the "type" of each element of tools, in order.
	ToolTypes []string
}

// InputStringPos is the Pos of the user message an input string makes.
const InputStringPos = -1

// ResponsesInputItem is one element of input.
type ResponsesInputItem struct {
	// Pos is the item's position in input (InputStringPos for the message
	// an input string makes).
	Pos int
	// Type is the item's type; "message" for an item that gives only a
	// role, as the API allows.
	Type string
	// Role and Text describe a message: Text is its string content, or its
	// input_text / output_text parts joined with "\n".
	Role, Text string
	// Kind, CallID, Name and Input describe a call (function_call or
	// custom_tool_call) the history carries; Input is its arguments or
	// input text.
	Kind                ResponsesCallKind
	CallID, Name, Input string
	// Output is the text of a call's output (function_call_output,
	// custom_tool_call_output): the string, or its text parts joined with
	// "\n". OutputKind is the kind of call it answers.
	Output     string
	OutputKind ResponsesCallKind
}

// IsOutput reports an item that carries a call's output.
func (it *ResponsesInputItem) IsOutput() bool { return it.OutputKind != NotACall }

// SystemText returns the instructions and the text of the system and
// developer messages of the input, joined with "\n\n".
func (r *ResponsesRequest) SystemText() string {
	var parts []string
	if r.Instructions != "" {
		parts = append(parts, r.Instructions)
	}
	for _, it := range r.Input {
		if it.Type == "message" && (it.Role == "system" || it.Role == "developer") {
			parts = append(parts, it.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// ParseResponsesRequest reads a Responses request. It fails with
// ErrInvalidJSON for a body that is not a JSON object, repeats a key, or
// has an input that is neither a string nor an array.
//
// Each object is read in one pass (json_doc.go); the values are those
// gjson's Get would give, oddities included (an input item that is not an
// object is an item of no type; tools given as an object are read by
// their member values, as gjson's ForEach hands them over).
func ParseResponsesRequest(body []byte) (*ResponsesRequest, error) {
	const what = "responses request"
	d, err := parseDoc(body, what)
	if err != nil {
		return nil, err
	}
	defer d.release()
	var top [10]span
	d.pick(d.root(), responsesRequestKeys, top[:])
	r := &ResponsesRequest{
		Model:              rawString(d.raw(top[0])),
		Stream:             rawBool(d.raw(top[1])),
		Background:         rawBool(d.raw(top[2])),
		User:               rawString(d.raw(top[3])),
		PreviousResponseID: rawString(d.raw(top[4])),
	}
	if r.User == "" {
		r.User = rawString(d.raw(top[5]))
	}
	switch c := d.raw(top[6]); {
	case c == nil:
	case c[0] == '"':
		r.Conversation = textOf(c)
	case c[0] == '{':
		r.Conversation = rawString(d.raw(d.member(top[6], "id")))
	}
	switch ins := d.raw(top[7]); {
	case ins == nil:
		r.InstructionsState = FieldAbsent
	case string(ins) == "null":
		r.InstructionsState = FieldNull
	case string(ins) == `""`:
		r.InstructionsState = FieldEmpty
	case ins[0] == '"':
		r.Instructions, r.InstructionsState = textOf(ins), FieldString
	default:
		r.InstructionsState = FieldOther
	}
	switch in := d.raw(top[8]); {
	case in == nil, string(in) == "null":
	case in[0] == '"':
		r.InputString = true
		r.Input = []ResponsesInputItem{{Pos: InputStringPos, Type: "message", Role: "user", Text: textOf(in)}}
	case in[0] == '[':
		var item [8]span // responsesItemKeys
		for it, pos := d.values(top[8]), 0; ; pos++ {
			v, ok := it.next()
			if !ok {
				break
			}
			d.pick(v, responsesItemKeys, item[:])
			r.Input = append(r.Input, d.inputItem(pos, &item))
		}
	default:
		return nil, fmt.Errorf("%s: input is %s, neither a string nor an array: %w", what, gjson.ParseBytes(in).Type, ErrInvalidJSON)
	}
	for it := d.values(top[9]); ; {
		t, ok := it.next()
		if !ok {
			break
		}
		r.ToolTypes = append(r.ToolTypes, rawString(d.raw(d.member(t, "type"))))
	}
	return r, nil
}

// The members ParseResponsesRequest reads, in the order of its arrays.
var (
	responsesRequestKeys = []string{"model", "stream", "background", "user", "previous_response_id", "safety_identifier", "conversation", "instructions", "input", "tools"}
	responsesItemKeys    = []string{"type", "role", "content", "call_id", "name", "arguments", "input", "output"}
)

// inputItem reads an input item from its members (responsesItemKeys).
func (d *jsonDoc) inputItem(pos int, m *[8]span) ResponsesInputItem {
	it := ResponsesInputItem{Pos: pos, Type: rawString(d.raw(m[0])), Role: rawString(d.raw(m[1]))}
	if it.Type == "" && it.Role != "" {
		it.Type = "message"
	}
	switch it.Type {
	case "message":
		it.Text = d.inputText(m[2])
	case "function_call", "custom_tool_call":
		it.Kind = ResponsesCallKindOf([]byte(it.Type))
		it.CallID, it.Name = rawString(d.raw(m[3])), rawString(d.raw(m[4]))
		in := m[5]
		if it.Kind == CustomToolCall {
			in = m[6]
		}
		it.Input = rawValueText(d.raw(in))
	case "function_call_output", "custom_tool_call_output":
		it.OutputKind = FunctionCall
		if it.Type == "custom_tool_call_output" {
			it.OutputKind = CustomToolCall
		}
		it.CallID = rawString(d.raw(m[3]))
		it.Output = d.inputText(m[7])
	}
	return it
}

// inputText reads a content or output member: a string, or an array of
// parts whose text parts (input_text, output_text, text) are joined with
// "\n"; "" for other forms.
func (d *jsonDoc) inputText(v span) string {
	text, _ := d.joinText(v, "\n", func(p span) (string, bool) {
		text, typ := d.textAndType(p)
		if t := (Field{Raw: typ}); t.Equal("input_text") || t.Equal("output_text") || t.Equal("text") {
			return textOf(text), true
		}
		return "", false
	})
	return text
}

// InjectInstructions returns a copy of body whose instructions carry text:
// set when there are none, otherwise joined to them with "\n\n", before
// them or (after) behind them. Instructions given as a list of items gain
// a developer message at that end.
func InjectInstructions(body []byte, text string, after bool) ([]byte, error) {
	const what = "inject instructions"
	root, err := parseBody(body, what)
	if err != nil {
		return nil, err
	}
	cur := root.Get("instructions")
	var out []byte
	switch {
	case !cur.Exists() || cur.Type == gjson.Null || (cur.Type == gjson.String && cur.Str == ""):
		out, err = setRaw(body, "instructions", appendQuoted(nil, text))
	case cur.Type == gjson.String && after:
		out, err = setRaw(body, "instructions", appendQuoted(nil, cur.Str+"\n\n"+text))
	case cur.Type == gjson.String:
		out, err = setRaw(body, "instructions", appendQuoted(nil, text+"\n\n"+cur.Str))
	case cur.IsArray():
		msg := append(appendQuoted([]byte(`{"role":"developer","content":`), text), '}')
		if after || len(cur.Array()) == 0 {
			out, err = setRaw(body, "instructions.-1", msg)
		} else {
			items := []byte{'['}
			items = append(append(items, msg...), ',')
			items = append(items, strings.TrimPrefix(strings.TrimSpace(cur.Raw), "[")...)
			out, err = setRaw(body, "instructions", items)
		}
	default:
		return nil, fmt.Errorf("%s: instructions is %s: %w", what, cur.Type, ErrInvalidJSON)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// ReplaceToolOutput returns a copy of body in which the output of every
// function_call_output and custom_tool_call_output item for callID is
// content. It fails with ErrNotFound when there is no such item.
func ReplaceToolOutput(body []byte, callID, content string) ([]byte, error) {
	const what = "replace tool output"
	root, err := parseBody(body, what)
	if err != nil {
		return nil, err
	}
	out := body
	n := 0
	for i, it := range root.Get("input").Array() {
		t := it.Get("type").String()
		if (t != "function_call_output" && t != "custom_tool_call_output") || it.Get("call_id").String() != callID {
			continue
		}
		if out, err = setRaw(out, jpath("input", i, "output"), appendQuoted(nil, content)); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: no output item for %q: %w", what, callID, ErrNotFound)
	}
	return detach(out, body), nil
}

// AppendToInputMessage returns a copy of body with text appended, as is,
// to the message at pos (InputStringPos for an input string): string
// content is extended, a list of parts gains an input_text part, missing
// or null content becomes text.
func AppendToInputMessage(body []byte, pos int, text string) ([]byte, error) {
	const what = "append to input message"
	root, err := parseBody(body, what)
	if err != nil {
		return nil, err
	}
	var out []byte
	if pos == InputStringPos {
		in := root.Get("input")
		if in.Type != gjson.String {
			return nil, fmt.Errorf("%s: input is not a string: %w", what, ErrNotFound)
		}
		out, err = setRaw(body, "input", appendQuoted(nil, in.Str+text))
	} else {
		p := jpath("input", pos)
		if !root.Get(p).IsObject() {
			return nil, fmt.Errorf("%s %d: %w", what, pos, ErrNotFound)
		}
		cur := root.Get(p + ".content")
		switch {
		case !cur.Exists() || cur.Type == gjson.Null:
			out, err = setRaw(body, p+".content", appendQuoted(nil, text))
		case cur.Type == gjson.String:
			out, err = setRaw(body, p+".content", appendQuoted(nil, cur.Str+text))
		case cur.IsArray():
			part := append(appendQuoted([]byte(`{"type":"input_text","text":`), text), '}')
			out, err = setRaw(body, p+".content.-1", part)
		default:
			return nil, fmt.Errorf("%s: content is %s, not text: %w", what, cur.Type, ErrInvalidJSON)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// ToolOutput is a call's output for AddToolOutputs.
type ToolOutput struct {
	Kind   ResponsesCallKind
	CallID string
	Output string
}

// AddToolOutputs returns a copy of body whose input starts with an output
// item (function_call_output or custom_tool_call_output) for each of
// outputs. An input string becomes a list: the outputs, then the user
// message it was.
func AddToolOutputs(body []byte, outputs []ToolOutput) ([]byte, error) {
	const what = "add tool outputs"
	root, err := parseBody(body, what)
	if err != nil {
		return nil, err
	}
	if len(outputs) == 0 {
		return detach(body, body), nil
	}
	items := []byte{'['}
	for i, o := range outputs {
		if i > 0 {
			items = append(items, ',')
		}
		items = appendQuoted(append(items, `{"type":`...), o.Kind.OutputType())
		items = appendQuoted(append(items, `,"call_id":`...), o.CallID)
		items = appendQuoted(append(items, `,"output":`...), o.Output)
		items = append(items, '}')
	}
	in := root.Get("input")
	switch {
	case in.Type == gjson.String:
		items = appendQuoted(append(items, `,{"role":"user","content":`...), in.Str)
		items = append(items, "}]"...)
	case in.IsArray() && len(in.Array()) > 0:
		items = append(append(items, ','), strings.TrimPrefix(strings.TrimSpace(in.Raw), "[")...)
	case !in.Exists() || in.Type == gjson.Null || in.IsArray():
		items = append(items, ']')
	default:
		return nil, fmt.Errorf("%s: input is %s: %w", what, in.Type, ErrInvalidJSON)
	}
	out, err := setRaw(body, "input", items)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}
