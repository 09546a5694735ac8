package deploy

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// collector is the OpenTelemetry Collector's own OTLP receiver
// (otlpreceiver), run in this process on loopback with both of its
// protocols, gRPC and HTTP, feeding what it accepts into a sink.
type collector struct {
	// HTTPURL is the OTLP/HTTP traces endpoint, http://127.0.0.1:PORT/v1/traces.
	HTTPURL string
	// GRPCAddr is the OTLP/gRPC listener, 127.0.0.1:PORT.
	GRPCAddr string
	sink     *consumertest.TracesSink
}

// startCollector starts the receiver on two free loopback ports, read back
// from its own "Starting ... server" log lines, and shuts it down when the
// test ends. Each export's metadata (its headers) is kept beside its
// spans.
func startCollector(t *testing.T) *collector {
	t.Helper()
	factory := otlpreceiver.NewFactory()
	cfg := factory.CreateDefaultConfig().(*otlpreceiver.Config)
	grpcCfg := cfg.Protocols.GRPC.GetOrInsertDefault()
	grpcCfg.NetAddr.Endpoint = "127.0.0.1:0"
	grpcCfg.IncludeMetadata = true
	httpCfg := cfg.Protocols.HTTP.GetOrInsertDefault()
	httpCfg.ServerConfig.NetAddr.Endpoint = "127.0.0.1:0"
	httpCfg.ServerConfig.IncludeMetadata = true

	core, logs := observer.New(zapcore.InfoLevel)
	set := receivertest.NewNopSettings(factory.Type())
	set.Logger = zap.New(core)
	c := &collector{sink: new(consumertest.TracesSink)}
	rcv, err := factory.CreateTraces(context.Background(), set, cfg, c.sink)
	if err != nil {
		t.Fatalf("otlpreceiver: %v", err)
	}
	if err := rcv.Start(context.Background(), nopHost{}); err != nil {
		t.Fatalf("otlpreceiver start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := rcv.Shutdown(ctx); err != nil {
			t.Errorf("otlpreceiver shutdown: %v", err)
		}
	})
	for _, e := range logs.All() {
		endpoint := ""
		for _, f := range e.Context {
			if f.Key == "endpoint" {
				endpoint = f.String
			}
		}
		switch e.Message {
		case "Starting GRPC server":
			c.GRPCAddr = endpoint
		case "Starting HTTP server":
			c.HTTPURL = "http://" + endpoint + "/v1/traces"
		}
	}
	if c.GRPCAddr == "" || c.HTTPURL == "" {
		t.Fatalf("otlpreceiver did not log both listeners (grpc %q, http %q)", c.GRPCAddr, c.HTTPURL)
	}
	return c
}

// nopHost is a collector host with no extensions: the receiver asks one
// only for an auth extension, and none is configured.
type nopHost struct{}

func (nopHost) GetExtensions() map[component.ID]component.Component { return nil }

var _ component.Host = nopHost{}

// receivedSpan is one span the collector accepted, with its resource's
// service.name and the metadata of the export that carried it.
type receivedSpan struct {
	ptrace.Span
	Service string
	Meta    client.Metadata
}

// trace returns the spans of one trace accepted so far.
func (c *collector) trace(traceID string) []receivedSpan {
	var out []receivedSpan
	ctxs := c.sink.Contexts()
	for i, td := range c.sink.AllTraces() {
		meta := client.FromContext(ctxs[i]).Metadata
		for _, rs := range td.ResourceSpans().All() {
			service := ""
			if v, ok := rs.Resource().Attributes().Get("service.name"); ok {
				service = v.AsString()
			}
			for _, ss := range rs.ScopeSpans().All() {
				for _, sp := range ss.Spans().All() {
					if sp.TraceID().String() == traceID {
						out = append(out, receivedSpan{Span: sp, Service: service, Meta: meta})
					}
				}
			}
		}
	}
	return out
}

