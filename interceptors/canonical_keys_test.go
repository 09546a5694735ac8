package interceptors

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// blockAll blocks every call; allowAll lets every call through.
const (
	blockAll = `
- id: block-all
  event: pre_tool_use
  handler: {type: script, source: 'function handle(e) { return {decision: "block", reason: "no"}; }'}
`
	allowAll = `
- id: allow-all
  event: pre_tool_use
  handler: {type: script, source: 'function handle(e) { return {decision: "allow"}; }'}
`
)

// A frame whose keys a client reads otherwise than hookgate (a variant
// spelling of a member, a repeated key at any depth) ends the stream with
// the route's error event, and nothing of the call reaches the client.
func TestAmbiguousKeyFramesEndTheStream(t *testing.T) {
	call := `[{"index":0,"id":"a","type":"function","function":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}}]`
	chat := map[string]string{
		"Tool_Calls":   chunkLine(`{"Tool_Calls":`+call+`}`, `"tool_calls"`),
		`\u0043hoices`: `data: {"id":"c1","\u0043hoices":[{"index":0,"delta":{"tool_calls":` + call + `},"finish_reason":"tool_calls"}]}` + "\n\n",
		"choiceſ":      `data: {"id":"c1","choiceſ":[{"index":0,"delta":{"tool_calls":` + call + `},"finish_reason":"tool_calls"}]}` + "\n\n",
		`N\u0061me`:    chunkLine(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"ls","N\u0061me":"exec","arguments":"{\"command\":\"rm -rf /\"}"}}]}`, `"tool_calls"`),
		"argumentſ":    chunkLine(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"ls","arguments":"{}","argumentſ":"{\"command\":\"rm -rf /\"}"}}]}`, `"tool_calls"`),
	}
	for name, frame := range chat {
		t.Run("chat "+name, func(t *testing.T) {
			stream := chunkLine(`{"content":"hi "}`, "null") + frame + "data: [DONE]\n\n"
			c := NewChat(Options{Engine: engineFor(t, blockAll)})
			ex, _ := c.Begin(context.Background(), &Request{Body: []byte(`{"model":"m","stream":true,"messages":[]}`)})
			var out bufferSink
			err := ex.RelayStream(context.Background(), strings.NewReader(stream), &out)
			if err == nil || strings.Contains(out.String(), "rm -rf") || !strings.Contains(out.String(), "unreadable_chunk") {
				t.Fatalf("err %v; the client got:\n%s", err, out.String())
			}
		})
	}

	messages := map[string]string{
		"repeated type": `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"","type":"input_json_delta","partial_json":"{\"command\":\"rm -rf /\"}"}}`,
		"Partial_JSON":  `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}","Partial_JSON":"{\"command\":\"rm -rf /\"}"}}`,
	}
	for name, ev := range messages {
		t.Run("messages "+name, func(t *testing.T) {
			stream := msgSSE(evStart, `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"exec","input":{}}}`, ev,
				`{"type":"content_block_stop","index":0}`, `{"type":"message_stop"}`)
			out, err := relayMessages(t, Options{Engine: engineFor(t, blockAll)}, strings.NewReader(stream))
			if err == nil || strings.Contains(string(out), "rm -rf") || !strings.Contains(string(out), "unreadable_event") || !strings.Contains(string(out), "event: error") {
				t.Fatalf("err %v; the client got:\n%s", err, out)
			}
		})
	}

	t.Run(`responses N\u0061me`, func(t *testing.T) {
		stream := "event: response.output_item.added\n" +
			`data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"function_call","id":"fc","call_id":"c1","name":"ls","N\u0061me":"exec","arguments":"{\"command\":\"rm -rf /\"}","status":"in_progress"}}` + "\n\n"
		out, err := relayResponses(t, NewResponses(Options{Engine: engineFor(t, blockAll)}), streamRequest, stream)
		if err == nil || strings.Contains(out, "rm -rf") || !strings.Contains(out, "unreadable_event") {
			t.Fatalf("err %v; the client got:\n%s", err, out)
		}
	})
}

// A plain answer with a variant key becomes a 502 in the route's shape.
func TestAmbiguousKeyPlainAnswerIsA502(t *testing.T) {
	body := `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"Tool_Calls":[{"id":"c1","type":"function","function":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}}]},"finish_reason":"tool_calls"}]}`
	ex, err := NewChat(Options{Engine: engineFor(t, blockAll)}).Begin(context.Background(), &Request{Body: []byte(`{"model":"m","messages":[]}`)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := ex.FinishPlain(context.Background(), []byte(body))
	var re *RequestError
	if !errors.As(err, &re) || re.Status != 502 || re.Code != "unreadable_response" || strings.Contains(string(out), "rm -rf") {
		t.Fatalf("out %s, err %v; want a 502 unreadable_response", out, err)
	}
}

// Arguments whose keys fold to a sibling are blocked even under a hook
// that allows everything: a Go struct would run "Command".
func TestFoldSiblingArgumentsAreBlocked(t *testing.T) {
	stream := chunkLine(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"exec","arguments":"{\"command\":\"ls\",\"Command\":\"rm -rf /\"}"}}]}`, `"tool_calls"`) +
		"data: [DONE]\n\n"
	c := NewChat(Options{Engine: engineFor(t, allowAll)})
	ex, _ := c.Begin(context.Background(), &Request{Body: []byte(`{"model":"m","stream":true,"messages":[]}`)})
	var out bufferSink
	_ = ex.RelayStream(context.Background(), strings.NewReader(stream), &out)
	if strings.Contains(out.String(), "rm -rf") || !strings.Contains(out.String(), "blocked") {
		t.Fatalf("the client got:\n%s", out.String())
	}
}
