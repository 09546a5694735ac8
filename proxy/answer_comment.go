package proxy

import (
	"encoding/json"
	"strings"

	"github.com/valyala/fasthttp"
)

// answerComment reads the optional comment of an approve or reject: an
// empty body is none, otherwise a JSON body {"comment": "..."}. A body
// that is not such JSON is answered with a 400 here (false).
func answerComment(ctx *fasthttp.RequestCtx) (string, bool) {
	b := ctx.Request.Body()
	if len(strings.TrimSpace(string(b))) == 0 {
		return "", true
	}
	var body struct {
		Comment string `json:"comment"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		writeError(ctx, fasthttp.StatusBadRequest, "invalid_request_error", "invalid_json", `want no body, or {"comment": "..."}`)
		return "", false
	}
	return strings.TrimSpace(body.Comment), true
}