// waitTrace waits (up to 30 s) until the trace's server span, the one
// that ends last, has arrived, and returns the trace.
func (c *collector) waitTrace(t *testing.T, traceID string) []receivedSpan {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		spans := c.trace(traceID)
		for _, sp := range spans {
			if sp.Kind() == ptrace.SpanKindServer {
				return spans
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("trace %s: no server span reached the collector within 30 s; it has %d spans of it", traceID, len(spans))
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// The recorded stream the upstream replays: gpt-4o calling final_result,
// its arguments split over 53 deltas, usage in a last chunk.
const collectorFixture = "openai/chat-gpt4o-args-split-53-chunks.sse"

// fixturePath finds a recorded fixture as the main module's tests do:
// under $HOOKGATE_FIXTURES if set, or else under the first shared/fixtures
// found walking up from the working directory (the checkout sits beside
// shared/, for a developer and in CI).
func fixturePath(t *testing.T, name string) string {
	t.Helper()
	if d := os.Getenv("HOOKGATE_FIXTURES"); d != "" {
		return filepath.Join(d, filepath.FromSlash(name))
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, "shared", "fixtures")); err == nil && st.IsDir() {
			return filepath.Join(d, "shared", "fixtures", filepath.FromSlash(name))
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no shared/fixtures above %s (set HOOKGATE_FIXTURES)", wd)
		}
	}
}

// What must reach no span: the agent's key, text from the tool call's
// arguments (the recording's), and the prompt.
const (
	collectorAPIKey = "sk-collector-SECRET-KEY-71d0"
	collectorPrompt = "COLLECTOR-SECRET-PROMPT-e41a"
)

var collectorArgTexts = []string{"capital of Mexico", "Mexico City", "Pydantic AI", "currently sunny"}

// replayUpstream serves the recording as an OpenAI chat stream, one SSE
// event a write, and keeps each request's traceparent.
type replayUpstream struct {
	*httptest.Server
	mu           sync.Mutex
	traceparents []string
}

func startReplayUpstream(t *testing.T) *replayUpstream {
	t.Helper()
	body, err := os.ReadFile(fixturePath(t, collectorFixture))
	if err != nil {
		t.Fatal(err)
	}
	events := strings.SplitAfter(string(body), "\n\n")
	u := &replayUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		u.mu.Lock()
		u.traceparents = append(u.traceparents, r.Header.Get("Traceparent"))
		u.mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		fl := w.(http.Flusher)
		for _, ev := range events {
			_, _ = io.WriteString(w, ev)
			fl.Flush()
		}
	}))
	t.Cleanup(u.Close)
	return u
}

var collectorListening = regexp.MustCompile(`proxy=(http://[0-9.:]+)`)

// serveTraced runs the built `hookgate serve` in front of up, exporting
// its spans with the given tracing block, and returns its proxy URL.
func serveTraced(t *testing.T, up *replayUpstream, tracing string) string {
	t.Helper()
	bin := hookgateBinary(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "hookgate.yaml")
	cfg := `listen: 127.0.0.1:0
admin:
  listen: 127.0.0.1:0
store:
  path: ` + filepath.Join(dir, "hookgate.db") + `
upstreams:
  - name: replay
    provider: openai
    base_url: ` + up.URL + `
hooks:
  - id: no-answers-about-mexico
    event: pre_tool_use
    matcher: "^final_result$"
    handler:
      type: builtin
      name: deny_patterns
      with: {patterns: [{label: mexico, regex: "capital of Mexico"}]}
` + tracing
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--config", cfgPath, "--watch", "0")
	cmd.Dir = dir
	cmd.Env = []string{
		"HOME=" + dir, "XDG_STATE_HOME=" + dir, "PATH=" + os.Getenv("PATH"),
		"HG_COLLECTOR_TOKEN=collector-token-2",
		// Export each batch 50 ms after its first span, not 5 s.
		"OTEL_BSP_SCHEDULE_DELAY=50",
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	var (
		logMu sync.Mutex
		log   bytes.Buffer
	)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			logMu.Lock()
			t.Logf("hookgate's log:\n%s", log.String())
			logMu.Unlock()
		}
	})
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			logMu.Lock()
			log.WriteString(sc.Text() + "\n")
			logMu.Unlock()
			if m := collectorListening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case url <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case u := <-url:
		return u
	case <-time.After(30 * time.Second):
		logMu.Lock()
		defer logMu.Unlock()
		t.Fatalf("hookgate serve did not start within 30 s:\n%s", log.String())
	}
	return ""
}

