package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/interceptors"
)

// errClientGone closes an upstream stream whose client disconnected; the
// upstream connection is then discarded, never pooled.
var errClientGone = errors.New("client disconnected")

// forward sends the request upstream and relays the response. Once a byte
// of the response has gone to the client nothing is retried. It reports
// whether a stream writer now owns the rest of the exchange (and will
// release the runtime when it ends).
func (s *Server) forward(ctx *fasthttp.RequestCtx, x *exchange, body []byte, ex interceptors.Exchange) bool {
	up := x.up
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	up.prepare(req, &ctx.Request, x.upPath, body, ex != nil, x.apiKey)
	x.startUpstreamSpan(req)
	upStart := time.Now()
	// hookgate's own time on the request: everything before the upstream
	// call except waiting for hooks.
	hooksBefore, _ := timing(ex)
	x.before = upStart.Sub(x.start) - hooksBefore
	x.sent = true
	err := up.client.Do(req, resp)
	fasthttp.ReleaseRequest(req)
	if err != nil {
		fasthttp.ReleaseResponse(resp)
		x.endUpstreamSpan(0, "upstream request failed")
		s.writeUpstreamError(ctx, x, err)
		return false
	}
	s.metrics.upstreamHeaders(up.name, time.Since(upStart))

	status := resp.StatusCode()
	x.upStatus, x.status = status, status
	if ex != nil && !relayableOnReadRoute(status) {
		s.refuseUnreadStatus(ctx, x, resp)
		return false
	}
	copyResponseHeaders(&ctx.Response.Header, &resp.Header)
	ctx.SetStatusCode(status)
	if ex != nil {
		// A read route never sends a client elsewhere, whatever its status.
		ctx.Response.Header.Del("Location")
		setServerTiming(&ctx.Response.Header, x.before)
	}
	stream := resp.BodyStream()
	isStream := mediaTypeIs(resp.Header.ContentType(), "text/event-stream")
	success := status >= 200 && status < 300
	if sr, ok := ex.(interceptors.StreamReader); ok && success && sr.StreamsResponse() {
		// The format streams in a media type of its own.
		isStream = true
	}

	if ex == nil || !success || (!isStream && passesPlainThrough(ex)) {
		// Passthrough: bytes as they came, flushed as they arrive, with the
		// upstream's status and headers (Retry-After included).
		if ex != nil && success {
			s.metrics.overhead(x.before)
		}
		return s.relayRaw(ctx, x, resp, stream, isStream)
	}

	decoded, encoding, err := decodeBody(stream, resp.Header.ContentEncoding())
	if err != nil {
		closeStream(resp, err)
		fasthttp.ReleaseResponse(resp)
		writeRouteError(ctx, x, fasthttp.StatusBadGateway, "upstream_error", "unsupported_encoding", err.Error())
		return false
	}
	if encoding {
		// What the client gets is decoded: no spelling of the header
		// may tell it otherwise.
		delResponseHeaderFold(&ctx.Response.Header, "Content-Encoding")
	}

	if isStream {
		s.relayIntercepted(ctx, x, resp, decoded, ex)
		return true
	}

	full, err := readCapped(decoded, x.rt.cfg.Limits.MaxResponseBytes)
	closeStream(resp, err)
	fasthttp.ReleaseResponse(resp)
	x.endUpstreamSpan(status, "")
	if err != nil {
		writeRouteError(ctx, x, fasthttp.StatusBadGateway, "upstream_error", "upstream_read_failed", fmt.Sprintf("reading the upstream response: %v", err))
		return false
	}
	finishStart := time.Now()
	hooksBeforeFinish, _ := timing(ex)
	out, err := ex.FinishPlain(x.ctx, full)
	if err != nil {
		s.writeInterceptError(ctx, x, err)
		return false
	}
	hooksAfter, _ := timing(ex)
	own := x.before + time.Since(finishStart) - (hooksAfter - hooksBeforeFinish)
	setServerTiming(&ctx.Response.Header, own)
	ctx.SetBody(out)
	s.metrics.overhead(own)
	return false
}

// passesPlainThrough reports whether the exchange would return a plain
// response unchanged, so that it need not be read into memory.
func passesPlainThrough(ex interceptors.Exchange) bool {
	p, ok := ex.(interceptors.PlainPassthrough)
	return ok && p.PassesPlainThrough()
}

// timing reads an exchange's hook time and stream work, when it keeps them.
func timing(ex interceptors.Exchange) (hooks, work time.Duration) {
	if t, ok := ex.(interceptors.Timer); ok {
		return t.Timing()
	}
	return 0, 0
}

