package proxy

import (
	"context"

	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/internal/tracing"
)

// The spans of one request, when Options.Tracer is set: the request's
// server span (continuing the client's traceparent) and its upstream call,
// a client span whose context goes upstream as traceparent. Interceptors
// and hooks hang theirs under the server span from the context they get.
// Off, none of this runs past a nil check.

// startRequestSpan starts the request's server span and puts it in x.ctx.
func (s *Server) startRequestSpan(ctx *fasthttp.RequestCtx, x *exchange) {
	if s.tracer == nil {
		return
	}
	parent := tracing.Extract(x.ctx, &ctx.Request.Header)
	route := x.routeLabel()
	method := string(ctx.Method())
	x.ctx, x.span = s.tracer.Start(parent, method+" "+route, trace.WithSpanKind(trace.SpanKindServer))
	if x.span.IsRecording() {
		// The route label, never the raw path or query: a query may hold
		// a key (?key=), a path an id.
		x.span.SetAttributes(semconv.HTTPRequestMethodKey.String(method), semconv.HTTPRoute(route))
	}
}

// describeRequest adds what is known once the upstream is chosen and,
// on a route hookgate reads, the request read: the provider, the
// upstream's name and the requested model (a name, never the messages).
func (x *exchange) describeRequest(ex interceptors.Exchange) {
	if x.span == nil || !x.span.IsRecording() {
		return
	}
	if d, ok := ex.(interceptors.Describer); ok {
		x.describer = d
	}
	x.span.SetAttributes(genAIAttributes(x)...)
}

// genAIAttributes are the GenAI semantic conventions' request attributes.
func genAIAttributes(x *exchange) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		tracing.Upstream.String(x.up.name),
		semconv.GenAIProviderNameKey.String(genAIProvider(x.up.provider)),
		tracing.GenAISystem.String(genAIProvider(x.up.provider)),
	}
	if x.read != nil {
		attrs = append(attrs, semconv.GenAIOperationNameKey.String(genAIOperation(x.read.Provider)))
	}
	if m := x.model(); m != "" {
		attrs = append(attrs, semconv.GenAIRequestModel(m))
	}
	return attrs
}

// model is the model the request named, as its interceptor read it ("" on
// a route hookgate does not read, or one too long to be a name).
func (x *exchange) model() string {
	if x.describer == nil {
		return ""
	}
	if m := x.describer.Model(); len(m) <= 200 {
		return m
	}
	return ""
}

// describeUsage puts the response's token counts, when its interceptor
// read them, on the request's span.
func (x *exchange) describeUsage() {
	if x.describer == nil || !x.span.IsRecording() {
		return
	}
	if in, out, ok := x.describer.Usage(); ok {
		x.span.SetAttributes(semconv.GenAIUsageInputTokens(int(in)), semconv.GenAIUsageOutputTokens(int(out)))
	}
}

// genAIProvider is the semantic conventions' name of a provider.
func genAIProvider(p string) string {
	switch p {
	case "gemini":
		return "gcp.gemini"
	case "azure":
		return "azure.ai.openai"
	}
	return p
}

// genAIOperation is the operation a generation route performs.
func genAIOperation(provider string) string {
	if provider == "gemini" {
		return "generate_content"
	}
	return "chat"
}

// startUpstreamSpan starts the client span of the upstream call and writes
// its traceparent into req, replacing the client's. A request that is
// traced but not sampled passes on its unsampled parent.
func (x *exchange) startUpstreamSpan(req *fasthttp.Request) {
	if x.span == nil {
		return
	}
	ctx := x.ctx
	if x.span.IsRecording() {
		name := "upstream " + x.up.name
		if m := x.model(); m != "" && x.read != nil {
			name = genAIOperation(x.read.Provider) + " " + m
		}
		ctx, x.upSpan = trace.SpanFromContext(x.ctx).TracerProvider().Tracer(tracing.Scope).
			Start(x.ctx, name, trace.WithSpanKind(trace.SpanKindClient))
		x.upSpan.SetAttributes(genAIAttributes(x)...)
		x.upSpan.SetAttributes(semconv.ServerAddress(x.up.host), semconv.HTTPRequestMethodKey.String(string(req.Header.Method())))
	}
	tracing.InjectRequest(ctx, &req.Header)
}

// injectResend writes the request span's traceparent into a resent
// request (on_block: retry).
func (x *exchange) injectResend(req *fasthttp.Request) {
	if x.span != nil {
		tracing.InjectRequest(trace.ContextWithSpan(context.Background(), x.span), &req.Header)
	}
}

// endUpstreamSpan ends the upstream span, once: at an error, or once its
// body is read or abandoned. status 0 is a call that got no answer.
func (x *exchange) endUpstreamSpan(status int, failure string) {
	if x.upSpan == nil {
		return
	}
	if status > 0 {
		x.upSpan.SetAttributes(semconv.HTTPResponseStatusCode(status))
	}
	if failure != "" {
		x.upSpan.SetStatus(codes.Error, failure)
	} else if status >= 500 {
		x.upSpan.SetStatus(codes.Error, "")
	}
	x.upSpan.End()
	x.upSpan = nil
}

// endSpans ends the upstream span if still open, then the request's.
func (x *exchange) endSpans(status int) {
	if x.span == nil {
		return
	}
	x.endUpstreamSpan(x.upStatus, "")
	x.describeUsage()
	if status > 0 {
		x.span.SetAttributes(semconv.HTTPResponseStatusCode(status))
		if status >= 500 {
			x.span.SetStatus(codes.Error, "")
		}
	}
	x.span.End()
	x.span = nil
}

// streamContext is the context a stream's relay runs in: cancelled by
// the caller, carrying the request's span (the handler's context is
// gone by then).
func (x *exchange) streamContext(ctx context.Context) context.Context {
	if x.span == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, x.span)
}