// TestTracesReachTheCollectorsOTLPReceiver runs the static hookgate binary
// against the OpenTelemetry Collector's OTLP receiver, once exporting over
// HTTP and once over gRPC. A streamed request carrying the agent's
// traceparent gets a recorded tool call that a hook blocks; the trace the
// collector accepted must continue the agent's, hold the request, upstream,
// held-call and hook spans in their tree with their GenAI attributes, and
// carry neither the key, the prompt nor the call's arguments.
func TestTracesReachTheCollectorsOTLPReceiver(t *testing.T) {
	col := startCollector(t)
	up := startReplayUpstream(t)
	cases := []struct {
		protocol, tracing, traceID, contentType string
	}{
		{"http", "  endpoint: " + col.HTTPURL + "\n  protocol: http\n",
			"5a3c1e0b9d7f46a2b8c4e6f0a1b2c3d4", "application/x-protobuf"},
		{"grpc", "  endpoint: " + col.GRPCAddr + "\n  protocol: grpc\n  insecure: true\n",
			"6b4d2f1cae8057b3c9d5f7a1b2c3d4e5", "application/grpc"},
	}
	for _, c := range cases {
		t.Run(c.protocol, func(t *testing.T) {
			url := serveTraced(t, up, "tracing:\n  enabled: true\n"+c.tracing+
				"  service_name: hookgate-collector-test\n  headers_env: {X-Collector-Token: HG_COLLECTOR_TOKEN}\n")
			const clientSpan = "00f067aa0ba902b7"
			body := `{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"` + collectorPrompt + `"}]}`
			req, err := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+collectorAPIKey)
			req.Header.Set("Traceparent", "00-"+c.traceID+"-"+clientSpan+"-01")
			cl := &http.Client{Timeout: 30 * time.Second}
			resp, err := cl.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || !strings.Contains(string(got), "blocked by no-answers-about-mexico") {
				t.Fatalf("the call was not blocked: %d %v\n%s", resp.StatusCode, err, got)
			}

			spans := col.waitTrace(t, c.traceID)
			checkCollectedTrace(t, spans, clientSpan, c.contentType)

			// The upstream was called as a child of the upstream span.
			var upSpan string
			for _, sp := range spans {
				if sp.Kind() == ptrace.SpanKindClient {
					upSpan = sp.SpanID().String()
				}
			}
			want := "00-" + c.traceID + "-" + upSpan + "-01"
			up.mu.Lock()
			defer up.mu.Unlock()
			found := false
			for _, tp := range up.traceparents {
				found = found || tp == want
			}
			if !found {
				t.Errorf("no upstream request carried traceparent %s; they carried %q", want, up.traceparents)
			}
		})
	}
}

