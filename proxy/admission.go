package proxy

import (
	"bytes"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/internal/admission"
)

// admissionRetryAfter is the Retry-After of a refusal over an admission
// limit, in seconds. Slots free up as streams and hooks end; the OpenAI
// and Anthropic SDKs retry a 503 after the time it names.
const admissionRetryAfter = "1"

// admit applies the instance's admission limits to a request before
// anything is done for it: no hook runs and nothing goes upstream for a
// refused request, and it is refused at once (503 with Retry-After, in
// the route's error shape), never queued.
//
//   - limits.max_concurrent_hooks: a hooked route is refused while every
//     hook execution slot is taken (its hooks would be refused, and its
//     calls blocked, a moment later).
//   - limits.max_concurrent_streams: a request that asks for a stream
//     takes a slot, held until its response has been written to the end
//     (or the client is gone), wherever the response came from.
func (s *Server) admit(ctx *fasthttp.RequestCtx, x *exchange, kind routeKind, body []byte) bool {
	rt := x.rt
	if kind == routeIntercepted && rt.router.hooksActive && !rt.hookSlots.Check() {
		s.refuse(ctx, x, "hook_limit_reached", fmt.Sprintf(
			"hookgate is running its limit of %d hooks at once (limits.max_concurrent_hooks), so it forwards nothing now; retry shortly", rt.hookSlots.Max()))
		return false
	}
	if rt.streams != nil && wantsStream(&ctx.Request, body) {
		if !rt.streams.TryAcquire() {
			s.refuse(ctx, x, "stream_limit_reached", fmt.Sprintf(
				"hookgate is relaying its limit of %d streams at once (limits.max_concurrent_streams); retry shortly", rt.streams.Max()))
			return false
		}
		// fasthttp closes the request's user values once the response,
		// a streamed body included, has been written or has failed: that
		// is when the stream ends for the client.
		ctx.SetUserValue(streamSlotKey{}, &streamSlot{l: rt.streams})
	}
	return true
}

// refuse answers a request over an admission limit.
func (s *Server) refuse(ctx *fasthttp.RequestCtx, x *exchange, code, msg string) {
	writeRouteError(ctx, x, fasthttp.StatusServiceUnavailable, "server_error", code, msg)
	ctx.Response.Header.Set("Retry-After", admissionRetryAfter)
}

// wantsStream reports whether a request asks for a streamed response:
// "stream": true in its JSON body (chat completions, Responses, Messages,
// and the compatible APIs behind passthrough routes), ?stream=true, or an
// Accept of text/event-stream. A request that streams without asking is
// not counted; one that asks and is answered in one piece holds its slot
// only until that answer is written.
func wantsStream(req *fasthttp.Request, body []byte) bool {
	if acceptsEventStream(req.Header.Peek("Accept")) {
		return true
	}
	if bytes.Equal(req.URI().QueryArgs().Peek("stream"), []byte("true")) {
		return true
	}
	// gjson skips to the first brace it finds: a body that is not an
	// object (a file upload) is not searched for one.
	body = bytes.TrimLeft(body, " \t\r\n")
	if !bytes.Contains(body, []byte("stream")) && !bytes.Contains(body, []byte(`\u`)) {
		// No key "stream", spelled plainly or escaped: nothing to parse.
		return false
	}
	if len(body) == 0 || body[0] != '{' {
		return false
	}
	// Any top-level "stream" that is true counts: decoders disagree on
	// which of repeated keys wins (gjson the first, most the last).
	streams := false
	gjson.ParseBytes(body).ForEach(func(k, v gjson.Result) bool {
		if k.String() == "stream" && v.Type == gjson.True {
			streams = true
			return false
		}
		return true
	})
	return streams
}

// streamSlot is a request's stream slot, released once.
type streamSlot struct {
	l    *admission.Limit
	done bool
}

type streamSlotKey struct{}

// Close releases the slot; fasthttp calls it when it resets the request.
func (s *streamSlot) Close() error {
	if !s.done {
		s.done = true
		s.l.Release()
	}
	return nil
}
