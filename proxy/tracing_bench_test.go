//go:build !race

package proxy_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// BenchmarkTracedStream sends one streamed chat completion with a held
// tool call (judged by a builtin pre_tool_use hook) through hookgate per
// iteration, with tracing off, on (every request sampled, exported over
// OTLP/HTTP to a loopback receiver that discards), and on at ratio 0
// for requests without a traceparent (propagated, never recorded). Allocations are the whole process's:
// client, mock upstream and hookgate.
func BenchmarkTracedStream(b *testing.B) {
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer sink.Close()
	tracingOn := "tracing:\n  enabled: true\n  endpoint: " + sink.URL + "/v1/traces\n  insecure: true\n"
	const hook = "hooks:\n  - id: deny-shell\n    event: pre_tool_use\n    handler: {type: builtin, name: deny_patterns, with: {defaults: [shell]}}\n"
	sse := mockupstream.StreamSpec{TextDeltas: 4, ToolCalls: 1, ArgFragments: 3, Usage: true}.SSE()
	body := []byte(`{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"go"}]}`)
	for _, c := range []struct {
		name, config string
		parent       bool // the client sends a sampled traceparent
	}{
		{"off", "", true},
		{"on", tracingOn, true},
		{"on-ratio-0", tracingOn + "  sample_ratio: 0\n", false},
	} {
		b.Run(c.name, func(b *testing.B) {
			mock, err := mockupstream.New(mockupstream.Options{NoRecord: true})
			if err != nil {
				b.Fatal(err)
			}
			defer mock.Close()
			mock.Handle(mockupstream.Always(mockupstream.Stream(sse, mockupstream.Chunking{Mode: mockupstream.PerEvent})))
			a := startHookgate(b, mock.URL(), c.config+hook)
			defer a.Close()
			client := &fasthttp.Client{ReadTimeout: 30 * time.Second}
			url := a.URL() + "/v1/chat/completions"
			send := func() {
				req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
				defer fasthttp.ReleaseRequest(req)
				defer fasthttp.ReleaseResponse(resp)
				req.SetRequestURI(url)
				req.Header.SetMethod("POST")
				req.Header.SetContentType("application/json")
				if c.parent {
					req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
				}
				req.SetBody(body)
				if err := client.Do(req, resp); err != nil || resp.StatusCode() != 200 || !bytes.HasSuffix(resp.Body(), []byte("[DONE]\n\n")) {
					b.Fatalf("request: %v %d %q", err, resp.StatusCode(), resp.Body())
				}
			}
			for range 20 {
				send() // warm pools and connections
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				send()
			}
		})
	}
}
