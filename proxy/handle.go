package proxy

import (
	"context"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/providers"
)

// exchange is one request on its way through the proxy.
type exchange struct {
	rt    *runtime
	up    *upstream
	path  string // the route (routePath), as interceptors and logs see it
	query string // the raw query, when some format's route reads it
	// format is the registered format the path names, read by this
	// runtime or not: it bounds the metrics label and picks the provider.
	// read is the same format when this runtime reads it: its error
	// shape answers the request.
	format, read *providers.Format
	upPath       string // the path sent upstream (routeDecision.upPath)
	sent         bool   // the request went to the upstream (it may not have answered)
	apiKey       string // the credential sent upstream ("" passes the client's)
	who          principal
	start        time.Time
	before       time.Duration   // hookgate's own time before the upstream call
	ctx          context.Context // lives as long as the handler (not the stream writer)
	// span is the request's server span and upSpan its upstream call's,
	// nil without tracing (tracing.go); upStatus is the upstream's status,
	// status the client's, for the spans a stream ends after the handler.
	span, upSpan     trace.Span
	upStatus, status int
	describer        interceptors.Describer // the read request's model and usage, for the spans
}

func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	if c, ok := ctx.Conn().(*clientConn); ok {
		defer c.requestDone()
	}
	if ambiguousFraming(ctx.Request.Header.RawHeaders()) {
		writeError(ctx, fasthttp.StatusBadRequest, "invalid_request_error", "ambiguous_framing",
			"the request carries both Content-Length and Transfer-Encoding, or a folded header: hookgate refuses it")
		ctx.SetConnectionClose()
		return
	}
	// The context hooks and interceptors get. fasthttp's RequestCtx is a
	// context too, but it is recycled once the handler returns, and a
	// context derived from it (a hook's timeout) would read it after that.
	reqCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt := s.rt.Load()
	rt.enter()
	streaming := false
	x := &exchange{rt: rt, path: routePath(ctx.Path()), start: time.Now(), ctx: reqCtx}
	defer func() {
		if !streaming {
			x.endSpans(ctx.Response.StatusCode())
			rt.leave()
		}
	}()
	if providers.Registered().ReadsQuery() {
		x.query = rawQuery(ctx.Request.Header.RequestURI())
	}
	x.format = providers.Registered().MatchLower(x.path, x.query)
	if x.format != nil {
		x.read = rt.served(x.path, x.query)
	}
	s.startRequestSpan(ctx, x)
	defer func() {
		name := noUpstream
		if x.sent {
			name = x.up.name
		}
		s.metrics.request(name, x.routeLabel(), ctx.Response.StatusCode())
	}()
	body, ok := s.receiveBody(ctx, x)
	if !ok {
		return
	}

	if rt.tenants != nil {
		who, ok := rt.tenants.authenticate(&ctx.Request.Header)
		if !ok {
			writeRouteError(ctx, x, fasthttp.StatusUnauthorized, "invalid_request_error", "invalid_api_key",
				"hookgate does not know this API key: use the virtual key your operator issued")
			return
		}
		if err := rt.tenantErrors[who.tenant.ID]; err != nil {
			writeRouteError(ctx, x, fasthttp.StatusServiceUnavailable, "server_error", "tenant_policy_unavailable",
				fmt.Sprintf("the policy of tenant %s could not be loaded, so its requests are refused until it is fixed", who.tenant.ID))
			return
		}
		stripCredentials(&ctx.Request.Header)
		x.who = who
	}
	up, err := rt.pickUpstream(ctx, x.format, x.who)
	if err != nil {
		writeRouteError(ctx, x, fasthttp.StatusBadRequest, "invalid_request_error", "unknown_upstream", err.Error())
		return
	}
	ctx.Request.Header.Del(UpstreamHeader)
	x.up, x.apiKey = up, up.apiKey
	if x.who.tenant != nil && x.who.tenant.APIKey != "" {
		x.apiKey = x.who.tenant.APIKey
	}

	d := rt.router.decide(string(ctx.Method()), ctx.Path(), &ctx.Request.Header)
	if d.kind == routeRefused {
		s.refuseRoute(ctx, d)
		return
	}
	kind := d.kind
	x.upPath = d.upPath

	if !s.admit(ctx, x, kind, body) {
		return
	}
	var ex interceptors.Exchange
	if kind == routeIntercepted {
		req := &interceptors.Request{
			Route:    x.path,
			Query:    x.query,
			Upstream: up.name,
			Provider: up.provider,
			Header:   func(name string) string { return string(ctx.Request.Header.Peek(name)) },
			Body:     body,
			Agent:    x.who.agent,
			Bypass:   x.who.bypass,
		}
		if x.who.tenant != nil {
			req.Tenant = x.who.tenant.ID
		}
		ex, err = rt.interceptors[d.format.Name].Begin(x.ctx, req)
		if err != nil {
			x.describeRequest(nil)
			s.writeInterceptError(ctx, x, err)
			return
		}
		x.describeRequest(ex)
		if r := ex.Reply(); r != nil {
			ctx.SetStatusCode(r.Status)
			ctx.SetContentType(r.ContentType)
			ctx.SetBody(r.Body)
			return
		}
		body = ex.Body()
		s.offerResend(ctx, x, ex)
	} else {
		x.describeRequest(nil)
	}
	streaming = s.forward(ctx, x, body, ex)
}

// pickUpstream chooses the upstream for a request: the tenant's, else the
// one named in X-Hookgate-Upstream, else the first of the provider the
// request speaks: the provider whose client headers it carries
// (anthropic-version), else its format's (format may be nil), else the
// default provider.
func (rt *runtime) pickUpstream(ctx *fasthttp.RequestCtx, format *providers.Format, who principal) (*upstream, error) {
	if who.tenant != nil && who.tenant.Upstream != "" {
		return rt.byName[who.tenant.Upstream], nil
	}
	if name := ctx.Request.Header.Peek(UpstreamHeader); len(name) > 0 {
		u, ok := rt.byName[string(name)]
		if !ok {
			return nil, fmt.Errorf("unknown upstream %q in %s", name, UpstreamHeader)
		}
		return u, nil
	}
	want := providers.DefaultProvider
	if format != nil {
		want = format.Provider
	}
	if f := clientHeadersFormat(&ctx.Request.Header); f != nil {
		want = f.Provider
	}
	for _, u := range rt.upstreams {
		if u.provider == want {
			return u, nil
		}
	}
	return rt.upstreams[0], nil
}

// clientHeadersFormat is the registered format whose client headers the
// request carries, or nil.
func clientHeadersFormat(h *fasthttp.RequestHeader) *providers.Format {
	for _, f := range providers.Formats() {
		for _, name := range f.ClientHeaders {
			if len(h.Peek(name)) > 0 {
				return f
			}
		}
	}
	return nil
}
