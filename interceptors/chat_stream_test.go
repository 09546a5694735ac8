package interceptors

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// bufferSink collects what a client would receive.
type bufferSink struct{ bytes.Buffer }

func (b *bufferSink) Flush() error { return nil }

// engineFor compiles hook entries written in YAML.
func engineFor(t *testing.T, doc string) *hooks.Engine {
	t.Helper()
	var specs []hooks.Spec
	if err := yaml.Unmarshal([]byte(doc), &specs); err != nil {
		t.Fatal(err)
	}
	for i := range specs {
		specs[i].Trusted = true
	}
	e, err := hooks.Compile(specs, hooks.Deps{}, hooks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// relay runs a stream body through a chat exchange under the engine.
func relay(t *testing.T, e *hooks.Engine, stream string) string {
	t.Helper()
	c := NewChat(Options{Engine: e})
	ex, err := c.Begin(context.Background(), &Request{Route: "/v1/chat/completions", Body: []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	var out bufferSink
	if err := ex.RelayStream(context.Background(), strings.NewReader(stream), &out); err != nil {
		t.Fatalf("relay: %v\n%s", err, out.String())
	}
	return out.String()
}

// callsOf assembles the tool calls a client receives, by index.
func callsOf(t *testing.T, out string) (map[int][2]string, string) {
	t.Helper()
	p := providers.NewSSEParser(0)
	p.Feed([]byte(out))
	p.End()
	calls := map[int][2]string{}
	text := ""
	for {
		f, err := p.Next()
		if err != nil || f == nil {
			break
		}
		if !f.HasData() || f.Done {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    int `json:"index"`
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(f.Data, &chunk); err != nil {
			t.Fatalf("the client got a chunk that is not JSON: %s", f.Data)
		}
		for _, ch := range chunk.Choices {
			text += ch.Delta.Content
			for _, tc := range ch.Delta.ToolCalls {
				c := calls[tc.Index]
				if tc.Function.Name != "" {
					c[0] = tc.Function.Name
				}
				c[1] += tc.Function.Arguments
				calls[tc.Index] = c
			}
		}
	}
	return calls, text
}

func chunkLine(delta string, finish string) string {
	return `data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}` + "\n\n"
}

func TestInterleavedCallsAreHeldApartAndOneIsBlocked(t *testing.T) {
	e := engineFor(t, `
- id: no-rm
  event: pre_tool_use
  if_expr: "toolInput.command.startsWith('rm')"
  handler: {type: script, source: 'function handle(e) { return {decision: "block", reason: "no rm"}; }'}
`)
	stream := chunkLine(`{"role":"assistant","content":null}`, "null") +
		chunkLine(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"exec","arguments":"{\"comm"}}]}`, "null") +
		chunkLine(`{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"exec","arguments":"{\"comm"}}]}`, "null") +
		chunkLine(`{"tool_calls":[{"index":0,"function":{"arguments":"and\":\"rm -rf /tmp/x\"}"}}]}`, "null") +
		chunkLine(`{"tool_calls":[{"index":1,"function":{"arguments":"and\":\"ls\"}"}}]}`, "null") +
		chunkLine(`{}`, `"tool_calls"`) + "data: [DONE]\n\n"
	out := relay(t, e, stream)
	calls, text := callsOf(t, out)
	if len(calls) != 1 || calls[0] != [2]string{"exec", `{"command":"ls"}`} {
		t.Fatalf("calls %v\n%s", calls, out)
	}
	if !strings.Contains(text, "blocked by no-rm: no rm") {
		t.Fatalf("no note: %q", text)
	}
	if !strings.HasSuffix(out, "data: [DONE]\n\n") || strings.Index(out, `"finish_reason":"tool_calls"`) < strings.Index(out, `"ls`) {
		t.Fatalf("the finish must follow the calls:\n%s", out)
	}
}

func TestArgumentsThatAreNotAnObjectAreNeverPassedOn(t *testing.T) {
	e := engineFor(t, `
- id: allow
  event: pre_tool_use
  handler: {type: script, source: 'function handle(e) { return {decision: "allow"}; }'}
`)
	for name, args := range map[string]string{"invalid": `{\"a\": 1`, "array": `[1,2]`, "string": `\"x\"`} {
		stream := chunkLine(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"exec","arguments":"`+args+`"}}]}`, "null") +
			chunkLine(`{}`, `"tool_calls"`) + "data: [DONE]\n\n"
		out := relay(t, e, stream)
		calls, text := callsOf(t, out)
		if len(calls) != 0 || !strings.Contains(text, "blocked by hookgate") {
			t.Errorf("%s arguments: calls %v text %q", name, calls, text)
		}
		if !strings.Contains(out, `"finish_reason":"stop"`) {
			t.Errorf("%s arguments: finish_reason not stop:\n%s", name, out)
		}
	}
}

func TestTruncatedStreamNeverEmitsTheHeldCall(t *testing.T) {
	e := engineFor(t, `
- id: allow
  event: pre_tool_use
  handler: {type: script, source: 'function handle(e) { return {decision: "allow"}; }'}
`)
	stream := chunkLine(`{"content":"Sure. "}`, "null") +
		chunkLine(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"exec","arguments":"{\"command\":\"ls\"}"}}]}`, "null")
	c := NewChat(Options{Engine: e})
	ex, _ := c.Begin(context.Background(), &Request{Body: []byte(`{"model":"m","messages":[]}`)})
	var out bufferSink
	err := ex.RelayStream(context.Background(), strings.NewReader(stream), &out)
	if err == nil {
		t.Fatal("a truncated stream was taken for a complete one")
	}
	if strings.Contains(out.String(), "tool_calls") {
		t.Fatalf("a held partial call was emitted:\n%s", out.String())
	}
	if !strings.Contains(out.String(), `"content":"Sure. "`) || !strings.Contains(out.String(), `"code":"stream_truncated"`) {
		t.Fatalf("want the text, then an error event:\n%s", out.String())
	}
}

func TestEarlyCompletedCallsAreRewrittenInOrder(t *testing.T) {
	e := engineFor(t, `
- id: rewrite
  event: pre_tool_use
  allow_mutation: [toolInput.n]
  handler: {type: script, source: 'function handle(e) { return {decision: "rewrite", updatedInput: {n: 2}}; }'}
`)
	stream := chunkLine(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":"{\"n\":1}"}}]}`, "null") +
		chunkLine(`{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"g","arguments":"{\"n\":"}}]}`, "null") +
		chunkLine(`{"tool_calls":[{"index":1,"function":{"arguments":"5}"}}]}`, "null") +
		chunkLine(`{}`, `"tool_calls"`) + "data: [DONE]\n\n"
	calls, _ := callsOf(t, relay(t, e, stream))
	if calls[0] != [2]string{"f", `{"n":2}`} || calls[1] != [2]string{"g", `{"n":2}`} {
		t.Fatalf("calls %v", calls)
	}
}
