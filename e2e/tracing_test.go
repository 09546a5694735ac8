package e2e

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// otlpReceiver is a collector's OTLP/HTTP traces endpoint on loopback: it
// decodes each export's protobuf and keeps the spans and the headers.
type otlpReceiver struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	service string
	headers http.Header
	srv     *httptest.Server
}

func startOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	r := &otlpReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "want a protobuf POST to /v1/traces", http.StatusBadRequest)
			return
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var ex coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &ex); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.headers = req.Header.Clone()
		for _, rs := range ex.ResourceSpans {
			for _, a := range rs.GetResource().GetAttributes() {
				if a.Key == "service.name" {
					r.service = a.Value.GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// waitSpans waits until a span named by match has arrived and returns all.
func (r *otlpReceiver) waitSpans(t *testing.T, match func(*tracepb.Span) bool) []*tracepb.Span {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r.mu.Lock()
		spans := append([]*tracepb.Span(nil), r.spans...)
		r.mu.Unlock()
		for _, s := range spans {
			if match(s) {
				return spans
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no matching span exported within 20 s; got %d spans: %v", len(spans), spanNames(spans))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func spanNames(spans []*tracepb.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

func spanAttr(s *tracepb.Span, key string) (*commonpb.AnyValue, bool) {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.Value, true
		}
	}
	return nil, false
}

func spanString(s *tracepb.Span, key string) string {
	v, _ := spanAttr(s, key)
	return v.GetStringValue()
}

// tracingConfig is the tracing block that exports to r, with a token
// header read from the environment.
func tracingConfig(r *otlpReceiver) string {
	return "tracing:\n  enabled: true\n  endpoint: " + r.srv.URL + "/v1/traces\n  insecure: true\n  service_name: hookgate-e2e\n  headers_env: {X-Collector-Token: HG_TRACE_TOKEN}\n"
}

// The secrets of the traced request: none may appear in any span.
const (
	traceAPIKey  = "sk-trace-SECRET-KEY-5f1c"
	traceToolArg = "rm -rf / # TRACE-SECRET-ARG-9a7e"
	tracePrompt  = "TRACE-SECRET-PROMPT-3b2d"
)

func TestTracesOfABlockedStreamedToolCall(t *testing.T) {
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("HG_TRACE_TOKEN", "collector-token-1")
	rcv := startOTLPReceiver(t)
	var hookHeaders sync.Map
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hookHeaders.Store("traceparent", r.Header.Get("Traceparent"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"decision":"allow"}`))
	}))
	t.Cleanup(hook.Close)
	s := startStack(t, tracingConfig(rcv)+`hooks:
  - id: ask-service
    event: pre_tool_use
    priority: 1
    handler: {type: http, url: `+hook.URL+`}
  - id: deny-shell
    event: pre_tool_use
    priority: 2
    handler:
      type: builtin
      name: deny_patterns
      with: {defaults: [shell]}
`)
	s.mock.Enqueue(mockupstream.Stream(hgSSE(
		hgChunk(`{"role":"assistant","content":"running it"}`, ""),
		hgChunk(hgCall(0, "call_tr1", "exec", `{"command":`), ""),
		hgChunk(hgCall(0, "", "", `"`+traceToolArg+`"}`), ""),
		hgChunk(`{}`, "tool_calls"),
		`data: {"id":"chatcmpl-hg","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`+"\n\n",
	), mockupstream.Chunking{Mode: mockupstream.PerEvent}))

	const clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	const clientSpan = "00f067aa0ba902b7"
	req := `{"model":"gpt-trace","stream":true,"messages":[{"role":"user","content":"` + tracePrompt + `"}]}`
	status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(req), map[string]string{
		"Authorization": "Bearer " + traceAPIKey,
		"traceparent":   "00-" + clientTrace + "-" + clientSpan + "-01",
	})
	if status != 200 || !strings.Contains(string(body), "blocked by deny-shell") {
		t.Fatalf("the call was not blocked: %d %s", status, hgShort(body))
	}

	spans := rcv.waitSpans(t, func(s *tracepb.Span) bool { return s.Kind == tracepb.Span_SPAN_KIND_SERVER })
	// The request span ends last; once it is here the rest are too
	// (spans are exported as they end).
	byID := map[string]*tracepb.Span{}
	for _, sp := range spans {
		byID[hex.EncodeToString(sp.SpanId)] = sp
		if got := hex.EncodeToString(sp.TraceId); got != clientTrace {
			t.Errorf("span %q is in trace %s, want the client's %s", sp.Name, got, clientTrace)
		}
	}
	find := func(what string, ok func(*tracepb.Span) bool) *tracepb.Span {
		t.Helper()
		for _, sp := range spans {
			if ok(sp) {
				return sp
			}
		}
		t.Fatalf("no %s span among %v", what, spanNames(spans))
		return nil
	}
	parentOf := func(sp *tracepb.Span) string { return hex.EncodeToString(sp.ParentSpanId) }

	reqSpan := find("request", func(s *tracepb.Span) bool { return s.Kind == tracepb.Span_SPAN_KIND_SERVER })
	if parentOf(reqSpan) != clientSpan {
		t.Errorf("request span's parent %s, want the client's span %s", parentOf(reqSpan), clientSpan)
	}
	for key, want := range map[string]string{
		"gen_ai.request.model": "gpt-trace", "gen_ai.operation.name": "chat",
		"gen_ai.provider.name": "openai", "gen_ai.system": "openai", "http.route": "/v1/chat/completions",
	} {
		if got := spanString(reqSpan, key); got != want {
			t.Errorf("request span %s = %q, want %q", key, got, want)
		}
	}
	for key, want := range map[string]int64{"gen_ai.usage.input_tokens": 11, "gen_ai.usage.output_tokens": 7} {
		if v, _ := spanAttr(reqSpan, key); v.GetIntValue() != want {
			t.Errorf("request span %s = %v, want %d", key, v, want)
		}
	}
	reqID := hex.EncodeToString(reqSpan.SpanId)

	upSpan := find("upstream", func(s *tracepb.Span) bool { return s.Kind == tracepb.Span_SPAN_KIND_CLIENT })
	if parentOf(upSpan) != reqID || upSpan.Name != "chat gpt-trace" {
		t.Errorf("upstream span %q has parent %s, want %q under the request span %s", upSpan.Name, parentOf(upSpan), "chat gpt-trace", reqID)
	}
	if v, _ := spanAttr(upSpan, "http.response.status_code"); v.GetIntValue() != 200 {
		t.Errorf("upstream span status code %v, want 200", v)
	}

	held := find("held call", func(s *tracepb.Span) bool { return spanString(s, "hookgate.held.outcome") != "" })
	if parentOf(held) != reqID || held.Name != "hold exec" {
		t.Errorf("held-call span %q has parent %s, want %q under the request span", held.Name, parentOf(held), "hold exec")
	}
	for key, want := range map[string]string{
		"gen_ai.tool.name": "exec", "gen_ai.tool.call.id": "call_tr1", "hookgate.decision": "block",
		"hookgate.hook.id": "deny-shell", "hookgate.held.outcome": "blocked",
	} {
		if got := spanString(held, key); got != want {
			t.Errorf("held-call span %s = %q, want %q", key, got, want)
		}
	}
	heldID := hex.EncodeToString(held.SpanId)

	deny := find("deny-shell hook", func(s *tracepb.Span) bool { return spanString(s, "hookgate.hook.id") == "deny-shell" && s != held })
	ask := find("ask-service hook", func(s *tracepb.Span) bool { return spanString(s, "hookgate.hook.id") == "ask-service" })
	for _, h := range []*tracepb.Span{deny, ask} {
		if parentOf(h) != heldID {
			t.Errorf("hook span %q has parent %s, want the held-call span %s", h.Name, parentOf(h), heldID)
		}
		if got := spanString(h, "hookgate.hook.event"); got != "pre_tool_use" {
			t.Errorf("hook span %q event %q", h.Name, got)
		}
		if got := spanString(h, "gen_ai.tool.name"); got != "exec" {
			t.Errorf("hook span %q tool %q", h.Name, got)
		}
	}
	if got := spanString(deny, "hookgate.decision"); got != "block" {
		t.Errorf("deny-shell's span decision %q, want block", got)
	}
	if got := spanString(ask, "hookgate.decision"); got != "allow" {
		t.Errorf("ask-service's span decision %q, want allow", got)
	}

	// The http hook was called as a child of its own span.
	tp, _ := hookHeaders.Load("traceparent")
	if want := "00-" + clientTrace + "-" + hex.EncodeToString(ask.SpanId) + "-01"; tp != want {
		t.Errorf("http hook got traceparent %q, want %q", tp, want)
	}
	// The upstream was called as a child of the upstream span.
	reqs := s.mock.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d upstream requests", len(reqs))
	}
	if got, want := reqs[0].Header.Get("Traceparent"), "00-"+clientTrace+"-"+hex.EncodeToString(upSpan.SpanId)+"-01"; got != want {
		t.Errorf("upstream got traceparent %q, want %q", got, want)
	}

	// Nothing secret in any span: not the key, the arguments or the prompt.
	for _, sp := range spans {
		for _, a := range sp.Attributes {
			v := a.Value.String()
			for _, secret := range []string{traceAPIKey, "TRACE-SECRET-ARG", tracePrompt, "rm -rf"} {
				if strings.Contains(v, secret) || strings.Contains(sp.Name, secret) {
					t.Errorf("span %q attribute %s carries %q: %s", sp.Name, a.Key, secret, v)
				}
			}
		}
		for _, ev := range sp.Events {
			t.Errorf("span %q has an event %q: hookgate records none", sp.Name, ev.Name)
		}
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if rcv.service != "hookgate-e2e" {
		t.Errorf("service.name %q", rcv.service)
	}
	if got := rcv.headers.Get("X-Collector-Token"); got != "collector-token-1" {
		t.Errorf("the export carried X-Collector-Token %q, want the value of HG_TRACE_TOKEN", got)
	}
}

func TestTraceparentReachesTheUpstream(t *testing.T) {
	t.Setenv("HG_TRACE_TOKEN", "collector-token-1")
	const clientTrace = "0af7651916cd43dd8448eb211c80319c"
	sampled := "00-" + clientTrace + "-b7ad6b7169203331-01"
	unsampled := "00-" + clientTrace + "-b7ad6b7169203331-00"
	rcv := startOTLPReceiver(t)
	cases := []struct {
		name, config, sent string
		// check judges the traceparent the upstream got.
		check func(got string) bool
		want  string
	}{
		{"off passes the client's as it came", "", sampled,
			func(got string) bool { return got == sampled }, "the client's own"},
		{"on continues the client's trace", tracingConfig(rcv), sampled,
			func(got string) bool {
				return strings.HasPrefix(got, "00-"+clientTrace+"-") && strings.HasSuffix(got, "-01") && got != sampled
			}, "the client's trace id, a new span id, sampled"},
		{"on follows an unsampled parent", tracingConfig(rcv), unsampled,
			func(got string) bool {
				return strings.HasPrefix(got, "00-"+clientTrace+"-") && strings.HasSuffix(got, "-00")
			}, "the client's trace id, not sampled"},
		{"ratio 0 starts an unsampled trace", tracingConfig(rcv) + "  sample_ratio: 0\n", "",
			func(got string) bool {
				return len(got) == 55 && strings.HasPrefix(got, "00-") && strings.HasSuffix(got, "-00") && !strings.Contains(got, clientTrace)
			}, "a new trace, not sampled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := startStack(t, c.config+oneHook)
			s.mock.Enqueue(mockupstream.Stream(mockupstream.StreamSpec{TextDeltas: 2}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
			var header map[string]string
			if c.sent != "" {
				header = map[string]string{"traceparent": c.sent}
			}
			if status, body := hgPostStream(t, s, header); status != 200 {
				t.Fatalf("status %d: %s", status, hgShort(body))
			}
			reqs := s.mock.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d upstream requests", len(reqs))
			}
			if got := reqs[0].Header.Values("Traceparent"); len(got) != 1 || !c.check(got[0]) {
				t.Fatalf("upstream got traceparent %q, want %s", got, c.want)
			}
		})
	}
}

func TestTracesOfABlockedMessagesToolUse(t *testing.T) {
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("HG_TRACE_TOKEN", "collector-token-1")
	rcv := startOTLPReceiver(t)
	mock := mockupstream.Start(t)
	a := startApp(t, "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: claude\n    provider: anthropic\n    base_url: "+mock.URL()+"\n"+tracingConfig(rcv)+denyShell)
	ev := func(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }
	mock.Enqueue(mockupstream.Stream([]byte(
		ev("message_start", `{"type":"message_start","message":{"id":"msg_tr","type":"message","role":"assistant","model":"claude-trace","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":21,"output_tokens":1}}}`)+
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_tr","name":"exec","input":{}}}`)+
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"`+traceToolArg+`\"}"}}`)+
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`)+
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}`)+
			ev("message_stop", `{"type":"message_stop"}`)),
		mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	req := `{"model":"claude-trace","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"` + tracePrompt + `"}]}`
	status, _, body := rawPost(t, a.URL(), "/v1/messages", []byte(req), map[string]string{
		"x-api-key": traceAPIKey, "anthropic-version": "2023-06-01",
	})
	if status != 200 || !strings.Contains(string(body), "blocked by deny-shell") {
		t.Fatalf("the call was not blocked: %d %s", status, hgShort(body))
	}
	spans := rcv.waitSpans(t, func(s *tracepb.Span) bool { return s.Kind == tracepb.Span_SPAN_KIND_SERVER })
	var reqSpan, upSpan, held, hook *tracepb.Span
	for _, sp := range spans {
		switch {
		case sp.Kind == tracepb.Span_SPAN_KIND_SERVER:
			reqSpan = sp
		case sp.Kind == tracepb.Span_SPAN_KIND_CLIENT:
			upSpan = sp
		case spanString(sp, "hookgate.held.outcome") != "":
			held = sp
		case spanString(sp, "hookgate.hook.id") == "deny-shell":
			hook = sp
		}
	}
	if reqSpan == nil || upSpan == nil || held == nil || hook == nil {
		t.Fatalf("missing spans among %v", spanNames(spans))
	}
	if len(reqSpan.ParentSpanId) != 0 {
		t.Errorf("a request without traceparent got a parent")
	}
	if spanString(reqSpan, "gen_ai.provider.name") != "anthropic" || spanString(reqSpan, "gen_ai.request.model") != "claude-trace" || upSpan.Name != "chat claude-trace" {
		t.Errorf("request span %v / upstream span %q lack the GenAI attributes", reqSpan.Attributes, upSpan.Name)
	}
	for key, want := range map[string]int64{"gen_ai.usage.input_tokens": 21, "gen_ai.usage.output_tokens": 9} {
		if v, _ := spanAttr(reqSpan, key); v.GetIntValue() != want {
			t.Errorf("request span %s = %v, want %d", key, v, want)
		}
	}
	if string(held.ParentSpanId) != string(reqSpan.SpanId) || string(hook.ParentSpanId) != string(held.SpanId) || string(upSpan.ParentSpanId) != string(reqSpan.SpanId) {
		t.Errorf("span tree wrong: upstream under %x, held under %x, hook under %x; request %x, held %x",
			upSpan.ParentSpanId, held.ParentSpanId, hook.ParentSpanId, reqSpan.SpanId, held.SpanId)
	}
	if held.Name != "hold exec" || spanString(held, "gen_ai.tool.call.id") != "toolu_tr" || spanString(held, "hookgate.decision") != "block" || spanString(hook, "hookgate.decision") != "block" {
		t.Errorf("held span %q %v, hook span %v", held.Name, held.Attributes, hook.Attributes)
	}
	for _, sp := range spans {
		for _, at := range sp.Attributes {
			for _, secret := range []string{traceAPIKey, "TRACE-SECRET-ARG", tracePrompt, "rm -rf"} {
				if strings.Contains(at.Value.String(), secret) {
					t.Errorf("span %q attribute %s carries %q", sp.Name, at.Key, secret)
				}
			}
		}
	}
	if got := mock.Requests()[0].Header.Get("Traceparent"); !strings.HasSuffix(got, hex.EncodeToString(upSpan.SpanId)+"-01") {
		t.Errorf("upstream traceparent %q is not the upstream span's", got)
	}
}

func TestTracesOfAResponsesStreamWithOneCallBlocked(t *testing.T) {
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("HG_TRACE_TOKEN", "collector-token-1")
	rcv := startOTLPReceiver(t)
	s := startStack(t, tracingConfig(rcv)+`hooks:
  - id: house-rules
    event: session_start
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "allow", additionalContext: "House rules." }; }
  - id: no-multiply
    event: pre_tool_use
    matcher: multiply
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "multiplication is off" }; }
`)
	stream, _ := fixtureBody(t, "openai-responses/gpt5-reasoning-two-function-calls.sse")
	s.mock.Enqueue(mockupstream.Stream(stream, mockupstream.Chunking{Mode: mockupstream.Random, Size: 40, Seed: 5}))
	status, _, body := rawPost(t, s.app.URL(), "/v1/responses", []byte(`{"model":"gpt-5","stream":true,"input":"`+tracePrompt+`"}`), nil)
	if status != 200 || !strings.Contains(string(body), "multiplication is off") {
		t.Fatalf("status %d: %s", status, hgShort(body))
	}
	spans := rcv.waitSpans(t, func(s *tracepb.Span) bool { return s.Kind == tracepb.Span_SPAN_KIND_SERVER })
	byName := map[string]*tracepb.Span{}
	for _, sp := range spans {
		byName[sp.Name] = sp
	}
	req, add, mul := byName["POST /v1/responses"], byName["hold add"], byName["hold multiply"]
	hookMul, hookRules := byName["hook no-multiply"], byName["hook house-rules"]
	if req == nil || add == nil || mul == nil || hookMul == nil || hookRules == nil || byName["chat gpt-5"] == nil {
		t.Fatalf("spans %v", spanNames(spans))
	}
	if spanString(add, "hookgate.held.outcome") != "released" || spanString(add, "hookgate.decision") != "allow" ||
		spanString(mul, "hookgate.held.outcome") != "blocked" || spanString(mul, "hookgate.hook.id") != "no-multiply" {
		t.Errorf("held spans: add %v, multiply %v", add.Attributes, mul.Attributes)
	}
	if string(hookMul.ParentSpanId) != string(mul.SpanId) || string(mul.ParentSpanId) != string(req.SpanId) || string(add.ParentSpanId) != string(req.SpanId) {
		t.Errorf("held calls are not under the request, or the hook not under its call")
	}
	// A request-side hook runs under the request's span.
	if string(hookRules.ParentSpanId) != string(req.SpanId) || spanString(hookRules, "hookgate.hook.event") != "session_start" {
		t.Errorf("session_start hook span %v under %x", hookRules.Attributes, hookRules.ParentSpanId)
	}
	for key, want := range map[string]int64{"gen_ai.usage.input_tokens": 109, "gen_ai.usage.output_tokens": 223} {
		if v, _ := spanAttr(req, key); v.GetIntValue() != want {
			t.Errorf("request span %s = %v, want %d", key, v, want)
		}
	}
	for _, sp := range spans {
		for _, at := range sp.Attributes {
			if strings.Contains(at.Value.String(), tracePrompt) || strings.Contains(at.Value.String(), "multiplication is off") {
				t.Errorf("span %q attribute %s carries a prompt or a reason: %s", sp.Name, at.Key, at.Value)
			}
		}
	}
}

func TestTracesOfAGeminiStreamWithOneCallBlocked(t *testing.T) {
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("HG_TRACE_TOKEN", "collector-token-1")
	rcv := startOTLPReceiver(t)
	s := startGeminiStack(t, tracingConfig(rcv)+blockMultiply)
	s.mock.Enqueue(mockupstream.Stream(geminiFixture(t, geminiParallel), chunkings[0]))
	status, _, body := rawPost(t, s.app.URL(), "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=client-key-SECRET",
		[]byte(`{"contents":[{"role":"user","parts":[{"text":"`+tracePrompt+`"}]}]}`), nil)
	if status != 200 {
		t.Fatalf("status %d: %s", status, hgShort(body))
	}
	spans := rcv.waitSpans(t, func(s *tracepb.Span) bool { return s.Kind == tracepb.Span_SPAN_KIND_SERVER })
	byName := map[string]*tracepb.Span{}
	for _, sp := range spans {
		byName[sp.Name] = sp
	}
	var req *tracepb.Span
	for _, sp := range spans {
		if sp.Kind == tracepb.Span_SPAN_KIND_SERVER {
			req = sp
		}
	}
	add, mul := byName["hold add"], byName["hold multiply"]
	if add == nil || mul == nil {
		t.Fatalf("spans %v", spanNames(spans))
	}
	if spanString(add, "hookgate.held.outcome") != "released" || spanString(mul, "hookgate.held.outcome") != "blocked" ||
		string(mul.ParentSpanId) != string(req.SpanId) {
		t.Errorf("held spans: add %v, multiply %v", add.Attributes, mul.Attributes)
	}
	if spanString(req, "gen_ai.provider.name") != "gcp.gemini" || spanString(req, "gen_ai.operation.name") != "generate_content" || spanString(req, "gen_ai.request.model") != "gemini-2.5-flash" {
		t.Errorf("request span %v", req.Attributes)
	}
	for _, sp := range spans {
		for _, at := range sp.Attributes {
			for _, secret := range []string{"client-key-SECRET", "upstream-key", tracePrompt} {
				if strings.Contains(at.Value.String(), secret) {
					t.Errorf("span %q attribute %s carries %q", sp.Name, at.Key, secret)
				}
			}
		}
	}
	if got := s.mock.Requests()[0].Header.Get("Traceparent"); got == "" {
		t.Errorf("the upstream got no traceparent")
	}
}
