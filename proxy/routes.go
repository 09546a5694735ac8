package proxy

import (
	"bytes"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/providers"
)

// routeKind says what the proxy does with a request.
type routeKind uint8

const (
	// routePassthrough forwards the request and relays the response as is:
	// any route while no hook is configured; with hooks, a listed
	// non-generation route (route_list.go) or one under passthrough_routes.
	routePassthrough routeKind = iota
	// routeIntercepted is read by an interceptor: hooks see it.
	routeIntercepted
	// routeRefused is answered by hookgate itself and never goes upstream.
	routeRefused
)

// refusalReason is why a route was refused: the bounded value of the
// reason label of hookgate_routes_refused_total and of the log line.
type refusalReason string

const (
	// refusedNotListed: neither read, nor listed, nor under
	// passthrough_routes.
	refusedNotListed refusalReason = "not_listed"
	// refusedStoredObject: a read of a stored response, completion or
	// conversation, which can show a call hookgate blocked.
	refusedStoredObject refusalReason = "stored_object"
	// refusedUnreadFormat: a generation route of a wire format hookgate
	// does not read yet (Gemini, Azure deployments, legacy completions,
	// batches, assistants, realtime, prefixed OpenAI-compatible bases).
	refusedUnreadFormat refusalReason = "unread_format"
	// refusedMethod: a read or listed route asked with a method it does
	// not take (405).
	refusedMethod refusalReason = "method"
	// refusedOddPath: a path with a byte outside the plain set, or a read
	// or listed route spelled in another case.
	refusedOddPath refusalReason = "odd_path"
	// refusedMethodOverride: a header that asks the upstream to serve
	// another method than the request line's.
	refusedMethodOverride refusalReason = "method_override"
)

// refusalReasons are every reason, to start each series at zero.
var refusalReasons = []refusalReason{refusedNotListed, refusedStoredObject, refusedUnreadFormat, refusedMethod, refusedOddPath, refusedMethodOverride}

// routeDecision is what the router decided for one request.
type routeDecision struct {
	kind routeKind
	// upPath is the path sent upstream: on a read or listed route, the
	// path that was matched, so that the upstream serves exactly what was
	// decided on; otherwise the normalised path as fasthttp read it.
	upPath string
	// reason and allow describe a refusal: allow is the Allow header of a
	// 405, empty for a 403.
	reason refusalReason
	allow  string
	// format is the format a read route is read as.
	format *providers.Format
}

// status is the HTTP status of a refusal.
func (d routeDecision) status() int {
	if d.reason == refusedMethod {
		return fasthttp.StatusMethodNotAllowed
	}
	return fasthttp.StatusForbidden
}

// router decides what happens to each request, from the configuration.
type router struct {
	// formats are the registered formats an interceptor reads (POST
	// only), by their routes.
	formats *providers.FormatTable
	// passthrough are the operator's passthrough_routes, each forwarded
	// unread with everything under it.
	passthrough []string
	// hooksActive closes the proxy: with any hook configured, only read,
	// listed and passthrough routes go upstream.
	hooksActive bool
}

// methodOverrideHeaders ask a server to treat a request as another
// method (Google's front ends honour the first): a GET to a listed route
// must not be served as a POST of something else.
var methodOverrideHeaders = []string{"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"}

