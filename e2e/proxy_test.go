package e2e

import (
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// A hook that is always configured in these tests: it makes the proxy
// read chat requests and refuse routes it cannot read.
const oneHook = `hooks:
  - id: deny-rm
    event: pre_tool_use
    handler:
      type: builtin
      name: deny_patterns
      with: {defaults: [shell]}
`

// checkOpenAIError asserts an OpenAI-shaped error body with the given code.
func checkOpenAIError(t *testing.T, body []byte, code string) {
	t.Helper()
	e := gjson.GetBytes(body, "error")
	if !e.IsObject() || e.Get("message").String() == "" || e.Get("type").String() == "" {
		t.Fatalf("not an OpenAI error shape: %s", body)
	}
	if got := e.Get("code").String(); got != code {
		t.Fatalf("error code %q, want %q (%s)", got, code, body)
	}
}

func TestPassthroughOfOtherRoutesAndMethods(t *testing.T) {
	s := startStack(t, "")
	s.mock.Handle(func(r *mockupstream.Request) mockupstream.Response {
		return mockupstream.JSON(200, []byte(`{"object":"list","path":"`+r.URI+`","method":"`+r.Method+`"}`))
	})
	resp, err := http.Get(s.app.URL() + "/v1/models?limit=2")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || gjson.GetBytes(body, "path").String() != "/v1/models?limit=2" || gjson.GetBytes(body, "method").String() != "GET" {
		t.Fatalf("GET /v1/models: %d %s", resp.StatusCode, body)
	}
	status, _, body2 := rawPost(t, s.app.URL(), "/v1/embeddings", []byte(`{"input":"x"}`), nil)
	if status != 200 || gjson.GetBytes(body2, "path").String() != "/v1/embeddings" {
		t.Fatalf("POST /v1/embeddings: %d %s", status, body2)
	}
}

func TestUnreadGenerationRoutesAreRefusedOnceHooksExist(t *testing.T) {
	s := startStack(t, oneHook)
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, []byte(`{"ok":true}`))))
	for _, route := range []string{"/v1/responses/resp_1/cancel", "/v1/completions", "/v1/messages/batches", "/v1/batches"} {
		status, _, body := rawPost(t, s.app.URL(), route, []byte(`{"model":"m"}`), nil)
		if status != 403 {
			t.Fatalf("%s: status %d, want 403: %s", route, status, body)
		}
		if strings.HasPrefix(route, "/v1/messages/") {
			// An Anthropic route is refused in Anthropic's shape.
			if gjson.GetBytes(body, "type").String() != "error" || !strings.HasPrefix(gjson.GetBytes(body, "error.message").String(), "route_not_guarded: ") {
				t.Fatalf("%s: not an Anthropic refusal: %s", route, body)
			}
		} else {
			checkOpenAIError(t, body, "route_not_guarded")
		}
		if !strings.Contains(gjson.GetBytes(body, "error.message").String(), route) {
			t.Errorf("%s: the error does not name the route: %s", route, body)
		}
	}
	if n := len(s.mock.Requests()); n != 0 {
		t.Fatalf("%d refused requests reached the upstream", n)
	}

	listed := startStack(t, oneHook+"passthrough_routes: [/v1/responses]\n")
	listed.mock.Handle(mockupstream.Always(mockupstream.JSON(200, []byte(`{"ok":true}`))))
	if status, _, body := rawPost(t, listed.app.URL(), "/v1/responses", []byte(`{"model":"m"}`), nil); status != 200 || string(body) != `{"ok":true}` {
		t.Fatalf("listed route: %d %s", status, body)
	}

	none := startStack(t, "")
	none.mock.Handle(mockupstream.Always(mockupstream.JSON(200, []byte(`{"ok":true}`))))
	if status, _, _ := rawPost(t, none.app.URL(), "/v1/responses", []byte(`{"model":"m"}`), nil); status != 200 {
		t.Fatalf("without hooks every route passes; got %d", status)
	}
}

func TestUpstreamErrorsPassBackUnchanged(t *testing.T) {
	s := startStack(t, "")
	limited := mockupstream.RateLimited(7)
	s.mock.Enqueue(limited)
	status, header, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[]}`), nil)
	if status != 429 || header.Get("Retry-After") != "7" || !bytes.Equal(body, limited.Body) {
		t.Fatalf("got %d Retry-After=%q %s", status, header.Get("Retry-After"), body)
	}
	s.mock.Enqueue(mockupstream.Error(503, "server_error", "overloaded"))
	status, _, body = rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[]}`), nil)
	if status != 503 || gjson.GetBytes(body, "error.message").String() != "overloaded" {
		t.Fatalf("got %d %s", status, body)
	}
}

func TestBadRequestsGetOpenAIShapedErrors(t *testing.T) {
	s := startStack(t, oneHook+"limits:\n  max_request_bytes: 4KiB\n")
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, []byte(`{}`))))

	status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[`), nil)
	if status != 400 {
		t.Fatalf("malformed JSON: status %d: %s", status, body)
	}
	checkOpenAIError(t, body, "invalid_json")

	// A path that only differs by slashes is still the chat route.
	status, _, body = rawPost(t, s.app.URL(), "//v1//chat/completions/", []byte(`not json`), nil)
	if status != 400 {
		t.Fatalf("path variant escaped interception: status %d: %s", status, body)
	}

	big := []byte(`{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("x", 8<<10) + `"}]}`)
	status, _, body = rawPost(t, s.app.URL(), "/v1/chat/completions", big, nil)
	if status != 413 {
		t.Fatalf("oversized body: status %d: %s", status, body)
	}
	checkOpenAIError(t, body, "request_too_large")
	if n := len(s.mock.Requests()); n != 0 {
		t.Fatalf("%d rejected requests reached the upstream", n)
	}
}

