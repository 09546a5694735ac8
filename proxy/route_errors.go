package proxy

import (
	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/interceptors"
)

// writeRouteError answers with an error in the shape the route speaks: the
// body its interceptor renders (interceptors.ErrorRenderer: Anthropic's on
// /v1/messages), else the OpenAI shape. Clients parse errors by their own
// API's shape, so an Anthropic SDK must not get an OpenAI body.
func writeRouteError(ctx *fasthttp.RequestCtx, x *exchange, status int, typ, code, message string) {
	r, ok := x.rt.interceptors[x.path].(interceptors.ErrorRenderer)
	if !ok {
		writeError(ctx, status, typ, code, message)
		return
	}
	ctx.Response.Reset()
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
	ctx.SetBody(r.RenderError(status, typ, code, message))
}
