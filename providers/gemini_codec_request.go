package providers

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// geminiCodecRequest is a generateContent or streamGenerateContent
// request read by GeminiCodec: the model from the path, the stream's form
// from the method and alt.
type geminiCodecRequest struct {
	view       *GeminiRequest
	model      string
	stream     bool
	sse        bool
	structured bool
}

// ParseRequest reads the request body (ParseGeminiRequest is its gate)
// and the route (in any case): ".../models/{model}:streamGenerateContent" streams, as
// an alt=sse stream when the query says so and as a JSON array otherwise.
// The route matched the query already: alt is there at most once, spelled
// exactly.
func (geminiCodec) ParseRequest(path, query string, body []byte) (CodecRequest, error) {
	view, err := ParseGeminiRequest(body)
	if err != nil {
		return nil, err
	}
	r := &geminiCodecRequest{view: view, structured: geminiStructured(body)}
	last := path[strings.LastIndexByte(path, '/')+1:]
	model, method, _ := strings.Cut(last, ":")
	r.model = model
	// The proxy hands the route in lower case; the router matched it as
	// spelled.
	r.stream = strings.EqualFold(method, "streamGenerateContent")
	if r.stream {
		q, err := url.ParseQuery(query)
		if err != nil {
			return nil, fmt.Errorf("gemini request query: %w", ErrInvalidJSON)
		}
		r.sse = q.Get("alt") == "sse"
	}
	return r, nil
}

func (r *geminiCodecRequest) Model() string         { return r.model }
func (r *geminiCodecRequest) User() string          { return "" }
func (r *geminiCodecRequest) System() string        { return r.view.System }
func (r *geminiCodecRequest) FirstUserText() string { return r.view.FirstUserText() }
func (r *geminiCodecRequest) Streamed() bool        { return r.stream }
func (r *geminiCodecRequest) Structured() bool      { return r.structured }

// geminiStructured reports a generationConfig asking for a structured
// answer: a responseMimeType other than text/plain, or a response schema.
func geminiStructured(body []byte) bool {
	gc := gjson.GetBytes(body, "generationConfig")
	if mt := gc.Get("responseMimeType").String(); mt != "" && mt != "text/plain" {
		return true
	}
	return gc.Get("responseSchema").Exists() || gc.Get("responseJsonSchema").Exists()
}

// geminiCallKey is the id a Turn gives a call of the history: its own id,
// or, for a call without one (Gemini's calls need none), its position.
func geminiCallKey(id string, content, part int) string {
	if id != "" {
		return id
	}
	return "contents." + strconv.Itoa(content) + ".parts." + strconv.Itoa(part)
}

// key is the id a Turn gives the result: the call's key (its own id, or
// the answered call's position), or its own position when no call of the
// history matches it.
func (res *GeminiToolResult) key() string {
	switch {
	case res.ID != "":
		return res.ID
	case res.CallContent >= 0:
		return geminiCallKey("", res.CallContent, res.CallPart)
	default:
		return geminiCallKey("", res.Content, res.Part)
	}
}

// Turn reads the history: a "model" content means the session has begun;
// user contents with text are prompts; functionResponse parts are tool
// results, each by the key of the call it answers (a result no call
// matches is keyed by its own position).
func (r *geminiCodecRequest) Turn() *Turn {
	t := &Turn{Calls: map[string]TurnCall{}}
	for i, c := range r.view.Contents {
		if c.Role == "model" {
			t.HasAssistant = true
		}
		if c.Role == "user" && c.HasText {
			t.Users = append(t.Users, TurnMessage{Pos: i, Text: c.Text})
		}
		for _, call := range c.Calls {
			t.Calls[geminiCallKey(call.ID, call.Content, call.Part)] = TurnCall{Name: call.Name, Arguments: call.Args}
		}
	}
	for _, res := range r.view.ToolResults {
		t.Results = append(t.Results, TurnResult{CallID: res.key(), Content: res.Response})
	}
	return t
}

// ReplaceToolResult replaces the response of the functionResponse keyed
// callID (Turn): content is the object itself when it is one, else
// {"output": content}.
func (r *geminiCodecRequest) ReplaceToolResult(body []byte, callID, content string) ([]byte, error) {
	for _, res := range r.view.ToolResults {
		if res.key() != callID {
			continue
		}
		response := []byte(content)
		if !gjson.Valid(content) || !gjson.Parse(content).IsObject() {
			response = append(appendQuoted([]byte(`{"output":`), content), '}')
		}
		return ReplaceGeminiFunctionResponse(body, res.Content, res.Part, response)
	}
	return nil, fmt.Errorf("gemini tool result %q: %w", callID, ErrNotFound)
}

// AppendToMessage adds text as one more text part of contents[pos].
func (r *geminiCodecRequest) AppendToMessage(body []byte, pos int, text string) ([]byte, error) {
	if pos < 0 || pos >= len(r.view.Contents) {
		return nil, fmt.Errorf("gemini content %d: %w", pos, ErrNotFound)
	}
	parts := gjson.GetBytes(body, jpath("contents", pos, "parts"))
	part := appendGeminiTextPart(nil, text)
	var out []byte
	var err error
	if parts.IsArray() {
		out, err = setRaw(body, jpath("contents", pos, "parts"), spliceArray([]byte(parts.Raw), part, false))
	} else {
		out, err = setRaw(body, jpath("contents", pos, "parts"), append(append([]byte{'['}, part...), ']'))
	}
	if err != nil {
		return nil, err
	}
	return detach(out, body), nil
}

func (r *geminiCodecRequest) InjectSystem(body []byte, text string, afterAgentSystem bool) ([]byte, error) {
	return InjectGeminiSystem(body, text, afterAgentSystem)
}

// Answer is one candidate whose content is text, finishReason STOP: a
// body, one alt=sse block, or a one-element array.
func (r *geminiCodecRequest) Answer(text string) (string, []byte) {
	frame := GeminiTextFrame(text, "STOP")
	switch {
	case !r.stream:
		return "application/json", frame
	case r.sse:
		return "text/event-stream", AppendGeminiSSEData(nil, frame)
	default:
		return "application/json", append(append([]byte{'['}, frame...), ']')
	}
}
