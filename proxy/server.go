package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync/atomic"

	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/internal/admission"
)

// UpstreamHeader lets a client choose among the configured upstreams by
// name. It can only pick an upstream the operator configured: a client can
// never steer hookgate to an address of its own.
const UpstreamHeader = "X-Hookgate-Upstream"

// Options are what the wiring hands to New and Reload besides the
// configuration.
type Options struct {
	// Interceptors maps a registered format's name (providers.Format) to
	// the interceptor that reads it. The routes of formats without one
	// are passed through while no hook is configured, and refused once
	// one is.
	Interceptors map[string]interceptors.Interceptor
	// HooksActive refuses the generation routes hookgate cannot read yet,
	// so that no request escapes a policy.
	HooksActive bool
	// TenantErrors maps a tenant to why its policy could not be loaded:
	// its requests get a 503 until it is fixed, never fewer hooks.
	TenantErrors map[string]error
	// Release is called once a replaced configuration has served its last
	// request (it closes the hook engine that went with it).
	Release func()
	// Logger receives the proxy's log. Nil means slog.Default().
	Logger *slog.Logger
	// Metrics records request counts and durations. Nil records nothing.
	Metrics *Metrics
	// Streams bounds the streamed responses open at once
	// (limits.max_concurrent_streams); Hooks is the bound of hook
	// executions in flight (limits.max_concurrent_hooks), which the proxy
	// checks at the door of a hooked route. Both are per instance, the
	// same across reloads. Nil admits everything.
	Streams, Hooks *admission.Limit
	// Tracer starts the requests' spans (internal/tracing). Nil traces
	// nothing: a client's traceparent then passes upstream as it came.
	// Read at New; a reload keeps the tracer the server started with.
	Tracer trace.Tracer
}

// Server is the agent-facing proxy.
type Server struct {
	rt      atomic.Pointer[runtime]
	log     *slog.Logger
	metrics *Metrics
	srv     *fasthttp.Server
	linger  *lingerer
	tracer  trace.Tracer // nil: no spans

	// Listener-level settings, fixed at New (a reload keeps them):
	// limits.max_request_bytes, the in-flight body budget, the client
	// timeouts and the connection caps.
	maxBody           int
	bodies            *bodyBudget
	budgetLog         spacedLog
	timeouts          *clientTimeouts
	maxConns, perAddr int
}

// New builds the proxy for cfg. It does not listen yet.
func New(cfg *Config, opts Options) (*Server, error) {
	rt, err := newRuntime(cfg, opts)
	if err != nil {
		return nil, err
	}
	s := &Server{
		log: opts.Logger, metrics: opts.Metrics, linger: newLingerer(), tracer: opts.Tracer,
		maxBody:   int(cfg.Limits.MaxRequestBytes),
		bodies:    newBodyBudget(cfg.Limits.MaxInflightRequestBytes),
		budgetLog: spacedLog{every: refusalLogEvery},
		timeouts:  newClientTimeouts(cfg.Timeouts, opts.Metrics, "agent"),
		maxConns:  cfg.Limits.MaxConnections,
		perAddr:   cfg.Limits.MaxConnectionsPerClient,
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.metrics.observeRequestBytes(s.bodies)
	s.rt.Store(rt)
	s.srv = &fasthttp.Server{
		Handler:               s.handle,
		ErrorHandler:          s.handleServerError,
		Name:                  "hookgate",
		NoDefaultServerHeader: true,
		// Bodies are read by the handler as they arrive (receiveBody,
		// body_read.go), never sized from Content-Length; the limit
		// also bounds fasthttp's read-ahead of a body's first bytes.
		StreamRequestBody:  true,
		MaxRequestBodySize: s.maxBody,
		// A multipart body is relayed as bytes, never parsed here
		// (fasthttp's parse would size itself from Content-Length).
		DisablePreParseMultipartForm: true,
		// The client timeouts are the connections' own (clientConn);
		// headReceived tells a connection where a request's head ends.
		HeaderReceived: s.timeouts.headReceived,
		// The connection caps are the listener's (clientListener);
		// fasthttp's own bound must never be the one that refuses.
		Concurrency: max(cfg.Limits.MaxConnections, fasthttp.DefaultConcurrency),
		// The read buffer bounds a request's headers (its body is read
		// apart), and a connection keeps it while its response streams:
		// 8 KiB, as common servers allow, keeps an idle stream small.
		// ReduceMemoryUsage would drop it between requests too, but costs
		// a one-byte read per request on keep-alive connections.
		ReadBufferSize:  8 << 10,
		CloseOnShutdown: true,
		Logger:          fasthttpLogger{s.log},
	}
	return s, nil
}

// Reload swaps in a new configuration at once: requests that arrive from
// now on are served by it, requests in flight finish on the one they
// started with, which is then released. Listen addresses and the
// listener-level settings stay as they were at start: limits
// max_request_bytes, max_inflight_request_bytes, max_connections and
// max_connections_per_client, and the timeouts client_header,
// client_body_progress, client_idle and client_write_stall.
func (s *Server) Reload(cfg *Config, opts Options) error {
	rt, err := newRuntime(cfg, opts)
	if err != nil {
		return err
	}
	s.rt.Swap(rt).retire()
	return nil
}

// Serve accepts connections on ln until Shutdown, within the connection
// caps, each under the client timeouts.
func (s *Server) Serve(ln net.Listener) error {
	return s.srv.Serve(newClientListener(ln, "agent", s.timeouts, s.linger, s.maxConns, s.perAddr, s.log, s.metrics))
}

// Shutdown stops accepting connections and waits, until ctx is done, for
// the requests and streams in flight to finish. Lingering closes of
// refused uploads are ended at once.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.ShutdownWithContext(ctx)
	s.linger.stop()
	return err
}

