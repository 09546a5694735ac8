package proxy

import (
	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/providers"
)

// writeError answers the client in the OpenAI error shape
// {"error":{"message","type","code"}}, which every OpenAI SDK parses into
// its own error type.
func writeError(ctx *fasthttp.RequestCtx, status int, typ, code, message string) {
	ctx.Response.Reset()
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
	ctx.SetBody(providers.ErrorBody(message, typ, code))
}
