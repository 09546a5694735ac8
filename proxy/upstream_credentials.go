package proxy

import (
	"bytes"
	"net/url"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/providers"
)

// clientCredentialHeaders are the headers in which some LLM API or SDK
// carries a caller's key: OpenAI's and most gateways' bearer token,
// Anthropic's x-api-key, Azure OpenAI's api-key, Google's x-goog-api-key,
// and every registered format's own (Format.Auth). When hookgate supplies
// the upstream credential, none of them travels upstream beside it, in
// any spelling of the name.
var clientCredentialHeaders = func() []string {
	names := []string{"Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key"}
	for _, f := range providers.Formats() {
		known := false
		for _, n := range names {
			known = known || strings.EqualFold(n, f.Auth.Header)
		}
		if !known {
			names = append(names, f.Auth.Header)
		}
	}
	return names
}()

// clientCredentialQueryParam is the query parameter Google's APIs take a
// key in (?key=...).
const clientCredentialQueryParam = "key"

// stripClientCredentials removes every form of the client's credential
// from an upstream request that is about to carry hookgate's own.
func stripClientCredentials(h *fasthttp.RequestHeader, uri *fasthttp.URI) {
	delHeaderFold(h, clientCredentialHeaders...)
	if q := uri.QueryString(); len(q) > 0 {
		if kept, changed := withoutCredentialParams(q); changed {
			uri.SetQueryStringBytes(kept)
		}
	}
}

// withoutCredentialParams returns the raw query without any parameter
// named key, whatever its case or percent-encoding ("%6Bey", "KEY"), and
// reports whether it dropped one. Every other parameter keeps its bytes
// and order. A pair that some servers split further at ';' is dropped
// whole when any piece of it names the parameter, as is a pair whose name
// does not decode: hookgate cannot tell what a server reads there.
func withoutCredentialParams(q []byte) ([]byte, bool) {
	if !mayNameCredential(q) {
		return q, false
	}
	out := make([]byte, 0, len(q))
	changed := false
	for pair := range bytes.SplitSeq(q, []byte("&")) {
		if pairNamesCredential(pair) {
			changed = true
			continue
		}
		if len(out) > 0 {
			out = append(out, '&')
		}
		out = append(out, pair...)
	}
	return out, changed
}

// mayNameCredential is a cheap first look: a query that holds neither a
// 'k' in any case nor a percent sign cannot name the parameter.
func mayNameCredential(q []byte) bool {
	return bytes.ContainsAny(q, "kK%")
}

// pairNamesCredential reports whether one '&'-separated piece of a query
// names the credential parameter (or might, to some server).
func pairNamesCredential(pair []byte) bool {
	for piece := range bytes.SplitSeq(pair, []byte(";")) {
		name, _, _ := bytes.Cut(piece, []byte("="))
		decoded, err := url.QueryUnescape(string(name))
		if err != nil {
			return true
		}
		if strings.EqualFold(strings.TrimSpace(decoded), clientCredentialQueryParam) {
			return true
		}
	}
	return false
}