// handleServerError answers what fasthttp could not parse, in the OpenAI
// error shape rather than fasthttp's plain-text pages: a head it could not
// parse or that timed out (timeouts.client_header: 408), or a body whose
// first bytes (which fasthttp reads before the handler) did not come in
// time (timeouts.client_body_progress). The client may still be sending,
// so the connection is closed lingering (linger.go): closed at once, it
// would reset, and the client would lose the answer.
func (s *Server) handleServerError(ctx *fasthttp.RequestCtx, err error) {
	status := writeServerError(ctx, err, s.srv.MaxRequestBodySize, s.srv.ReadBufferSize)
	s.log.Debug("rejected malformed request", "status", status, "err", err)
	if lc, ok := ctx.Conn().(*clientConn); ok && status != fasthttp.StatusRequestTimeout {
		// A client that timed out sends nothing more worth waiting for.
		lc.lingerOnClose()
	}
}

// writeServerError answers a request fasthttp could not read, in the
// OpenAI error shape, and closes its connection; it returns the status.
func writeServerError(ctx *fasthttp.RequestCtx, err error, maxBody, maxHead int) int {
	var status int
	var code, msg string
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		status, code = fasthttp.StatusRequestEntityTooLarge, "request_too_large"
		msg = fmt.Sprintf("request body exceeds hookgate's limit of %d bytes (limits.max_request_bytes)", maxBody)
	case errors.As(err, new(*fasthttp.ErrSmallBuffer)):
		status, code = fasthttp.StatusRequestHeaderFieldsTooLarge, "request_headers_too_large"
		msg = fmt.Sprintf("the request's headers exceed hookgate's limit of %d bytes", maxHead)
	case isTimeout(err):
		status, code, msg = fasthttp.StatusRequestTimeout, "request_timeout", "timed out reading the request"
	default:
		status, code, msg = fasthttp.StatusBadRequest, "malformed_request", "malformed HTTP request"
	}
	writeError(ctx, status, "invalid_request_error", code, msg)
	ctx.SetConnectionClose()
	return status
}

func (s *Server) writeInterceptError(ctx *fasthttp.RequestCtx, x *exchange, err error) {
	var re *interceptors.RequestError
	if errors.As(err, &re) {
		if re.Err != nil {
			s.log.Warn("request answered by hookgate", "status", re.Status, "code", re.Code, "err", re.Err)
		}
		writeRouteError(ctx, x, re.Status, re.Type, re.Code, re.Message)
		if re.Status == fasthttp.StatusServiceUnavailable {
			ctx.Response.Header.Set("Retry-After", "1")
		}
		return
	}
	s.log.Error("interceptor failed", "err", err)
	writeRouteError(ctx, x, fasthttp.StatusInternalServerError, "server_error", "hookgate_error", "hookgate could not process the request")
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// fasthttpLogger routes fasthttp's own messages into slog at debug level.
type fasthttpLogger struct{ l *slog.Logger }

func (f fasthttpLogger) Printf(format string, args ...any) {
	f.l.Debug(fmt.Sprintf(format, args...), "component", "fasthttp")
}
