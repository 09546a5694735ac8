package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/interceptors"
)

// UpstreamHeader lets a client choose among the configured upstreams by
// name. It can only pick an upstream the operator configured: a client can
// never steer hookgate to an address of its own.
const UpstreamHeader = "X-Hookgate-Upstream"

// Options are what the wiring hands to New besides the configuration.
type Options struct {
	// Interceptors maps a route (e.g. /v1/chat/completions) to the
	// interceptor that reads it. Routes without one are passed through.
	Interceptors map[string]interceptors.Interceptor
	// Logger receives the proxy's log. Nil means slog.Default().
	Logger *slog.Logger
	// Metrics records request counts and durations. Nil records nothing.
	Metrics *Metrics
}

// Server is the agent-facing proxy.
type Server struct {
	cfg          *config.Config
	upstreams    []*upstream
	byName       map[string]*upstream
	router       router
	interceptors map[string]interceptors.Interceptor
	log          *slog.Logger
	metrics      *Metrics
	srv          *fasthttp.Server
}

// New builds the proxy for cfg. It does not listen yet.
func New(cfg *config.Config, opts Options) (*Server, error) {
	s := &Server{
		cfg:          cfg,
		byName:       map[string]*upstream{},
		interceptors: opts.Interceptors,
		log:          opts.Logger,
		metrics:      opts.Metrics,
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	for _, uc := range cfg.Upstreams {
		u, err := newUpstream(uc, cfg.Timeouts)
		if err != nil {
			return nil, err
		}
		s.upstreams = append(s.upstreams, u)
		s.byName[u.name] = u
	}
	if len(s.upstreams) == 0 {
		return nil, errors.New("proxy: no upstream configured")
	}
	s.router = router{intercepted: map[string]bool{}, passthrough: cfg.PassthroughRoutes, hooksActive: cfg.HasHooks()}
	for route := range s.interceptors {
		s.router.intercepted[route] = true
	}
	s.srv = &fasthttp.Server{
		Handler:                       s.handle,
		ErrorHandler:                  s.handleServerError,
		Name:                          "hookgate",
		NoDefaultServerHeader:         true,
		MaxRequestBodySize:            int(cfg.Limits.MaxRequestBytes),
		DisableHeaderNamesNormalizing: true,
		ReadBufferSize:                16 << 10,
		CloseOnShutdown:               true,
		Logger:                        fasthttpLogger{s.log},
	}
	return s, nil
}

// Serve accepts connections on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error { return s.srv.Serve(ln) }

// Shutdown stops accepting connections and waits, until ctx is done, for
// the requests and streams in flight to finish.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.ShutdownWithContext(ctx) }

// handleServerError answers what fasthttp could not parse, in the OpenAI
// error shape rather than fasthttp's plain-text pages.
func (s *Server) handleServerError(ctx *fasthttp.RequestCtx, err error) {
	var status int
	var code, msg string
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		status, code = fasthttp.StatusRequestEntityTooLarge, "request_too_large"
		msg = fmt.Sprintf("request body exceeds hookgate's limit of %d bytes (limits.max_request_bytes)", s.cfg.Limits.MaxRequestBytes)
	case isTimeout(err):
		status, code, msg = fasthttp.StatusRequestTimeout, "request_timeout", "timed out reading the request"
	default:
		status, code, msg = fasthttp.StatusBadRequest, "malformed_request", "malformed HTTP request"
	}
	s.log.Debug("rejected malformed request", "status", status, "err", err)
	writeError(ctx, status, "invalid_request_error", code, msg)
	ctx.SetConnectionClose()
}

// pickUpstream chooses the upstream for a request: the one named in
// X-Hookgate-Upstream, else the first of the provider the route speaks.
func (s *Server) pickUpstream(ctx *fasthttp.RequestCtx, path string) (*upstream, error) {
	if name := ctx.Request.Header.Peek(UpstreamHeader); len(name) > 0 {
		u, ok := s.byName[string(name)]
		if !ok {
			return nil, fmt.Errorf("unknown upstream %q in %s", name, UpstreamHeader)
		}
		return u, nil
	}
	want := "openai"
	if path == "/v1/messages" || len(ctx.Request.Header.Peek("anthropic-version")) > 0 {
		want = "anthropic"
	}
	for _, u := range s.upstreams {
		if u.provider == want {
			return u, nil
		}
	}
	return s.upstreams[0], nil
}

func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	start := time.Now()
	path := routePath(ctx.Path())
	method := string(ctx.Method())
	kind := s.router.classify(method, path)
	up, err := s.pickUpstream(ctx, path)
	if err != nil {
		writeError(ctx, fasthttp.StatusBadRequest, "invalid_request_error", "unknown_upstream", err.Error())
		s.metrics.request("", path, ctx.Response.StatusCode())
		return
	}
	ctx.Request.Header.Del(UpstreamHeader)
	defer func() { s.metrics.request(up.name, path, ctx.Response.StatusCode()) }()

	if kind == routeRefused {
		writeError(ctx, fasthttp.StatusForbidden, "invalid_request_error", "route_not_guarded",
			fmt.Sprintf("hookgate cannot read %s yet, and hooks are configured, so it refuses the route rather than let it escape policy; an operator can list it under passthrough_routes to forward it unguarded", path))
		return
	}

	body := ctx.Request.Body()
	var ex interceptors.Exchange
	if kind == routeIntercepted {
		ex, err = s.interceptors[path].Begin(ctx, &interceptors.Request{
			Route:    path,
			Upstream: up.name,
			Provider: up.provider,
			Header:   func(name string) string { return string(ctx.Request.Header.Peek(name)) },
			Body:     body,
		})
		if err != nil {
			s.writeInterceptError(ctx, err)
			return
		}
		if r := ex.Reply(); r != nil {
			ctx.SetStatusCode(r.Status)
			ctx.SetContentType(r.ContentType)
			ctx.SetBody(r.Body)
			return
		}
		body = ex.Body()
		s.offerResend(ctx, up, ex)
	}
	s.forward(ctx, up, path, body, ex, start)
}

func (s *Server) writeInterceptError(ctx *fasthttp.RequestCtx, err error) {
	var re *interceptors.RequestError
	if errors.As(err, &re) {
		if re.Err != nil {
			s.log.Warn("request answered by hookgate", "status", re.Status, "code", re.Code, "err", re.Err)
		}
		writeError(ctx, re.Status, re.Type, re.Code, re.Message)
		return
	}
	s.log.Error("interceptor failed", "err", err)
	writeError(ctx, fasthttp.StatusInternalServerError, "server_error", "hookgate_error", "hookgate could not process the request")
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
