package interceptors

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	openaigo "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	goopenai "github.com/sashabaranov/go-openai"
)

// These tests run streams and bodies that carry a tool call in a place or
// shape some client reads through the chat interceptor under a hook that
// blocks every call, then hand what the client receives to real SDK
// parsers: go-openai's stream reader and openai-go's ssestream with its
// ChatCompletionAccumulator (both against a loopback server replaying the
// bytes), and both SDKs' response types for plain bodies. Neither may read
// the blocked call's name or arguments.

const (
	blockedName = "exec"
	blockedArgs = "rm -rf /"
)

func denyAll(t *testing.T) *Chat {
	t.Helper()
	e := engineFor(t, `
- id: deny-all
  event: pre_tool_use
  handler: {type: script, source: 'function handle(e) { return {decision: "block", reason: "denied"}; }'}
`)
	return NewChat(Options{Engine: e})
}

// relayAllowingErrors runs a stream through the chat interceptor and
// returns what the client received, whether or not the relay ended with an
// error (a refused chunk ends it so).
func relayAllowingErrors(t *testing.T, c *Chat, stream string) string {
	t.Helper()
	ex, err := c.Begin(context.Background(), &Request{Route: "/v1/chat/completions", Body: []byte(
		`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}],"tools":[{"type":"function","function":{"name":"exec"}}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	var out bufferSink
	_ = ex.RelayStream(context.Background(), strings.NewReader(stream), &out)
	return out.String()
}

// replay serves body as an event stream on every path.
func replay(t *testing.T, body, contentType string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// readCalls is every tool-call name and argument text an SDK read.
type readCalls []string

func (r *readCalls) add(name, args string) {
	if name != "" || args != "" {
		*r = append(*r, name+"("+args+")")
	}
}

// leaked reports a read that names the blocked call or holds its arguments.
func (r readCalls) leaked() bool {
	for _, s := range r {
		if strings.Contains(s, blockedName) || strings.Contains(s, "rm -rf") || strings.Contains(s, `rm \"-rf`) {
			return true
		}
	}
	return false
}

func goOpenAIStreamReads(t *testing.T, base string) (readCalls, error) {
	cfg := goopenai.DefaultConfig("sk-test")
	cfg.BaseURL = base + "/v1"
	cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	stream, err := goopenai.NewClientWithConfig(cfg).CreateChatCompletionStream(context.Background(),
		goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "go"}}})
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	var got readCalls
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		for _, ch := range chunk.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				got.add(tc.Function.Name, tc.Function.Arguments)
			}
			if fc := ch.Delta.FunctionCall; fc != nil {
				got.add(fc.Name, fc.Arguments)
			}
		}
	}
}

func openaiGoStreamReads(t *testing.T, base string) (readCalls, error) {
	client := openaigo.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey("sk-test"),
		option.WithMaxRetries(0), option.WithRequestTimeout(10*time.Second))
	stream := client.Chat.Completions.NewStreaming(context.Background(), openaigo.ChatCompletionNewParams{
		Model: "m", Messages: []openaigo.ChatCompletionMessageParamUnion{openaigo.UserMessage("go")}})
	defer stream.Close()
	acc := openaigo.ChatCompletionAccumulator{}
	var got readCalls
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		for _, ch := range chunk.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				got.add(tc.Function.Name, tc.Function.Arguments)
				got.add("", tc.RawJSON()) // a custom member or any other shape
			}
			got.add(ch.Delta.FunctionCall.Name, ch.Delta.FunctionCall.Arguments)
		}
	}
	for _, ch := range acc.Choices {
		got.addMessage(ch.Message)
	}
	return got, stream.Err()
}

func (r *readCalls) addMessage(m openaigo.ChatCompletionMessage) {
	for _, tc := range m.ToolCalls {
		r.add(tc.Function.Name, tc.Function.Arguments)
		r.add(tc.Custom.Name, tc.Custom.Input)
	}
	r.add(m.FunctionCall.Name, m.FunctionCall.Arguments)
}

// sse frames chunk payloads as the upstream sends them.
func sse(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	return b.String()
}

const chunkHead = `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[`

func oneChoice(choice string) string { return chunkHead + choice + `]}` }

var (
	execCall   = `{"index":0,"id":"call_1","type":"function","function":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}}`
	roleChunk  = oneChoice(`{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}`)
	finishTool = oneChoice(`{"index":0,"delta":{},"finish_reason":"tool_calls"}`)
)

