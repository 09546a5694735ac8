package hooks

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// This file holds what the http and prompt handlers share: a pooled client
// that never follows a redirect, a cap on response bodies, and URLs that
// name only scheme and host in errors.

// Pool and size limits of a handler's client. Each handler owns one
// transport, so a slow policy server cannot starve another hook's pool.
const (
	hookMaxIdleConns    = 64
	hookMaxConnsPerHost = 256 // beyond this, requests wait (bounded by the hook's timeout) rather than exhaust file descriptors
	hookIdleConnTimeout = 90 * time.Second
	hookDialTimeout     = 5 * time.Second
	maxHookResponseBody = 1 << 20 // 1 MiB
)

// errBodyTooLarge reports a response body over maxHookResponseBody.
var errBodyTooLarge = fmt.Errorf("response body exceeds %d bytes", maxHookResponseBody)

// newHookClient returns a client with its own connection pool. Redirects
// are never followed: the 3xx response itself comes back, and callers treat
// it as a failure, so a hook or judge URL can only ever reach the host the
// operator configured (no SSRF through a Location header).
func newHookClient(rt http.RoundTripper) *http.Client {
	return &http.Client{
		Transport: rt,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// newHookTransport returns a transport with bounded pools.
func newHookTransport() *http.Transport {
	dialer := &net.Dialer{Timeout: hookDialTimeout, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          hookMaxIdleConns,
		MaxIdleConnsPerHost:   hookMaxIdleConns,
		MaxConnsPerHost:       hookMaxConnsPerHost,
		IdleConnTimeout:       hookIdleConnTimeout,
		TLSHandshakeTimeout:   hookDialTimeout,
		ExpectContinueTimeout: time.Second,
	}
}

// parseHookURL checks an operator-configured URL: absolute http or https
// with a host and no user info (credentials belong in headers, where they
// never reach an error message).
func parseHookURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("url is empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("url: %w", redactURLError(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("url scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("url has no host")
	}
	if u.User != nil {
		return nil, errors.New("url carries user info; put credentials in headers")
	}
	return u, nil
}

// displayURL is what errors and side effects say of a URL: scheme and host
// only. Paths and queries may hold secrets (a chat webhook's URL is its
// token).
func displayURL(u *url.URL) string {
	return u.Scheme + "://" + u.Host
}

// redactURLError strips the URL *url.Error puts in its message and keeps
// the cause, so that context.DeadlineExceeded and friends still match.
func redactURLError(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return fmt.Errorf("%s: %w", strings.ToLower(uerr.Op), uerr.Err)
	}
	return err
}

// readCapped reads all of r up to maxHookResponseBody bytes.
func readCapped(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxHookResponseBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxHookResponseBody {
		return nil, errBodyTooLarge
	}
	return b, nil
}

// discardBody drains a little of a body so the connection can be reused,
// then closes it. A body larger than that is abandoned with its connection.
func discardBody(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	_ = body.Close()
}