func TestUpstreamKeyIsSwappedIn(t *testing.T) {
	t.Setenv("E2E_UPSTREAM_KEY", "sk-upstream-secret")
	mock := mockupstream.Start(t)
	mock.Handle(mockupstream.Always(mockupstream.JSON(200, []byte(`{}`))))
	a := startApp(t, "listen: 127.0.0.1:0\nadmin: {listen: '127.0.0.1:0'}\nupstreams:\n  - name: u\n    base_url: "+mock.URL()+"/base\n    api_key_env: E2E_UPSTREAM_KEY\n")
	rawPost(t, a.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[]}`), map[string]string{
		"Authorization": "Bearer sk-client-virtual",
		"Connection":    "keep-alive, X-Drop-Me",
		"X-Drop-Me":     "1",
		"X-Keep-Me":     "2",
	})
	reqs := mock.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests upstream", len(reqs))
	}
	r := reqs[0]
	if got := r.Header.Get("Authorization"); got != "Bearer sk-upstream-secret" {
		t.Errorf("upstream saw Authorization %q", got)
	}
	if r.Path != "/base/v1/chat/completions" {
		t.Errorf("upstream path %q", r.Path)
	}
	if r.Header.Get("X-Drop-Me") != "" || r.Header.Get("X-Keep-Me") != "2" {
		t.Errorf("hop-by-hop handling: X-Drop-Me=%q X-Keep-Me=%q", r.Header.Get("X-Drop-Me"), r.Header.Get("X-Keep-Me"))
	}
}

func TestTruncatedStreamEndsWithAnErrorEvent(t *testing.T) {
	s := startStack(t, "")
	body := mockupstream.StreamSpec{TextDeltas: 5, ToolCalls: 1, ArgFragments: 3}.SSE()
	cut := bytes.Index(body, []byte("tool_calls")) // mid tool call
	r := mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent})
	r.Fault, r.FaultAt = mockupstream.Cut, cut
	s.mock.Enqueue(r)
	status, _, got := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[]}`), nil)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	if !bytes.HasPrefix(got, body[:bytes.LastIndex(body[:cut], []byte("\n\n"))+2]) {
		t.Fatalf("the complete events before the cut were not relayed:\n%s", got)
	}
	if bytes.Contains(got, []byte("[DONE]")) || bytes.Contains(got, []byte(`"finish_reason":"`)) {
		t.Fatalf("an end was invented for a truncated stream:\n%s", got)
	}
	last := got[bytes.LastIndex(bytes.TrimRight(got, "\n"), []byte("\n"))+1:]
	if !bytes.HasPrefix(last, []byte("data: {\"error\"")) {
		t.Fatalf("the stream does not end with an error event: %q", last)
	}
	checkOpenAIError(t, bytes.TrimSpace(bytes.TrimPrefix(last, []byte("data: "))), "stream_truncated")

	// go-openai reports it as an error, not as a clean finish.
	s.mock.Enqueue(r)
	if a := goOpenAIStream(t, s.app.URL()); a.Err == "" {
		t.Fatalf("go-openai saw a clean end of a truncated stream: %s", a)
	}
}

func TestGzipUpstreamIsDecodedOnInterceptedRoutes(t *testing.T) {
	s := startStack(t, "")
	plain := mockupstream.StreamSpec{TextDeltas: 3}.SSE()
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(plain)
	zw.Close()
	r := mockupstream.Stream(zipped.Bytes(), mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 16})
	r.Header.Set("Content-Encoding", "gzip")
	s.mock.Enqueue(r)
	status, header, got := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[]}`), map[string]string{"Accept-Encoding": "identity"})
	if status != 200 || header.Get("Content-Encoding") != "" || !bytes.Equal(got, plain) {
		t.Fatalf("status %d encoding %q body %q", status, header.Get("Content-Encoding"), got)
	}
	if ae := s.mock.Requests()[0].Header.Get("Accept-Encoding"); ae != "identity" {
		t.Errorf("hookgate asked the upstream for %q, want identity", ae)
	}
}

func TestClientDisconnectEndsTheUpstreamStream(t *testing.T) {
	s := startStack(t, "")
	body := mockupstream.StreamSpec{TextDeltas: 2000}.SSE()
	s.mock.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: 5 * time.Millisecond}))
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.app.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	req := "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	conn.Write([]byte(req))
	buf := make([]byte, 4096)
	if _, err := conn.Read(buf); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if activeStreams(t, s) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the stream is still relayed 5s after its client left")
}

// activeStreams reads hookgate_active_streams from the admin listener.
func activeStreams(t *testing.T, s *stack) float64 {
	t.Helper()
	mfs, err := s.app.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "hookgate_active_streams" {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatal("hookgate_active_streams not exported")
	return 0
}
