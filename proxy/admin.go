package proxy

import (
	"net"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// Admin is the operator-facing listener: /metrics and /healthz, which need
// no token and bind loopback by default. Admin writes (approvals, tenant
// switches) will require a bearer token.
type Admin struct {
	srv *fasthttp.Server
}

// NewAdmin serves the metrics gathered by g.
func NewAdmin(g prometheus.Gatherer) *Admin {
	metrics := fasthttpadaptor.NewFastHTTPHandler(promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
	return &Admin{srv: &fasthttp.Server{
		Name:                  "hookgate-admin",
		NoDefaultServerHeader: true,
		Handler: func(ctx *fasthttp.RequestCtx) {
			switch string(ctx.Path()) {
			case "/metrics":
				metrics(ctx)
			case "/healthz":
				ctx.SetContentType("application/json")
				ctx.SetBodyString(`{"status":"ok"}`)
			default:
				writeError(ctx, fasthttp.StatusNotFound, "invalid_request_error", "not_found", "no such admin endpoint")
			}
		},
	}}
}

// Serve accepts admin connections on ln until Shutdown.
func (a *Admin) Serve(ln net.Listener) error { return a.srv.Serve(ln) }

// Shutdown stops the admin listener.
func (a *Admin) Shutdown() error { return a.srv.Shutdown() }