func withIndex(idx string) string {
	return oneChoice(`{"index":0,"delta":{"tool_calls":[{"index":` + idx + `,"id":"call_1","type":"function","function":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}}]},"finish_reason":null}`)
}

var oracleStreams = map[string]string{
	"plain blocked call": sse(roleChunk, oneChoice(`{"index":0,"delta":{"tool_calls":[`+execCall+`]},"finish_reason":null}`), finishTool, "[DONE]"),
	"legacy function_call in a delta": sse(roleChunk,
		oneChoice(`{"index":0,"delta":{"function_call":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}},"finish_reason":null}`),
		oneChoice(`{"index":0,"delta":{},"finish_reason":"function_call"}`), "[DONE]"),
	"message member with tool_calls, empty delta": sse(roleChunk,
		oneChoice(`{"index":0,"delta":{},"message":{"role":"assistant","tool_calls":[`+execCall+`]},"finish_reason":null}`), finishTool, "[DONE]"),
	"message member unlike the delta": sse(roleChunk,
		oneChoice(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"ls","arguments":"{}"}}]},"message":{"tool_calls":[`+execCall+`]},"finish_reason":null}`),
		finishTool, "[DONE]"),
	"message member with function_call": sse(roleChunk,
		oneChoice(`{"index":0,"delta":{"content":"ok"},"message":{"function_call":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}},"finish_reason":null}`),
		finishTool, "[DONE]"),
	"function beside custom": sse(roleChunk,
		oneChoice(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"ls","arguments":"{}"},"custom":{"name":"exec","input":"rm -rf /"}}]},"finish_reason":null}`),
		finishTool, "[DONE]"),
	"custom alone": sse(roleChunk,
		oneChoice(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"custom","custom":{"name":"exec","input":"rm -rf /"}}]},"finish_reason":null}`),
		finishTool, "[DONE]"),
	"index 1.0":       sse(roleChunk, withIndex("1.0"), finishTool, "[DONE]"),
	"index 1e0":       sse(roleChunk, withIndex("1e0"), finishTool, "[DONE]"),
	"index -1":        sse(roleChunk, withIndex("-1"), finishTool, "[DONE]"),
	"index past 2^53": sse(roleChunk, withIndex("9007199254740993"), finishTool, "[DONE]"),
	"split call, second fragment at index 0.0": sse(roleChunk,
		oneChoice(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"ls","arguments":""}}]},"finish_reason":null}`),
		oneChoice(`{"index":0,"delta":{"tool_calls":[{"index":0.0,"function":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}}]},"finish_reason":null}`),
		finishTool, "[DONE]"),
	"choice index 1e0": sse(roleChunk,
		oneChoice(`{"index":1e0,"delta":{"tool_calls":[`+execCall+`]},"finish_reason":null}`), finishTool, "[DONE]"),
	"call after [DONE]": sse(roleChunk, oneChoice(`{"index":0,"delta":{"content":"done"},"finish_reason":"stop"}`), "[DONE]",
		oneChoice(`{"index":0,"delta":{"tool_calls":[`+execCall+`]},"finish_reason":null}`), finishTool),
	"note template carries unknown members": sse(
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","x_extra":{"tool_calls":[`+execCall+`]},"choices":[{"index":0,"delta":{"role":"assistant","content":"","x":1},"logprobs":null,"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","x_extra":{"function_call":{"name":"exec"}},"choices":[{"index":0,"delta":{"tool_calls":[`+execCall+`]},"finish_reason":null}]}`,
		finishTool, "[DONE]"),
}

func TestChatStreamOraclesNeverReadABlockedCall(t *testing.T) {
	c := denyAll(t)
	for name, stream := range oracleStreams {
		t.Run(name, func(t *testing.T) {
			out := relayAllowingErrors(t, c, stream)
			base := replay(t, out, "text/event-stream")
			g, gerr := goOpenAIStreamReads(t, base)
			o, oerr := openaiGoStreamReads(t, base)
			if g.leaked() || o.leaked() {
				t.Errorf("a client read the blocked call\ngo-openai: %q (%v)\nopenai-go: %q (%v)\nclient received:\n%s", g, gerr, o, oerr, out)
			}
		})
	}
}

// streamRefusals are the cases whose stream must end with an error event
// rather than go on: hookgate could not judge what a client reads there.
var streamRefusals = []string{
	"legacy function_call in a delta", "message member with tool_calls, empty delta", "message member unlike the delta",
	"message member with function_call", "function beside custom", "custom alone", "index 1.0", "index 1e0",
	"index -1", "index past 2^53", "split call, second fragment at index 0.0", "choice index 1e0", "call after [DONE]",
}

