package proxy

import (
	"fmt"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/providers"
)

// loggedPathMax bounds the path a refusal's log line names.
const loggedPathMax = 256

// refuseRoute answers a request the router refused: a 403 (a 405 with an
// Allow header for a method the route does not take) in the route's error
// shape, one log line naming the method and the path without its query
// (a query may carry a credential, as Gemini's ?key= does), and a count
// in hookgate_routes_refused_total by reason.
func (s *Server) refuseRoute(ctx *fasthttp.RequestCtx, d routeDecision) {
	path := string(ctx.Path())
	shown := path
	if len(shown) > loggedPathMax {
		shown = shown[:loggedPathMax] + "..."
	}
	method := string(ctx.Method())
	if len(method) > 16 {
		method = method[:16] + "..."
	}
	s.log.Info("route refused", "method", method, "path", shown, "reason", string(d.reason), "status", d.status())
	s.metrics.routeRefused(d.reason)

	status := d.status()
	code, message := refusalText(d, method, fmt.Sprintf("%q", shown))
	f := d.format // a route of a format, asked with another method
	if f == nil {
		f = refusalShape(path, &ctx.Request.Header)
	}
	if f != nil {
		ctx.Response.Reset()
		ctx.SetStatusCode(status)
		ctx.SetContentType("application/json")
		ctx.SetBody(f.Error(status, "invalid_request_error", code, message))
	} else {
		writeError(ctx, status, "invalid_request_error", code, message)
	}
	if d.allow != "" {
		ctx.Response.Header.Set("Allow", d.allow)
	}
}

// refusalText is the code and message a refused request is answered with.
func refusalText(d routeDecision, method, path string) (code, message string) {
	const listHint = "; an operator can list it under passthrough_routes to forward it unguarded"
	switch d.reason {
	case refusedMethod:
		return "method_not_allowed", fmt.Sprintf("hookgate reads %s only as %s, and hooks are configured, so it refuses %s rather than let it escape policy", path, d.allow, method)
	case refusedOddPath:
		return "route_not_guarded", fmt.Sprintf("hookgate forwards only plain paths spelled exactly as the API spells them while hooks are configured, and refuses %s rather than let an upstream read it as another route", path)
	case refusedMethodOverride:
		return "route_not_guarded", "hookgate refuses a request that asks the upstream to override its method (X-HTTP-Method-Override and the like) while hooks are configured"
	case refusedStoredObject:
		return "route_not_guarded", fmt.Sprintf("hookgate does not relay stored objects (%s) while hooks are configured: they can show a tool call hookgate blocked%s", path, listHint)
	case refusedUnreadFormat:
		return "route_not_guarded", fmt.Sprintf("hookgate cannot read %s yet, and hooks are configured, so it refuses the route rather than let it escape policy%s", path, listHint)
	}
	return "route_not_guarded", fmt.Sprintf("hookgate forwards only the routes it reads and a fixed list of routes without model output while hooks are configured, and %s is neither%s", path, listHint)
}

// refusalShape is the registered format whose error shape a refused
// request is answered in: the first whose refusal scope holds the path in
// any case (/v1/messages and /v1/complete for Anthropic's), else the first
// whose client headers the request carries (anthropic-version, which every
// Anthropic SDK sends); nil for the OpenAI shape.
func refusalShape(path string, h *fasthttp.RequestHeader) *providers.Format {
	lp := strings.ToLower(path)
	for _, f := range providers.Formats() {
		if f.InRefusalScope(lp) {
			return f
		}
	}
	return clientHeadersFormat(h)
}
