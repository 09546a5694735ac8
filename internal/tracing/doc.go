// Package tracing wires hookgate's OpenTelemetry traces: the tracer
// provider with its OTLP exporter (HTTP or gRPC) and sampler, the W3C
// trace-context propagator, and the few helpers the proxy, the
// interceptors and the hook engine use to start their spans.
//
// Tracing is off unless configured. Off, no span is ever in a context, so
// every helper here returns at once with nothing started: callers look at
// Recording (a context lookup, no allocation) before they build a span's
// attributes.
//
// What a span may carry is fixed by the callers' boundaries: the GenAI
// semantic conventions' names (provider, model, operation, tool name and
// call id, token counts) and hookgate's hook id, event and decision.
// Never a key, a prompt, a tool's arguments or its result.
package tracing
