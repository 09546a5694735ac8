package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// Ollama's native /api/chat is read through its codec. The client here
// reads the NDJSON stream as Ollama's Go client does (a line at a time,
// encoding/json into its types, stopping at an error line), since that
// client's module is too large to take in.

const (
	ollamaStreamFixture = "ollama/native-api-chat-stream-tool-call.ndjson"
	ollamaPlainFixture  = "ollama/native-api-chat-tool-call-qwen3.json"
	blockWeather        = `hooks:
  - id: no-weather
    event: pre_tool_use
    handler:
      type: script
      source: |
        function handle(e) { return e.toolName === "weather" ? { decision: "block", reason: "no forecasts" } : { decision: "allow" }; }
`
)

// ollamaStream is the mock's answer of a stream, as Ollama serves it.
func ollamaStream(body []byte, c mockupstream.Chunking) mockupstream.Response {
	r := mockupstream.Stream(body, c)
	r.Header = http.Header{"Content-Type": {"application/x-ndjson"}}
	return r
}

func startOllamaStack(t *testing.T, extra string) *stack {
	t.Helper()
	mock := mockupstream.Start(t)
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: local\n    provider: ollama\n    base_url: " + mock.URL() + "\n" + extra
	return &stack{mock: mock, app: startApp(t, doc)}
}

// ollamaLine mirrors the fields of Ollama's api.ChatResponse a client acts on.
type ollamaLine struct {
	Message struct {
		Content   string `json:"content"`
		ToolCalls []struct {
			Function struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"message"`
	Done  bool   `json:"done"`
	Error string `json:"error"`
}

// ollamaRead is what a client read from an /api/chat answer.
type ollamaRead struct {
	calls   []string
	content string
	done    bool
	err     string
}

func readOllama(t *testing.T, body []byte) ollamaRead {
	t.Helper()
	var r ollamaRead
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l ollamaLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			r.err = "unreadable line: " + err.Error()
			return r
		}
		if l.Error != "" {
			r.err = l.Error
			return r
		}
		for _, c := range l.Message.ToolCalls {
			r.calls = append(r.calls, c.Function.Name)
		}
		r.content += l.Message.Content
		r.done = r.done || l.Done
	}
	return r
}

const ollamaRequest = `{"model":"gpt-oss:120b","messages":[{"role":"user","content":"weather in Florence?"}]}`

// Under an allowing hook the recorded stream passes byte for byte; a
// blocked call never reaches the client, streamed or not, and its note
// joins the answer.
func TestOllamaStreamsAreJudged(t *testing.T) {
	body := fixtureBytes(t, ollamaStreamFixture)
	allow := startOllamaStack(t, allowEveryTool)
	for _, c := range []mockupstream.Chunking{{Mode: mockupstream.PerLine}, {Mode: mockupstream.FixedSize, Size: 1}, {Mode: mockupstream.Random, Size: 97, Seed: 7}} {
		allow.mock.Enqueue(ollamaStream(body, c))
		status, _, got := rawPost(t, allow.app.URL(), "/api/chat", []byte(ollamaRequest), nil)
		if status != 200 || !bytes.Equal(got, body) {
			t.Fatalf("%s: status %d; the relayed bytes differ:\n%s", c.Mode, status, firstDiff(got, body))
		}
	}

	block := startOllamaStack(t, blockWeather)
	for _, c := range []mockupstream.Chunking{{Mode: mockupstream.PerLine}, {Mode: mockupstream.FixedSize, Size: 1}} {
		block.mock.Enqueue(ollamaStream(body, c))
		status, _, got := rawPost(t, block.app.URL(), "/api/chat", []byte(ollamaRequest), nil)
		read := readOllama(t, got)
		if status != 200 || read.err != "" || len(read.calls) != 0 || !read.done || !strings.Contains(read.content, "no forecasts") {
			t.Fatalf("%s: status %d, read %+v:\n%s", c.Mode, status, read, got)
		}
	}

	plain := fixtureBytes(t, ollamaPlainFixture)
	direct := readOllama(t, plain)
	if len(direct.calls) == 0 {
		t.Fatalf("the recording carries no call: %+v", direct)
	}
	block.mock.Enqueue(mockupstream.JSON(200, plain))
	status, _, got := rawPost(t, block.app.URL(), "/api/chat", []byte(`{"model":"qwen3:8b","stream":false,"messages":[{"role":"user","content":"date?"}]}`), nil)
	if read := readOllama(t, got); status != 200 || read.err != "" || strings.Join(read.calls, ",") != strings.Join(direct.calls, ",") {
		t.Fatalf("plain, a call the hook allows: status %d, read %+v, want %v", status, read, direct.calls)
	}
	blockAll := startOllamaStack(t, blockEveryTool)
	blockAll.mock.Enqueue(mockupstream.JSON(200, plain))
	status, _, got = rawPost(t, blockAll.app.URL(), "/api/chat", []byte(`{"model":"qwen3:8b","stream":false,"messages":[{"role":"user","content":"date?"}]}`), nil)
	if read := readOllama(t, got); status != 200 || len(read.calls) != 0 || !strings.Contains(read.content, "no tools today") {
		t.Fatalf("plain, blocked: status %d, read %+v: %s", status, read, got)
	}
}

// A stream that stops before "done": true, or whose line names a member
// in a spelling a client reads differently, ends with Ollama's error line,
// and no call hookgate could not judge reaches the client.
func TestOllamaBadStreamsFailClosed(t *testing.T) {
	s := startOllamaStack(t, allowEveryTool)
	call := `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"weather","arguments":{"location":"x"}}}]},"done":false}` + "\n"
	for _, tc := range []struct{ name, stream string }{
		{"no done", call},
		{"case variant", `{"model":"m","message":{"role":"assistant","content":"","Tool_Calls":[{"function":{"name":"weather","arguments":{}}}]},"done":false}` + "\n" + `{"model":"m","message":{"role":"assistant","content":""},"done":true}` + "\n"},
		{"repeated key", `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[],"tool_calls":[{"function":{"name":"weather","arguments":{}}}]},"done":true}` + "\n"},
	} {
		s.mock.Enqueue(ollamaStream([]byte(tc.stream), mockupstream.Chunking{Mode: mockupstream.PerLine}))
		_, _, got := rawPost(t, s.app.URL(), "/api/chat", []byte(ollamaRequest), nil)
		// The call of "no done" is whole and allowed, so it may reach the
		// client before the stream is found cut short.
		if read := readOllama(t, got); read.err == "" || len(read.calls) != 0 && tc.name != "no done" {
			t.Errorf("%s: read %+v, want an error line and no call:\n%s", tc.name, read, got)
		}
	}
}