// setServerTiming tells the client hookgate's own overhead on the request
// (Server-Timing, which browsers' and SDKs' tooling show per call). On a
// stream it covers the request side only: the headers leave first.
func setServerTiming(h *fasthttp.ResponseHeader, own time.Duration) {
	var buf [48]byte
	v := append(buf[:0], "hookgate;dur="...)
	v = strconv.AppendFloat(v, float64(own.Microseconds())/1000, 'f', 3, 64)
	h.SetBytesV("Server-Timing", v)
}

// relayRaw copies the upstream body to the client without reading it.
// fasthttp's server reads it and writes each read as it comes (a stream's
// events are flushed chunk by chunk), then closes it, which releases the
// upstream response and the runtime.
func (s *Server) relayRaw(ctx *fasthttp.RequestCtx, x *exchange, resp *fasthttp.Response, stream io.Reader, isStream bool) bool {
	body := &releasingReader{r: stream, resp: resp, rt: x.rt, x: x}
	if !isStream {
		if cl := resp.Header.ContentLength(); cl >= 0 {
			ctx.Response.SetBodyStream(body, cl)
			return true
		}
	}
	s.metrics.streamStarted()
	body.onClose = s.metrics.streamEnded
	ctx.Response.SetBodyStream(body, -1)
	return true
}

// relayIntercepted hands a successful event stream to the interceptor,
// which fasthttp's server runs when it writes the body (interceptedBody).
func (s *Server) relayIntercepted(ctx *fasthttp.RequestCtx, x *exchange, resp *fasthttp.Response, upstream io.Reader, ex interceptors.Exchange) {
	s.metrics.streamStarted()
	ctx.Response.SetBodyStream(&interceptedBody{s: s, x: x, resp: resp, upstream: upstream, ex: ex, headersAt: time.Now()}, -1)
}

// writeUpstreamError answers a failed upstream exchange before any byte of
// a response was sent.
func (s *Server) writeUpstreamError(ctx *fasthttp.RequestCtx, x *exchange, err error) {
	if errors.Is(err, fasthttp.ErrNoFreeConns) {
		writeRouteError(ctx, x, fasthttp.StatusServiceUnavailable, "server_error", "upstream_busy",
			fmt.Sprintf("too many requests in flight to upstream %s; retry shortly", x.up.name))
		ctx.Response.Header.Set("Retry-After", "1")
		return
	}
	if isTimeout(err) || errors.Is(err, fasthttp.ErrTimeout) {
		writeRouteError(ctx, x, fasthttp.StatusGatewayTimeout, "upstream_error", "upstream_timeout",
			fmt.Sprintf("upstream %s did not answer in time", x.up.name))
		return
	}
	s.log.Warn("upstream request failed", "upstream", x.up.name, "err", err)
	writeRouteError(ctx, x, fasthttp.StatusBadGateway, "upstream_error", "upstream_unreachable",
		fmt.Sprintf("upstream %s could not be reached", x.up.name))
}

// closeStream ends an upstream body. A non-nil reason (client gone,
// truncation, read error) discards the connection instead of pooling it.
func closeStream(resp *fasthttp.Response, reason error) {
	if rc, ok := resp.BodyStream().(fasthttp.ReadCloserWithError); ok {
		_ = rc.CloseWithError(reason)
		return
	}
	_ = resp.CloseBodyStream()
}

// readCapped reads r whole, failing once it exceeds limit bytes.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	var b bytes.Buffer
	n, err := b.ReadFrom(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("response exceeds limits.max_response_bytes (%d bytes)", limit)
	}
	return b.Bytes(), nil
}

// releasingReader hands an upstream body to fasthttp's server, which
// closes it once sent; closing releases the upstream response.
type releasingReader struct {
	r    io.Reader
	resp *fasthttp.Response
	rt   *runtime
	x    *exchange // its spans end with the body
	err  error
	// onClose, when set, runs once the body is closed.
	onClose func()
}

func (rr *releasingReader) Read(p []byte) (int, error) {
	n, err := rr.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		rr.err = err
	}
	return n, err
}

func (rr *releasingReader) Close() error {
	if rr.resp != nil {
		closeStream(rr.resp, rr.err)
		fasthttp.ReleaseResponse(rr.resp)
		rr.resp = nil
		if rr.onClose != nil {
			rr.onClose()
		}
		rr.x.endSpans(rr.x.status)
		rr.rt.leave()
	}
	return nil
}
