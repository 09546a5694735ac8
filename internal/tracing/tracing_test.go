package tracing

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

const remote = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func inMemory(t *testing.T, ratio float64) (*Provider, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	p := NewWithExporter(exp, Options{SampleRatio: ratio, ServiceName: "unit"})
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return p, exp
}

func TestChildStartsOnlyUnderARecordingSpan(t *testing.T) {
	if ctx, sp := Child(context.Background(), "x", trace.SpanKindInternal); sp != nil || ctx != context.Background() {
		t.Fatal("a context without a span started a child")
	}
	if Recording(context.Background()) {
		t.Fatal("an empty context records")
	}
	p, exp := inMemory(t, 1)
	ctx, root := p.Tracer().Start(context.Background(), "root")
	_, child := Child(ctx, "child", trace.SpanKindInternal)
	if child == nil {
		t.Fatal("no child under a recording span")
	}
	child.End()
	root.End()
	// Shutdown would empty the in-memory exporter.
	if err := p.tp.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	if len(spans) != 2 || spans[0].Name != "child" || spans[0].Parent.SpanID() != root.SpanContext().SpanID() {
		t.Fatalf("want child under root, got %v", spans.Snapshots())
	}
	if spans[0].InstrumentationScope.Name != Scope {
		t.Fatalf("child's scope %q", spans[0].InstrumentationScope.Name)
	}
}

func TestSamplingFollowsTheClientsParent(t *testing.T) {
	for _, c := range []struct {
		name      string
		ratio     float64
		parent    string
		recording bool
	}{
		{"ratio 0 keeps a sampled parent's trace", 0, remote, true},
		{"ratio 1 follows an unsampled parent", 1, strings.TrimSuffix(remote, "01") + "00", false},
		{"ratio 0 samples no new trace", 0, "", false},
		{"ratio 1 samples every new trace", 1, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _ := inMemory(t, c.ratio)
			var h fasthttp.RequestHeader
			if c.parent != "" {
				h.Set("traceparent", c.parent)
			}
			ctx, sp := p.Tracer().Start(Extract(context.Background(), &h), "request")
			defer sp.End()
			if sp.IsRecording() != c.recording || Recording(ctx) != c.recording {
				t.Fatalf("recording %v, want %v", sp.IsRecording(), c.recording)
			}
			if c.parent != "" && sp.SpanContext().TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" {
				t.Fatalf("trace id %s is not the client's", sp.SpanContext().TraceID())
			}
		})
	}
}

func TestInjectRequestReplacesEverySpellingOfTheClientsHeaders(t *testing.T) {
	p, _ := inMemory(t, 1)
	ctx, sp := p.Tracer().Start(context.Background(), "upstream")
	defer sp.End()
	var h fasthttp.RequestHeader
	h.DisableNormalizing()
	h.Set("TRACEPARENT", remote)
	h.Set("traceparent", remote)
	h.Set("TraceState", "client=1")
	InjectRequest(ctx, &h)
	var got []string
	for k, v := range h.All() {
		if strings.EqualFold(string(k), "traceparent") || strings.EqualFold(string(k), "tracestate") {
			got = append(got, string(k)+": "+string(v))
		}
	}
	want := "traceparent: 00-" + sp.SpanContext().TraceID().String() + "-" + sp.SpanContext().SpanID().String() + "-01"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("headers %q, want only %q", got, want)
	}

	// Without a span the request is left as it is.
	var plain fasthttp.RequestHeader
	plain.Set("traceparent", remote)
	InjectRequest(context.Background(), &plain)
	if string(plain.Peek("traceparent")) != remote {
		t.Fatalf("an untraced request's traceparent changed to %q", plain.Peek("traceparent"))
	}
}

func TestNewRefusesWhatItCannotExportTo(t *testing.T) {
	for _, o := range []Options{{}, {Endpoint: "127.0.0.1:4318", Protocol: "zipkin"}} {
		if _, err := New(context.Background(), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	for _, proto := range []string{"http", "grpc"} {
		p, err := New(context.Background(), Options{Endpoint: "127.0.0.1:1", Protocol: proto, Insecure: true, SampleRatio: 1})
		if err != nil {
			t.Fatalf("%s: %v", proto, err)
		}
		if p.Tracer() == nil {
			t.Fatalf("%s: no tracer", proto)
		}
		// Nothing was exported, so nothing fails at shutdown.
		if err := p.Shutdown(context.Background()); err != nil {
			t.Fatalf("%s: shutdown: %v", proto, err)
		}
	}
	var off *Provider
	if off.Tracer() != nil || off.Shutdown(context.Background()) != nil {
		t.Fatal("a nil provider is not tracing off")
	}
}

func TestExportFailuresAreLoggedSpaced(t *testing.T) {
	var buf strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), nil))
	LogErrors(log, time.Hour)
	defer otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
	for range 3 {
		otel.Handle(errors.New("collector refused"))
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(buf.String(), "tracing: spans not exported"); n != 1 || !strings.Contains(buf.String(), "collector refused") {
		t.Fatalf("%d lines: %s", n, buf.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
