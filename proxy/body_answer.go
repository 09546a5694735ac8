package proxy

import (
	"errors"
	"fmt"
	"os"

	"github.com/valyala/fasthttp"
)

// receiveBody reads the request's body (readBody) before anything else is
// done for it. A request that cannot be read whole is answered here, in
// the route's error shape, and its connection closed:
//
//   - over limits.max_request_bytes (by Content-Length, or once the bytes
//     pass it): 413 request_too_large, closed lingering;
//   - over limits.max_inflight_request_bytes: 503 request_bytes_limit_reached
//     with Retry-After, counted in hookgate_admission_refused_total
//     {limit="request_bytes"}, closed lingering;
//   - no body byte within timeouts.client_body_progress: 408
//     request_timeout (a client that stalled is not waited for);
//   - a body that breaks off or is malformed: 400 malformed_request.
func (s *Server) receiveBody(ctx *fasthttp.RequestCtx, x *exchange) ([]byte, bool) {
	body, err := readBody(ctx, s.maxBody, s.bodies)
	if err == nil {
		return body, true
	}
	ctx.SetConnectionClose()
	linger := true
	switch {
	case errors.Is(err, errBodyTooLarge):
		writeRouteError(ctx, x, fasthttp.StatusRequestEntityTooLarge, "invalid_request_error", "request_too_large",
			fmt.Sprintf("request body exceeds hookgate's limit of %d bytes (limits.max_request_bytes)", s.maxBody))
	case errors.Is(err, errBodyBudget):
		s.metrics.AdmissionRefused(requestBytesLimit)
		if n, due := s.budgetLog.due(); due {
			s.log.Warn("requests refused over limits.max_inflight_request_bytes", "max", s.bodies.max, "refused", n)
		}
		s.refuse(ctx, x, "request_bytes_limit_reached", fmt.Sprintf(
			"hookgate holds its limit of %d bytes of request bodies at once (limits.max_inflight_request_bytes); retry shortly", s.bodies.max))
	case errors.Is(err, os.ErrDeadlineExceeded):
		linger = false
		s.log.Debug("request body timed out", "path", x.path, "after", s.timeouts.bodyProgress)
		writeRouteError(ctx, x, fasthttp.StatusRequestTimeout, "invalid_request_error", "request_timeout",
			"timed out waiting for the request body (timeouts.client_body_progress)")
	default:
		linger = false
		s.log.Debug("request body unreadable", "path", x.path, "err", err)
		writeRouteError(ctx, x, fasthttp.StatusBadRequest, "invalid_request_error", "malformed_request", "the request body could not be read")
	}
	if lc, ok := ctx.Conn().(*clientConn); ok && linger {
		lc.lingerOnClose()
	}
	return nil, false
}

// bodyFirst reads a request's body (readBody, at most limit bytes, under
// no in-flight budget) before next runs, which then finds it in
// ctx.Request.Body(). It is the admin listener's reading; a body that
// cannot be read is answered in the OpenAI error shape and its connection
// closed.
func bodyFirst(next fasthttp.RequestHandler, limit int) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		c, _ := ctx.Conn().(*clientConn)
		if c != nil {
			defer c.requestDone()
		}
		_, err := readBody(ctx, limit, nil)
		switch {
		case err == nil:
			next(ctx)
			return
		case errors.Is(err, errBodyTooLarge):
			writeError(ctx, fasthttp.StatusRequestEntityTooLarge, "invalid_request_error", "request_too_large",
				fmt.Sprintf("request body exceeds the admin listener's limit of %d bytes", limit))
		case errors.Is(err, os.ErrDeadlineExceeded):
			writeError(ctx, fasthttp.StatusRequestTimeout, "invalid_request_error", "request_timeout",
				"timed out waiting for the request body (timeouts.client_body_progress)")
		default:
			writeError(ctx, fasthttp.StatusBadRequest, "invalid_request_error", "malformed_request", "the request body could not be read")
		}
		ctx.SetConnectionClose()
	}
}
