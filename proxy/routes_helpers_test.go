package proxy_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// denyHook is a blocking hook: with it configured the proxy is closed.
const denyHook = `hooks:
  - id: deny-rm
    event: pre_tool_use
    handler:
      type: builtin
      name: deny_patterns
      with: {defaults: [shell]}
`

// syncBuffer is a log sink the server writes from its own goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// routeStack is hookgate, built as `hookgate serve` builds it, in front of
// a recording upstream on loopback.
type routeStack struct {
	app *app.App
	log *syncBuffer
}

// startRouteStack starts hookgate in front of upstream with extra YAML.
func startRouteStack(t *testing.T, upstream, extra string) *routeStack {
	t.Helper()
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nstore:\n  path: " + filepath.Join(t.TempDir(), "hookgate.db") +
		"\nupstreams:\n  - name: mock\n    provider: openai\n    base_url: " + upstream + "\n" + extra
	cfg, err := config.Parse([]byte(doc), "routes-test.yaml", func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	a, err := app.Build(cfg, slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return &routeStack{app: a, log: log}
}

// rawRequest sends one request exactly as given (method and target are
// written into the request line unchanged) and reads the answer with Go's
// own HTTP parser, as a client would.
func rawRequest(t *testing.T, base, method, target string, header map[string]string, body string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", method, target, len(body))
	for k, v := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n")
	b.WriteString(body)
	if _, err := io.WriteString(c, b.String()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s %q: reading the answer: %v", method, target, err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, got
}

// errorShape is the error body a client of the route's API parses.
type errorShape int

const (
	openAIShape errorShape = iota
	anthropicShape
	geminiShape
)

func (s errorShape) String() string {
	switch s {
	case anthropicShape:
		return "Anthropic"
	case geminiShape:
		return "Gemini"
	}
	return "OpenAI"
}

// checkErrorShape asserts body is an error in shape, with code (the
// OpenAI code, or the code Anthropic's message begins with).
func checkErrorShape(t *testing.T, what string, body []byte, shape errorShape, code string) {
	t.Helper()
	switch shape {
	case anthropicShape:
		if gjson.GetBytes(body, "type").String() != "error" || gjson.GetBytes(body, "error.type").String() == "" ||
			!strings.HasPrefix(gjson.GetBytes(body, "error.message").String(), code+": ") {
			t.Errorf("%s: not an Anthropic error with code %s: %s", what, code, body)
		}
	case geminiShape:
		e := gjson.GetBytes(body, "error")
		if !e.IsObject() || e.Get("code").Type != gjson.Number || e.Get("status").String() == "" ||
			!strings.HasPrefix(e.Get("message").String(), code+": ") {
			t.Errorf("%s: not a Gemini error with code %s: %s", what, code, body)
		}
	default:
		e := gjson.GetBytes(body, "error")
		if !e.IsObject() || e.Get("message").String() == "" || e.Get("type").String() == "" || e.Get("code").String() != code {
			t.Errorf("%s: not an OpenAI error with code %s: %s", what, code, body)
		}
	}
}

// echoUpstream answers every request with 200 and what it received.
func echoUpstream(t *testing.T) *mockupstream.Server {
	mock := mockupstream.Start(t)
	mock.Handle(func(r *mockupstream.Request) mockupstream.Response {
		return mockupstream.JSON(200, []byte(fmt.Sprintf(`{"object":"echo","method":%q,"uri":%q}`, r.Method, r.URI)))
	})
	return mock
}

// metricsText is the admin listener's /metrics page.
func metricsText(t *testing.T, a *app.App) string {
	t.Helper()
	resp, err := http.Get(a.AdminURL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// mockRequest is a request as the upstream received it.
type mockRequest = mockupstream.Request
