package proxy

import "strings"

// plainPathByte are the bytes a path may hold, once fasthttp has decoded
// it, for hookgate to forward it while hooks are configured: letters,
// digits, '/', and "-._~:@+=,". Every other byte is a place where two
// servers may read one path as two routes: a backslash (a separator on
// some servers), NUL, ';' (matrix parameters, dropped by some
// frameworks), '%' (a second round of decoding), '?' and '#' (decoded
// into the path, they end it upstream), spaces and controls (the request
// line itself), and non-ASCII bytes (case folding and normalisation).
var plainPathByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range []byte("/-._~:@+=,") {
		t[c] = true
	}
	return t
}()

// plainPath reports whether every byte of path is a plain path byte.
func plainPath(path string) bool {
	for i := 0; i < len(path); i++ {
		if !plainPathByte[path[i]] {
			return false
		}
	}
	return true
}

// trimTrailingSlash drops the slashes that end a path longer than "/":
// "/v1/chat/completions/" is the chat route.
func trimTrailingSlash(p string) string {
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
		if p == "" {
			return "/"
		}
	}
	return p
}

// routePath is the route a request is served and counted under:
// fasthttp's normalised path (percent-decoding, no doubled slashes, no dot
// segments) without a trailing slash, in lower case. It names the
// interceptor of a read route and bounds the route label of the metrics.
func routePath(normalised []byte) string {
	return strings.ToLower(trimTrailingSlash(string(normalised)))
}
