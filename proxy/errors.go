package proxy

import (
	"github.com/tidwall/sjson"
	"github.com/valyala/fasthttp"
)

// writeError answers the client in the OpenAI error shape
// {"error":{"message","type","code"}}, which every OpenAI SDK parses into
// its own error type.
func writeError(ctx *fasthttp.RequestCtx, status int, typ, code, message string) {
	ctx.Response.Reset()
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
	ctx.SetBody(errorBody(typ, code, message))
}

// errorBody encodes an OpenAI-shaped error.
func errorBody(typ, code, message string) []byte {
	b := []byte(`{"error":{"message":"","type":"","code":null}}`)
	b, _ = sjson.SetBytes(b, "error.message", message)
	b, _ = sjson.SetBytes(b, "error.type", typ)
	if code != "" {
		b, _ = sjson.SetBytes(b, "error.code", code)
	}
	return b
}