// checkCollectedTrace holds one trace, as the collector accepted it, to
// the span tree and attributes of a streamed request whose only tool call
// was blocked, and to carrying no secret.
func checkCollectedTrace(t *testing.T, spans []receivedSpan, clientSpan, contentType string) {
	t.Helper()
	names := make([]string, 0, len(spans))
	for _, sp := range spans {
		names = append(names, sp.Name())
	}
	find := func(what string, ok func(receivedSpan) bool) receivedSpan {
		t.Helper()
		var hit []receivedSpan
		for _, sp := range spans {
			if ok(sp) {
				hit = append(hit, sp)
			}
		}
		if len(hit) != 1 {
			t.Fatalf("want one %s span, got %d among %q", what, len(hit), names)
		}
		return hit[0]
	}
	str := func(sp receivedSpan, key string) string {
		v, ok := sp.Attributes().Get(key)
		if !ok {
			return "<unset>"
		}
		return v.AsString()
	}
	wantAttrs := func(sp receivedSpan, want map[string]string) {
		t.Helper()
		for k, w := range want {
			if got := str(sp, k); got != w {
				t.Errorf("span %q: %s = %q, want %q", sp.Name(), k, got, w)
			}
		}
	}

	reqSpan := find("server (request)", func(sp receivedSpan) bool { return sp.Kind() == ptrace.SpanKindServer })
	if got := reqSpan.ParentSpanID().String(); got != clientSpan {
		t.Errorf("request span's parent is %s, want the agent's span %s", got, clientSpan)
	}
	wantAttrs(reqSpan, map[string]string{
		"gen_ai.request.model": "gpt-4o", "gen_ai.operation.name": "chat", "gen_ai.system": "openai",
		"gen_ai.provider.name": "openai", "http.route": "/v1/chat/completions", "http.request.method": "POST",
		"gen_ai.usage.input_tokens": "448", "gen_ai.usage.output_tokens": "62",
	})
	reqID := reqSpan.SpanID().String()

	upSpan := find("client (upstream)", func(sp receivedSpan) bool { return sp.Kind() == ptrace.SpanKindClient })
	if upSpan.ParentSpanID().String() != reqID || upSpan.Name() != "chat gpt-4o" {
		t.Errorf("upstream span %q has parent %s, want %q under the request span %s", upSpan.Name(), upSpan.ParentSpanID(), "chat gpt-4o", reqID)
	}
	wantAttrs(upSpan, map[string]string{"gen_ai.request.model": "gpt-4o", "gen_ai.operation.name": "chat", "http.response.status_code": "200"})

	held := find("held call", func(sp receivedSpan) bool { return strings.HasPrefix(sp.Name(), "hold ") })
	if held.ParentSpanID().String() != reqID || held.Name() != "hold final_result" {
		t.Errorf("held-call span %q has parent %s, want %q under the request span %s", held.Name(), held.ParentSpanID(), "hold final_result", reqID)
	}
	wantAttrs(held, map[string]string{
		"gen_ai.tool.name": "final_result", "gen_ai.tool.call.id": "call_CCGIWaMeYWmxOQ91orkmTvzn",
		"hookgate.decision": "block", "hookgate.held.outcome": "blocked", "hookgate.hook.id": "no-answers-about-mexico",
	})

	hook := find("hook", func(sp receivedSpan) bool { return strings.HasPrefix(sp.Name(), "hook ") })
	if hook.ParentSpanID().String() != held.SpanID().String() || hook.Name() != "hook no-answers-about-mexico" {
		t.Errorf("hook span %q has parent %s, want %q under the held-call span %s", hook.Name(), hook.ParentSpanID(), "hook no-answers-about-mexico", held.SpanID())
	}
	wantAttrs(hook, map[string]string{
		"hookgate.hook.id": "no-answers-about-mexico", "hookgate.hook.event": "pre_tool_use",
		"gen_ai.tool.name": "final_result", "hookgate.decision": "block",
	})
	if len(spans) != 4 {
		t.Errorf("want 4 spans (request, upstream, held call, hook), got %q", names)
	}

	secrets := append([]string{collectorAPIKey, collectorPrompt}, collectorArgTexts...)
	for _, sp := range spans {
		if sp.Service != "hookgate-collector-test" {
			t.Errorf("span %q came with service.name %q", sp.Name(), sp.Service)
		}
		if got := sp.Meta.Get("content-type"); len(got) != 1 || got[0] != contentType {
			t.Errorf("span %q came in an export of content-type %q, want %s", sp.Name(), got, contentType)
		}
		if got := sp.Meta.Get("x-collector-token"); len(got) != 1 || got[0] != "collector-token-2" {
			t.Errorf("span %q came in an export with X-Collector-Token %q, want HG_COLLECTOR_TOKEN's value", sp.Name(), got)
		}
		texts := []string{sp.Name(), sp.Status().Message()}
		for k, v := range sp.Attributes().All() {
			texts = append(texts, k+"="+v.AsString())
		}
		for _, ev := range sp.Events().All() {
			texts = append(texts, ev.Name())
			for k, v := range ev.Attributes().All() {
				texts = append(texts, k+"="+v.AsString())
			}
		}
		for _, text := range texts {
			for _, secret := range secrets {
				if strings.Contains(text, secret) {
					t.Errorf("span %q carries %q: %s", sp.Name(), secret, text)
				}
			}
		}
	}
}
