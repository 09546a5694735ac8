package mockupstream

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// Instructed is the handler of `hookgate mock`: a chat-completions model
// that does what the last message tells it, so that a person can try
// hookgate's hooks by hand without a provider key.
//
//   - A last user message with lines `call NAME {JSON}` asks for those tool
//     calls, in order (e.g. `call exec {"command":"rm -rf /srv"}`).
//   - A last tool message gets a final answer quoting the tool's result.
//   - Any other last message gets a final answer repeating it.
//
// It answers streamed ("stream": true, with a usage chunk when
// stream_options.include_usage is set) and plain requests, echoes the
// request's model, and refuses every other route in the OpenAI error shape.
func Instructed(req *Request) Response {
	if req.Method != http.MethodPost || req.Path != "/v1/chat/completions" {
		return Error(http.StatusNotFound, "not_found", "the mock model answers only POST /v1/chat/completions, not "+req.Method+" "+req.Path)
	}
	if !gjson.ValidBytes(req.Body) {
		return Error(http.StatusBadRequest, "invalid_json", "the request body is not JSON")
	}
	body := gjson.ParseBytes(req.Body)
	spec := StreamSpec{
		ID:    fmt.Sprintf("chatcmpl-mock-%d", req.Seq),
		Model: body.Get("model").String(),
		Usage: body.Get("stream_options.include_usage").Bool(),
	}
	msgs := body.Get("messages").Array()
	if len(msgs) == 0 {
		return Error(http.StatusBadRequest, "invalid_request_error", "messages: at least one message is required")
	}
	last := msgs[len(msgs)-1]
	text := contentText(last.Get("content"))
	switch last.Get("role").String() {
	case "tool":
		spec.Texts = []string{"The tool returned: ", clip(text, 200)}
	case "user":
		spec.Calls = requestedCalls(text, req.Seq)
		if len(spec.Calls) == 0 {
			spec.Texts = []string{"You said: ", clip(text, 200)}
		}
	default:
		spec.Texts = []string{"(the mock model answers the last user or tool message)"}
	}
	if body.Get("stream").Bool() {
		return Stream(spec.SSE(), Chunking{Mode: PerEvent})
	}
	return JSON(http.StatusOK, spec.Completion())
}

// requestedCalls reads the `call NAME {JSON}` lines of a user message.
// Arguments that are not a JSON object are passed on as written: a model
// may send broken arguments too.
func requestedCalls(text string, seq int) []ToolCall {
	var calls []ToolCall
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "call ")
		if !ok {
			continue
		}
		name, args, _ := strings.Cut(strings.TrimSpace(rest), " ")
		if name == "" {
			continue
		}
		args = strings.TrimSpace(args)
		if args == "" {
			args = "{}"
		}
		calls = append(calls, ToolCall{ID: fmt.Sprintf("call_mock_%d_%d", seq, len(calls)), Name: name, Arguments: args})
	}
	return calls
}

// contentText is a message's content as text: a string, or the text parts
// of an array of parts.
func contentText(c gjson.Result) string {
	if !c.IsArray() {
		return c.String()
	}
	var b strings.Builder
	for _, part := range c.Array() {
		if t := part.Get("text"); t.Exists() {
			b.WriteString(t.String())
		}
	}
	return b.String()
}

// Describe is one log line about a request the mock received: route,
// model, stream flag and the messages' roles, the system prompt's start
// and the last message. Headers are never part of it, so no credential
// reaches the log.
func Describe(req *Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s", req.Seq, req.Method, req.Path)
	if !gjson.ValidBytes(req.Body) {
		if len(req.Body) > 0 {
			fmt.Fprintf(&b, " (%d bytes, not JSON)", len(req.Body))
		}
		return b.String()
	}
	body := gjson.ParseBytes(req.Body)
	fmt.Fprintf(&b, " model=%q stream=%t", body.Get("model").String(), body.Get("stream").Bool())
	msgs := body.Get("messages").Array()
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Get("role").String()
	}
	fmt.Fprintf(&b, " messages=[%s]", strings.Join(roles, " "))
	for _, m := range msgs {
		if r := m.Get("role").String(); r == "system" || r == "developer" {
			fmt.Fprintf(&b, "\n    %s: %s", r, clip(oneLine(contentText(m.Get("content"))), 160))
		}
	}
	if len(msgs) > 0 {
		last := msgs[len(msgs)-1]
		fmt.Fprintf(&b, "\n    last %s: %s", last.Get("role").String(), clip(oneLine(contentText(last.Get("content"))), 160))
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
