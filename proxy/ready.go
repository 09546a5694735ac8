package proxy

import (
	"context"
	"encoding/json"
	"time"

	"github.com/valyala/fasthttp"
)

// Readiness says whether this instance should be sent traffic, for
// /readyz. It is asked on every probe, so it must be cheap: what costs a
// round trip is cached by the implementation.
type Readiness interface {
	// Ready reports the instance's state; report is encoded as JSON.
	// ready false answers 503, true 200.
	Ready(ctx context.Context) (ready bool, report any)
}

// ConfigVersion describes the configuration being served, for
// GET /admin/config/version; the value is encoded as JSON.
type ConfigVersion func() any

// readyProbeTimeout bounds one /readyz answer, whatever the checks do.
const readyProbeTimeout = 2 * time.Second

// serveReady answers /readyz: 200 while ready, 503 otherwise, with the
// report as JSON either way. Without a Readiness it is /healthz.
func (a *Admin) serveReady(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("application/json")
	ctx.Response.Header.Set("Cache-Control", "no-store")
	if a.opts.Readiness == nil {
		ctx.SetBodyString(`{"status":"ready"}`)
		return
	}
	rctx, cancel := context.WithTimeout(context.Background(), readyProbeTimeout)
	defer cancel()
	ready, report := a.opts.Readiness.Ready(rctx)
	b, err := json.Marshal(report)
	if err != nil {
		ready, b = false, []byte(`{"status":"not_ready","reasons":["report_unencodable"]}`)
	}
	if !ready {
		ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
	}
	ctx.SetBody(b)
}