// decide classifies a request by its method and fasthttp's normalised
// path (percent-decoded, doubled slashes and dot segments removed).
//
// Without hooks every request is forwarded; a POST to a read route, its
// path compared without regard to case, is read, as it always was.
//
// With hooks the proxy is closed: a request goes upstream only when it is
// a POST to the exact path of a read route, a listed non-generation route
// with one of its methods, or under passthrough_routes. Methods are
// compared exactly (RFC 9110 makes them case-sensitive), paths exactly
// after one trailing slash is dropped, and a path with any byte outside
// plainPathByte (backslash, NUL, ';', '%' left after decoding, spaces,
// non-ASCII) is refused before anything else, passthrough routes included:
// an upstream could read such a path as another route.
func (r *router) decide(method string, normalised []byte, h *fasthttp.RequestHeader) routeDecision {
	path := string(normalised)
	query := ""
	if r.formats.ReadsQuery() {
		query = rawQuery(h.RequestURI())
	}
	if !r.hooksActive {
		if strings.ToUpper(method) == fasthttp.MethodPost {
			if f := r.formats.MatchLower(routePath(normalised), query); f != nil {
				return routeDecision{kind: routeIntercepted, upPath: path, format: f}
			}
		}
		return routeDecision{kind: routePassthrough, upPath: path}
	}
	for _, name := range methodOverrideHeaders {
		if len(h.Peek(name)) > 0 {
			return routeDecision{kind: routeRefused, reason: refusedMethodOverride}
		}
	}
	if !plainPath(path) {
		return routeDecision{kind: routeRefused, reason: refusedOddPath}
	}
	canon := trimTrailingSlash(path)
	read := r.formats.Match(canon, query)
	if read != nil && method == fasthttp.MethodPost {
		return routeDecision{kind: routeIntercepted, upPath: canon, format: read}
	}
	if r.underPassthrough(canon) {
		return routeDecision{kind: routePassthrough, upPath: path}
	}
	if read != nil {
		return routeDecision{kind: routeRefused, reason: refusedMethod, allow: fasthttp.MethodPost, format: read}
	}
	if l, ok := matchListed(canon); ok {
		if l.takes(method) {
			return routeDecision{kind: routePassthrough, upPath: canon}
		}
		return routeDecision{kind: routeRefused, reason: refusedMethod, allow: l.allow()}
	}
	return routeDecision{kind: routeRefused, reason: r.whyNotListed(canon, query)}
}

// rawQuery is the query of a raw request target: what follows the first
// '?', up to a '#', as fasthttp's URI reads it (the query sent upstream).
func rawQuery(requestURI []byte) string {
	if i := bytes.IndexByte(requestURI, '#'); i >= 0 {
		requestURI = requestURI[:i]
	}
	i := bytes.IndexByte(requestURI, '?')
	if i < 0 {
		return ""
	}
	return string(requestURI[i+1:])
}

// underPassthrough reports whether path is, or is under, one of the
// operator's passthrough_routes, compared without regard to case.
func (r *router) underPassthrough(path string) bool {
	lp := strings.ToLower(path)
	for _, p := range r.passthrough {
		p = strings.ToLower(p)
		if lp == p || strings.HasPrefix(lp, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}

// whyNotListed names the reason of a refused path for the operator. The
// decision is already made (nothing unlisted goes upstream); this only
// tells a stored-object read or an unread format from any other path.
func (r *router) whyNotListed(canon, query string) refusalReason {
	lp := strings.ToLower(canon)
	if variant := strings.TrimRight(lp, "."); variant != canon {
		// A read or listed route in another case or with trailing dots.
		if r.formats.MatchLower(variant, query) != nil {
			return refusedOddPath
		}
		if _, ok := matchListed(variant); ok {
			return refusedOddPath
		}
	}
	for _, route := range r.formats.LiteralRoutes() {
		if strings.HasPrefix(lp, route+"/") {
			if strings.HasPrefix(lp, "/v1/messages/batches") {
				return refusedUnreadFormat
			}
			return refusedStoredObject
		}
	}
	if strings.HasPrefix(lp, "/v1/conversations") || strings.HasPrefix(lp, "/v1/files/") {
		return refusedStoredObject
	}
	if unreadGeneration(lp) {
		return refusedUnreadFormat
	}
	return refusedNotListed
}

// unreadGenerationMarkers are parts of paths that produce model output in
// a format hookgate does not read yet: Gemini's methods, Azure OpenAI's
// deployments, OpenAI-compatible bases under a prefix, and OpenAI's and
// Anthropic's other generation APIs.
var unreadGenerationMarkers = []string{
	":generatecontent", ":streamgeneratecontent", "/deployments/",
	"/chat/completions", "/completions", "/responses", "/messages", "/complete",
	"/batches", "/assistants", "/threads", "/realtime",
}

func unreadGeneration(lp string) bool {
	for _, m := range unreadGenerationMarkers {
		if strings.Contains(lp, m) {
			return true
		}
	}
	return false
}
