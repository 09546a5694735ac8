package tracing

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// Scope is the instrumentation scope of every span hookgate starts.
const Scope = "github.com/hookgate/hookgate"

// Options configure the exporter and the sampler (config.Tracing,
// resolved).
type Options struct {
	// Endpoint is host:port, or a URL (http://host:port/v1/traces for
	// http; http(s)://host:port for grpc).
	Endpoint string
	// Protocol is "http" (OTLP/HTTP protobuf; the default) or "grpc".
	Protocol string
	// Insecure sends in plain text instead of TLS. A URL's http scheme
	// means the same.
	Insecure bool
	// Headers go with every export (an authorization token).
	Headers map[string]string
	// SampleRatio is the share of new traces recorded, 0 to 1. A request
	// that carries a traceparent follows its parent's sampled flag.
	SampleRatio float64
	// ServiceName and ServiceVersion name the resource.
	ServiceName, ServiceVersion string
	// BatchTimeout is how long spans wait to be exported together; zero
	// is the SDK's default (5 s, or OTEL_BSP_SCHEDULE_DELAY).
	BatchTimeout time.Duration
}

// Provider is a running tracer provider. A nil *Provider is tracing off:
// its Tracer is nil and Shutdown does nothing.
type Provider struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
}

// New builds the exporter and the provider. Nothing is sent until a span
// ends; an unreachable collector costs dropped spans, never requests.
func New(ctx context.Context, o Options) (*Provider, error) {
	exp, err := newExporter(ctx, o)
	if err != nil {
		return nil, err
	}
	var bopts []sdktrace.BatchSpanProcessorOption
	if o.BatchTimeout > 0 {
		bopts = append(bopts, sdktrace.WithBatchTimeout(o.BatchTimeout))
	}
	return NewWithExporter(exp, o, bopts...), nil
}

// NewWithExporter builds a provider around exp (tests hand it an
// in-memory exporter); o's endpoint settings are not used.
func NewWithExporter(exp sdktrace.SpanExporter, o Options, bopts ...sdktrace.BatchSpanProcessorOption) *Provider {
	name := o.ServiceName
	if name == "" {
		name = "hookgate"
	}
	attrs := []resource.Option{resource.WithAttributes(semconv.ServiceName(name))}
	if o.ServiceVersion != "" {
		attrs = append(attrs, resource.WithAttributes(semconv.ServiceVersion(o.ServiceVersion)))
	}
	res, err := resource.New(context.Background(), append(attrs, resource.WithSchemaURL(semconv.SchemaURL))...)
	if err != nil {
		// Only a detector can fail, and none is used.
		res = resource.Empty()
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, bopts...),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(o.SampleRatio))),
	)
	return &Provider{tp: tp, tracer: tp.Tracer(Scope)}
}

// Tracer is the tracer of hookgate's spans; nil when p is nil.
func (p *Provider) Tracer() trace.Tracer {
	if p == nil {
		return nil
	}
	return p.tracer
}

// Shutdown exports what is still queued and stops the exporter, within
// ctx.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	return p.tp.Shutdown(ctx)
}

func newExporter(ctx context.Context, o Options) (sdktrace.SpanExporter, error) {
	if o.Endpoint == "" {
		return nil, errors.New("tracing: no endpoint")
	}
	isURL := strings.Contains(o.Endpoint, "://")
	switch o.Protocol {
	case "", "http":
		opts := []otlptracehttp.Option{otlptracehttp.WithHeaders(o.Headers)}
		if isURL {
			opts = append(opts, otlptracehttp.WithEndpointURL(o.Endpoint))
		} else {
			opts = append(opts, otlptracehttp.WithEndpoint(o.Endpoint))
		}
		if o.Insecure {
			opts = append(opts, otlptracehttp.WithInsecure())
		}
		return otlptracehttp.New(ctx, opts...)
	case "grpc":
		opts := []otlptracegrpc.Option{otlptracegrpc.WithHeaders(o.Headers)}
		if isURL {
			opts = append(opts, otlptracegrpc.WithEndpointURL(o.Endpoint))
		} else {
			opts = append(opts, otlptracegrpc.WithEndpoint(o.Endpoint))
		}
		if o.Insecure {
			opts = append(opts, otlptracegrpc.WithInsecure())
		}
		return otlptracegrpc.New(ctx, opts...)
	default:
		return nil, fmt.Errorf("tracing: unknown protocol %q (want http or grpc)", o.Protocol)
	}
}
