package providers

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// GeminiRequest is a view of a generateContent / streamGenerateContent
// request body. Strings are copies; the view does not alias the body.
type GeminiRequest struct {
	// System is the text of systemInstruction's text parts joined with
	// "\n"; SystemState is FieldAbsent or FieldNull without one, FieldOther
	// with one.
	System      string
	SystemState FieldState
	Contents    []GeminiContent
	// ToolNames are the names of tools[].functionDeclarations[], in order.
	ToolNames []string
	// ToolResults are the functionResponse parts, in order.
	ToolResults []GeminiToolResult
}

// GeminiContent is one element of contents.
type GeminiContent struct {
	Role string
	// Text is the text of the content's text parts joined with "\n";
	// HasText reports at least one text part (a user content made only of
	// functionResponse parts is not a prompt).
	Text    string
	HasText bool
	Calls   []GeminiHistoryCall
	Parts   int
}

// GeminiHistoryCall is a functionCall part of the history.
type GeminiHistoryCall struct {
	ID, Name string
	// Args is the args object's raw JSON ("" when absent).
	Args string
	// Content and Part are its position: contents[Content].parts[Part].
	Content, Part int
}

// GeminiToolResult is a functionResponse part and the call it answers.
type GeminiToolResult struct {
	ID, Name string
	// Response is the response object's raw JSON.
	Response      string
	Content, Part int
	// CallContent and CallPart are the answered call's position, -1 when
	// no call of the history matches: the call with the same id when the
	// result has one, else the call of the same name and the same rank
	// among that name's results in the nearest earlier model content.
	CallContent, CallPart int
}

// NewestUserText is the text of the newest user content that has text.
func (r *GeminiRequest) NewestUserText() string {
	for i := len(r.Contents) - 1; i >= 0; i-- {
		if c := r.Contents[i]; c.Role == "user" && c.HasText {
			return c.Text
		}
	}
	return ""
}

// FirstUserText is the text of the first user content that has text.
func (r *GeminiRequest) FirstUserText() string {
	for _, c := range r.Contents {
		if c.Role == "user" && c.HasText {
			return c.Text
		}
	}
	return ""
}

// ParseGeminiRequest reads a request body. It fails with ErrInvalidJSON
// for a body that is not a JSON object or whose contents is not an array,
// and with the canonical-form gate's errors (ErrDuplicateKey,
// ErrKeySpelling): Google's servers read proto names (system_instruction)
// as well as JSON names, so a variant could carry text or a result
// hookgate would not see.
func ParseGeminiRequest(body []byte) (*GeminiRequest, error) {
	const what = "gemini request"
	if err := checkGeminiCanonical(body); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, fmt.Errorf("%s: not a JSON object: %w", what, ErrInvalidJSON)
	}
	contents := root.Get("contents")
	if contents.Exists() && contents.Type != gjson.Null && !contents.IsArray() {
		return nil, fmt.Errorf("%s: contents is not an array: %w", what, ErrInvalidJSON)
	}
	r := &GeminiRequest{SystemState: FieldAbsent}
	if sys := root.Get("systemInstruction"); sys.Exists() {
		r.SystemState = FieldNull
		if sys.Type != gjson.Null {
			r.SystemState = FieldOther
			r.System, _ = geminiPartsText(sys.Get("parts"))
		}
	}
	for ci, c := range contents.Array() {
		gc := GeminiContent{Role: c.Get("role").String()}
		gc.Text, gc.HasText = geminiPartsText(c.Get("parts"))
		nameRank := map[string]int{}
		for pi, p := range c.Get("parts").Array() {
			gc.Parts++
			if fc := p.Get("functionCall"); fc.IsObject() {
				gc.Calls = append(gc.Calls, GeminiHistoryCall{ID: fc.Get("id").String(), Name: fc.Get("name").String(), Args: rawOrEmpty(fc.Get("args")), Content: ci, Part: pi})
			}
			if fr := p.Get("functionResponse"); fr.IsObject() {
				res := GeminiToolResult{ID: fr.Get("id").String(), Name: fr.Get("name").String(), Response: rawOrEmpty(fr.Get("response")), Content: ci, Part: pi, CallContent: -1, CallPart: -1}
				rank := nameRank[res.Name]
				nameRank[res.Name]++
				r.answer(&res, rank)
				r.ToolResults = append(r.ToolResults, res)
			}
		}
		r.Contents = append(r.Contents, gc)
	}
	for _, t := range root.Get("tools").Array() {
		for _, d := range t.Get("functionDeclarations").Array() {
			r.ToolNames = append(r.ToolNames, d.Get("name").String())
		}
	}
	return r, nil
}

