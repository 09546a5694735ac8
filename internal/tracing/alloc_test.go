//go:build !race

package tracing

import (
	"context"
	"testing"

	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/trace"
)

// With tracing off no span is ever in a context: what the proxy, the
// interceptors and the engine call on every request then costs nothing.
func TestTracingOffAllocatesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var h fasthttp.RequestHeader
	h.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	n := testing.AllocsPerRun(200, func() {
		if Recording(ctx) {
			t.Fatal("recording")
		}
		if _, sp := Child(ctx, "x", trace.SpanKindInternal); sp != nil {
			t.Fatal("a span")
		}
		InjectRequest(ctx, &h)
		InjectHTTP(ctx, nil)
	})
	if n != 0 {
		t.Fatalf("%v allocations per request with tracing off, want 0", n)
	}
}
