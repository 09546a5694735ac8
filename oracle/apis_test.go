package oracle

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// apiKind is a wire format and framing an oracle reads.
type apiKind int

const (
	chatSSE apiKind = iota
	chatJSON
	responsesSSE
	responsesJSON
	messagesSSE
	messagesJSON
)

var apiNames = map[apiKind]string{
	chatSSE: "chat-sse", chatJSON: "chat-json", responsesSSE: "responses-sse",
	responsesJSON: "responses-json", messagesSSE: "messages-sse", messagesJSON: "messages-json",
}

func (a apiKind) String() string { return apiNames[a] }

func (a apiKind) streamed() bool { return a == chatSSE || a == responsesSSE || a == messagesSSE }

func (a apiKind) messages() bool { return a == messagesSSE || a == messagesJSON }

// toolMarker is a substring of every event (or body) that carries a tool
// call in this format.
func (a apiKind) isToolEvent(data string) bool {
	switch a {
	case chatSSE, chatJSON:
		return strings.Contains(data, `"tool_calls"`)
	case messagesSSE, messagesJSON:
		return strings.Contains(data, `"tool_use"`) || strings.Contains(data, `"input_json_delta"`)
	default:
		return strings.Contains(data, `"function_call`)
	}
}

// memberKeys are the members of the format in which a client finds a tool
// call or decides where one is: the keys the spelling classes rewrite.
func (a apiKind) memberKeys() []string {
	switch a {
	case chatSSE, chatJSON:
		return []string{"tool_calls", "choices", "delta", "message", "function", "name", "arguments", "index", "type", "id"}
	case messagesSSE, messagesJSON:
		return []string{"type", "content_block", "name", "input", "delta", "partial_json", "index", "content", "id"}
	default:
		return []string{"type", "item", "name", "arguments", "delta", "output", "response", "call_id", "output_index"}
	}
}

// sample is one recorded body with tool calls.
type sample struct {
	rel  string
	api  apiKind
	body []byte
}

// loadSamples reads every fixture of the three read formats, SSE or plain
// JSON, that carries a tool call.
func loadSamples(t testing.TB) []sample {
	t.Helper()
	var out []sample
	for _, f := range fixtures.All(t) {
		var api apiKind
		switch {
		case f.API == fixtures.APIChatCompletions && f.Kind == fixtures.KindSSE:
			api = chatSSE
		case f.API == fixtures.APIChatCompletions && f.Kind == fixtures.KindJSON:
			api = chatJSON
		case f.API == fixtures.APIResponses && f.Kind == fixtures.KindSSE:
			api = responsesSSE
		case f.API == fixtures.APIResponses && f.Kind == fixtures.KindJSON:
			api = responsesJSON
		case f.API == fixtures.APIAnthropic && f.Kind == fixtures.KindSSE:
			api = messagesSSE
		case f.API == fixtures.APIAnthropic && f.Kind == fixtures.KindJSON:
			api = messagesJSON
		default:
			continue
		}
		body := f.Read(t)
		if !hasToolCall(api, body) {
			continue
		}
		out = append(out, sample{rel: f.Rel, api: api, body: body})
	}
	if len(out) == 0 {
		t.Fatal("no fixture with a tool call found")
	}
	return out
}

func hasToolCall(api apiKind, body []byte) bool {
	switch api {
	case chatJSON:
		return len(gjson.GetBytes(body, "choices.0.message.tool_calls").Array()) > 0
	case responsesJSON:
		return strings.Contains(string(body), `"function_call"`)
	case messagesJSON:
		return strings.Contains(string(body), `"tool_use"`)
	}
	return api.isToolEvent(string(body))
}