func TestChatStreamRefusesWhatItCannotJudge(t *testing.T) {
	c := denyAll(t)
	for _, name := range streamRefusals {
		out := relayAllowingErrors(t, c, oracleStreams[name])
		last := strings.TrimSpace(out[strings.LastIndex(strings.TrimRight(out, "\n"), "\n")+1:])
		var ev struct {
			Error struct{ Code string } `json:"error"`
		}
		if !strings.HasPrefix(last, "data: ") || json.Unmarshal([]byte(strings.TrimPrefix(last, "data: ")), &ev) != nil || ev.Error.Code == "" {
			t.Errorf("%s: the stream does not end with an error event:\n%s", name, out)
		}
	}
}

// A note for a blocked call is a chunk of hookgate's own: nothing of the
// upstream's chunk but its id, created, model and fingerprint.
func TestChatBlockNoteIsEncodedFresh(t *testing.T) {
	out := relayAllowingErrors(t, denyAll(t), oracleStreams["note template carries unknown members"])
	if strings.Count(out, "x_extra") != 1 {
		t.Errorf("an upstream member was copied into a synthesised chunk (or the first chunk was not relayed):\n%s", out)
	}
	if !strings.Contains(out, "denied") {
		t.Errorf("no block note:\n%s", out)
	}
}

var oraclePlainBodies = map[string]string{
	"plain blocked call":              `{"id":"r1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` + execCall + `]},"finish_reason":"tool_calls"}]}`,
	"legacy function_call":            `{"id":"r1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"function_call":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}},"finish_reason":"function_call"}]}`,
	"function beside custom":          `{"id":"r1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"ls","arguments":"{}"},"custom":{"name":"exec","input":"rm -rf /"}}]},"finish_reason":"tool_calls"}]}`,
	"custom alone":                    `{"id":"r1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"custom","custom":{"name":"exec","input":"rm -rf /"}}]},"finish_reason":"tool_calls"}]}`,
	"custom type with function shape": `{"id":"r1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"custom","function":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}}]},"finish_reason":"tool_calls"}]}`,
	"choice index 1.0":                `{"id":"r1","object":"chat.completion","created":1,"model":"m","choices":[{"index":1.0,"message":{"role":"assistant","content":null,"tool_calls":[` + execCall + `]},"finish_reason":"tool_calls"}]}`,
	"call index 1e0":                  `{"id":"r1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"index":1e0,"id":"call_1","type":"function","function":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}}]},"finish_reason":"tool_calls"}]}`,
}

func TestChatPlainOraclesNeverReadABlockedCall(t *testing.T) {
	c := denyAll(t)
	for name, body := range oraclePlainBodies {
		t.Run(name, func(t *testing.T) {
			ex, err := c.Begin(context.Background(), &Request{Route: "/v1/chat/completions", Body: []byte(`{"model":"m","messages":[{"role":"user","content":"go"}]}`)})
			if err != nil {
				t.Fatal(err)
			}
			out, err := ex.FinishPlain(context.Background(), []byte(body))
			if err != nil {
				var re *RequestError
				if !errors.As(err, &re) || re.Status != 502 {
					t.Errorf("refused with %v, want a 502", err)
				}
				return
			}
			var g goopenai.ChatCompletionResponse
			if err := json.Unmarshal(out, &g); err != nil {
				t.Fatalf("go-openai: %v\n%s", err, out)
			}
			var reads readCalls
			for _, ch := range g.Choices {
				for _, tc := range ch.Message.ToolCalls {
					reads.add(tc.Function.Name, tc.Function.Arguments)
				}
				if fc := ch.Message.FunctionCall; fc != nil {
					reads.add(fc.Name, fc.Arguments)
				}
			}
			var o openaigo.ChatCompletion
			if err := json.Unmarshal(out, &o); err != nil {
				t.Fatalf("openai-go: %v\n%s", err, out)
			}
			for _, ch := range o.Choices {
				reads.addMessage(ch.Message)
			}
			if reads.leaked() {
				t.Errorf("a client read the blocked call: %q\n%s", reads, out)
			}
			if name == "custom alone" && !strings.Contains(string(out), "denied") {
				t.Errorf("the custom call was not judged and blocked:\n%s", out)
			}
		})
	}
}
