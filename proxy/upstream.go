package proxy

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/providers"
)

// upstream is one configured LLM API and the pooled client that reaches it.
type upstream struct {
	name     string
	provider string
	scheme   string
	host     string         // Host header value
	basePath string         // base_url's path, without a trailing slash
	apiKey   string         // swapped in for the client's credential when set (a tenant may override it)
	auth     providers.Auth // how the provider carries apiKey
	client   *fasthttp.HostClient
}

// Connection pool bounds per upstream.
const (
	upstreamMaxConns = 4096
	upstreamConnWait = 2 * time.Second
)

// upstreamReadBuffer fits the response headers of every provider seen so
// far; fasthttp's 4 KiB default is too small for some gateways' headers.
const upstreamReadBuffer = 16 << 10

func newUpstream(u Upstream, t Timeouts) (*upstream, error) {
	pu, err := url.Parse(u.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: %w", u.Name, err)
	}
	addr := pu.Host
	if pu.Port() == "" {
		port := "80"
		if pu.Scheme == "https" {
			port = "443"
		}
		addr = net.JoinHostPort(pu.Hostname(), port)
	}
	connect, firstByte, idle := t.Connect, t.FirstByte, t.Idle
	hc := &fasthttp.HostClient{
		Addr:                          addr,
		IsTLS:                         pu.Scheme == "https",
		NoDefaultUserAgentHeader:      true,
		DisableHeaderNamesNormalizing: true,
		DisablePathNormalizing:        true,
		StreamResponseBody:            true,
		// Beyond this many requests in flight to one upstream a request
		// waits for a connection, then gets a 503 with Retry-After, never
		// an unbounded queue.
		MaxConns:            upstreamMaxConns,
		MaxConnWaitTimeout:  upstreamConnWait,
		ReadBufferSize:      upstreamReadBuffer,
		MaxIdleConnDuration: 90 * time.Second,
		Dial: func(addr string) (net.Conn, error) {
			c, err := fasthttp.DialTimeout(addr, connect)
			if err != nil {
				return nil, err
			}
			return newDeadlineConn(c, firstByte, idle), nil
		},
		Transport:                 staleConnRetry{},
		RetryIfErr:                retryDropped,
		MaxIdemponentCallAttempts: upstreamAttempts,
	}
	return &upstream{
		name:     u.Name,
		provider: u.Provider,
		scheme:   pu.Scheme,
		host:     pu.Host,
		basePath: strings.TrimSuffix(pu.Path, "/"),
		apiKey:   u.APIKey,
		auth:     providerAuth(u.Provider),
		client:   hc,
	}, nil
}

// bearerAuth carries a credential of a provider no format registers (an
// upstream built in code; configuration files name registered ones only).
var bearerAuth = providers.Auth{Header: "Authorization", Prefix: "Bearer "}

// providerAuth is how provider's upstreams take a credential.
func providerAuth(provider string) providers.Auth {
	if f := providers.ProviderFormat(provider); f != nil {
		return f.Auth
	}
	return bearerAuth
}

// prepare turns the client's request into the upstream request: the same
// method, query, body and end-to-end headers, aimed at base_url under
// path (the path routing decided on), with the configured credential
// swapped in.
func (u *upstream) prepare(out *fasthttp.Request, in *fasthttp.Request, path string, body []byte, identity bool, apiKey string) {
	copyRequestHeaders(&out.Header, &in.Header)
	out.Header.SetMethodBytes(in.Header.Method())
	uri := out.URI()
	uri.DisablePathNormalizing = true
	uri.SetScheme(u.scheme)
	uri.SetHost(u.host)
	// The path routing decided on, normalised: what hookgate classified is
	// what the upstream serves (no dot segments or encodings read one way
	// here and another there). fasthttp decoded it, so a byte that cannot
	// stand in a request target as it is (a decoded CR, LF, space, '?',
	// '#', '%') is escaped again: written raw, it would end the path or
	// the request line upstream.
	uri.SetPath(escapePath(u.basePath + path))
	uri.SetQueryStringBytes(in.URI().QueryString())
	out.Header.SetHost(u.host)
	if apiKey != "" {
		// Header names keep the client's spelling and Set and Del match it
		// exactly, so every spelling of every credential header goes first
		// ("X-Api-Key" from one client, "authorization" from another), and
		// so does a ?key= in the query: none may travel upstream beside
		// the swapped key.
		stripClientCredentials(&out.Header, uri)
		out.Header.Set(u.auth.Header, u.auth.Value(apiKey))
	}
	if identity {
		// hookgate reads this response, so it asks for it uncompressed.
		out.Header.Set("Accept-Encoding", "identity")
	}
	out.SetBodyRaw(body)
}

// delHeaderFold removes every header whose name equals one of names in any
// case.
func delHeaderFold(h *fasthttp.RequestHeader, names ...string) {
	var drop [][]byte
	for k := range h.All() {
		for _, n := range names {
			if strings.EqualFold(string(k), n) {
				drop = append(drop, bytes.Clone(k))
			}
		}
	}
	for _, k := range drop {
		h.DelBytes(k)
	}
}

// rawPathByte are the bytes a path may carry unescaped (RFC 3986 pchar
// and '/'): unreserved characters, sub-delimiters, ':' and '@'.
var rawPathByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	for _, c := range []byte("-._~!$&'()*+,;=:@/") {
		t[c] = true
	}
	return t
}()

// escapePath percent-encodes every byte of a decoded path that is not a
// raw path byte. A path that needs none comes back as it is.
func escapePath(p string) string {
	i := 0
	for i < len(p) && rawPathByte[p[i]] {
		i++
	}
	if i == len(p) {
		return p
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(p)+16)
	b = append(b, p[:i]...)
	for ; i < len(p); i++ {
		c := p[i]
		if rawPathByte[c] {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&0xf])
	}
	return string(b)
}
