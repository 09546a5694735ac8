package proxy

import "strings"

// routeKind says what the proxy does with a path.
type routeKind uint8

const (
	// routePassthrough forwards the request and relays the response as is.
	routePassthrough routeKind = iota
	// routeIntercepted is read by an interceptor: hooks see it.
	routeIntercepted
	// routeRefused is a generation route hookgate cannot read yet; with
	// hooks configured it is refused so that no request escapes policy.
	routeRefused
)

// unreadGenerationRoutes produce model output that hookgate cannot yet
// read. Once any hook is configured they are refused unless listed under
// passthrough_routes.
var unreadGenerationRoutes = []string{
	"/v1/completions",
	"/v1/responses",
	"/v1/messages/batches",
	"/v1/batches",
	"/v1/assistants",
	"/v1/threads",
	"/v1/realtime",
}

// harmlessRoutes sit under a route hookgate reads but produce no model
// output to judge (Claude Code counts tokens before every request).
var harmlessRoutes = map[string]bool{
	"/v1/messages/count_tokens": true,
}

// router decides the route kind of each path, from the configuration.
type router struct {
	intercepted map[string]bool
	passthrough []string
	hooksActive bool
}

// classify decides on the normalised path, compared without regard to
// case, and on the method in upper case: an upstream that is lenient about
// either must not be handed a generation request hookgate did not read.
// With hooks configured, a guarded route reached any other way than a
// plain POST to its exact path (another method, a suffix such as ";x=1",
// ".", or a NUL) is refused rather than passed through.
func (r *router) classify(method, path string) routeKind {
	m := strings.ToUpper(method)
	lp := strings.ToLower(path)
	if m == "POST" && r.intercepted[lp] {
		return routeIntercepted
	}
	if !r.hooksActive || harmlessRoutes[lp] {
		return routePassthrough
	}
	for _, p := range r.passthrough {
		p = strings.ToLower(p)
		if lp == p || strings.HasPrefix(lp, strings.TrimSuffix(p, "/")+"/") {
			return routePassthrough
		}
	}
	for g := range r.intercepted {
		if lp == g && m != "GET" && m != "HEAD" && m != "OPTIONS" {
			return routeRefused
		}
		if strings.HasPrefix(lp, g) && lp != g && !(strings.HasPrefix(lp, g+"/") && (m == "GET" || m == "HEAD")) {
			// POST /v1/chat/completions;x=1, /v1/responses/{id}/cancel...:
			// not the route hookgate reads, but close enough to be served.
			return routeRefused
		}
	}
	for _, g := range unreadGenerationRoutes {
		if lp == g || strings.HasPrefix(lp, g) {
			return routeRefused
		}
	}
	return routePassthrough
}

// routePath is the path routing decides on: fasthttp's normalised path
// (percent-decoding, no doubled slashes, no dot segments) without a
// trailing slash, so that "/v1//chat/completions/" cannot slip past the
// interceptor while the upstream still serves it.
func routePath(normalised []byte) string {
	p := string(normalised)
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
	}
	return strings.ToLower(p)
}
