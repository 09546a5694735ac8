package tracing

import (
	"bytes"
	"context"
	"strings"

	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// propagator reads and writes W3C traceparent and tracestate only:
// hookgate neither reads baggage nor writes any into the requests it
// makes (a hook's request carries none of the agent's entries).
var propagator = propagation.TraceContext{}

// Extract returns ctx with the remote span context of h's traceparent,
// when it carries a valid one.
func Extract(ctx context.Context, h *fasthttp.RequestHeader) context.Context {
	return propagator.Extract(ctx, requestHeaderCarrier{h})
}

// InjectRequest writes the span context of ctx into h, replacing what a
// client sent; without a valid span context it removes them, so that an
// untraced hop never forwards a stale parent.
func InjectRequest(ctx context.Context, h *fasthttp.RequestHeader) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	delFold(h, propagator.Fields())
	propagator.Inject(ctx, requestHeaderCarrier{h})
}

// delFold removes every header named one of names in any letter case: a
// request whose header names keep the client's spelling could otherwise
// carry the client's traceparent beside hookgate's.
func delFold(h *fasthttp.RequestHeader, names []string) {
	var drop [][]byte
	for k := range h.All() {
		for _, n := range names {
			if strings.EqualFold(string(k), n) {
				drop = append(drop, bytes.Clone(k))
			}
		}
	}
	for _, k := range drop {
		h.DelBytes(k)
	}
}

// InjectHTTP writes the span context of ctx into a net/http header (an
// http hook's request).
func InjectHTTP(ctx context.Context, h map[string][]string) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	propagator.Inject(ctx, propagation.HeaderCarrier(h))
}

// requestHeaderCarrier reads and writes a fasthttp request's headers
// through its header API.
type requestHeaderCarrier struct{ h *fasthttp.RequestHeader }

func (c requestHeaderCarrier) Get(key string) string { return string(c.h.Peek(key)) }

func (c requestHeaderCarrier) Set(key, value string) { c.h.Set(key, value) }

func (c requestHeaderCarrier) Keys() []string {
	var keys []string
	for k := range c.h.All() {
		keys = append(keys, string(k))
	}
	return keys
}
