package proxy

import (
	"github.com/valyala/fasthttp"
)

// writeRouteError answers with an error in the shape the route speaks: the
// error shape of the format the route is read as (Anthropic's on
// /v1/messages), else the OpenAI shape. Clients parse errors by their own
// API's shape, so an Anthropic SDK must not get an OpenAI body.
func writeRouteError(ctx *fasthttp.RequestCtx, x *exchange, status int, typ, code, message string) {
	if x.read == nil {
		writeError(ctx, status, typ, code, message)
		return
	}
	ctx.Response.Reset()
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
	ctx.SetBody(x.read.Error(status, typ, code, message))
}