// answer finds the call res answers among the contents read so far.
func (r *GeminiRequest) answer(res *GeminiToolResult, rank int) {
	if res.ID != "" {
		for i := len(r.Contents) - 1; i >= 0; i-- {
			for _, c := range r.Contents[i].Calls {
				if c.ID == res.ID {
					res.CallContent, res.CallPart = c.Content, c.Part
					return
				}
			}
		}
		return
	}
	for i := len(r.Contents) - 1; i >= 0; i-- {
		if r.Contents[i].Role != "model" || len(r.Contents[i].Calls) == 0 {
			continue
		}
		n := 0
		for _, c := range r.Contents[i].Calls {
			if c.Name == res.Name {
				if n == rank {
					res.CallContent, res.CallPart = c.Content, c.Part
					return
				}
				n++
			}
		}
		return
	}
}

// geminiPartsText joins the text parts' text with "\n".
func geminiPartsText(parts gjson.Result) (string, bool) {
	var texts []string
	has := false
	for _, p := range parts.Array() {
		if t := p.Get("text"); t.Type == gjson.String {
			texts = append(texts, t.Str)
			has = true
		}
	}
	return strings.Join(texts, "\n"), has
}

// InjectGeminiSystem returns a copy of body whose systemInstruction
// carries text as well: a text part first (after: last) of its parts, the
// other parts untouched. A missing or null systemInstruction becomes
// {"parts":[{"text":text}]}.
func InjectGeminiSystem(body []byte, text string, after bool) ([]byte, error) {
	const what = "inject gemini system instruction"
	if _, err := ParseGeminiRequest(body); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	part := appendGeminiTextPart(nil, text)
	sys := gjson.GetBytes(body, "systemInstruction")
	var (
		out []byte
		err error
	)
	switch {
	case !sys.Exists() || sys.Type == gjson.Null:
		out, err = setRaw(body, "systemInstruction", append(append([]byte(`{"parts":[`), part...), "]}"...))
	case !sys.IsObject():
		return nil, fmt.Errorf("%s: systemInstruction is %s: %w", what, sys.Type, ErrInvalidJSON)
	case sys.Get("parts").IsArray():
		out, err = setRaw(body, "systemInstruction.parts", spliceArray([]byte(sys.Get("parts").Raw), part, !after))
	case !sys.Get("parts").Exists() || sys.Get("parts").Type == gjson.Null:
		out, err = setRaw(body, "systemInstruction.parts", append(append([]byte{'['}, part...), ']'))
	default:
		return nil, fmt.Errorf("%s: systemInstruction.parts is not an array: %w", what, ErrInvalidJSON)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}

// ReplaceGeminiFunctionResponse returns a copy of body in which the
// functionResponse at contents[content].parts[part] has its response
// replaced by response (a JSON object, as Gemini requires); name and id
// are kept. It fails with ErrNotFound when there is no functionResponse
// there.
func ReplaceGeminiFunctionResponse(body []byte, content, part int, response []byte) ([]byte, error) {
	const what = "replace gemini function response"
	if _, err := ParseGeminiRequest(body); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !gjson.ValidBytes(response) || !gjson.ParseBytes(response).IsObject() {
		return nil, fmt.Errorf("%s: response is not a JSON object: %w", what, ErrInvalidJSON)
	}
	p := jpath("contents", content, "parts", part, "functionResponse")
	if !gjson.GetBytes(body, p).IsObject() {
		return nil, fmt.Errorf("%s: %s: %w", what, p, ErrNotFound)
	}
	out, err := setRaw(body, p+".response", response)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}
