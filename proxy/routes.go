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

// router decides the route kind of each path, from the configuration.
type router struct {
	intercepted map[string]bool
	passthrough []string
	hooksActive bool
}

func (r *router) classify(method, path string) routeKind {
	if method == "POST" && r.intercepted[path] {
		return routeIntercepted
	}
	if !r.hooksActive {
		return routePassthrough
	}
	for _, p := range r.passthrough {
		if path == p || strings.HasPrefix(path, strings.TrimSuffix(p, "/")+"/") {
			return routePassthrough
		}
	}
	for _, g := range unreadGenerationRoutes {
		if path == g || strings.HasPrefix(path, g+"/") {
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
	return p
}
