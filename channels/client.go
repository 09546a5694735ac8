package channels

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// This file holds what every channel shares for outbound calls: a client
// with timeouts that never follows a redirect, a cap on response bodies,
// and URLs that appear in errors by scheme and host only.

const (
	requestTimeout     = 10 * time.Second
	dialTimeout        = 5 * time.Second
	maxResponseBytes   = 1 << 20
	maxIdleConnections = 16
)

// errResponseTooLarge reports a response body over maxResponseBytes.
var errResponseTooLarge = fmt.Errorf("response body exceeds %d bytes", maxResponseBytes)

// newClient returns the default client: bounded dial, handshake, header
// and overall timeouts, and redirects returned rather than followed, so a
// Location header cannot carry a bot token to another host.
func newClient() *http.Client {
	dialer := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	return &http.Client{
		Timeout: requestTimeout,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           dialer.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          maxIdleConnections,
			MaxIdleConnsPerHost:   maxIdleConnections,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   dialTimeout,
			ResponseHeaderTimeout: requestTimeout,
			ExpectContinueTimeout: time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// parseBaseURL checks an operator-configured URL: absolute http or https,
// with a host and no user info (credentials belong in headers, where they
// never reach an error message).
func parseBaseURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("url is empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("url does not parse")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("url scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("url has no host")
	}
	if u.User != nil {
		return nil, errors.New("url carries user info; put credentials in the *_env secrets")
	}
	return u, nil
}

// endpoint joins an API base and a path ("/chat.postMessage").
func endpoint(base *url.URL, path string) string {
	return strings.TrimRight(base.String(), "/") + path
}

// exchange is one outbound call's result: status, a capped body and the
// Retry-After a 429 carried.
type exchange struct {
	status     int
	body       []byte
	retryAfter time.Duration
}

// postJSON sends body to target with the given headers and reads the
// response, capped. Transport errors name only the target's scheme and
// host: a webhook URL's path is often its credential.
func postJSON(ctx context.Context, c *http.Client, target string, header http.Header, body []byte) (exchange, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return exchange{}, errors.New("building request failed")
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	resp, err := c.Do(req)
	if err != nil {
		return exchange{}, fmt.Errorf("POST %s: %w", displayURL(req.URL), redactURLError(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return exchange{}, fmt.Errorf("POST %s: reading response: %w", displayURL(req.URL), err)
	}
	if len(b) > maxResponseBytes {
		return exchange{}, fmt.Errorf("POST %s: %w", displayURL(req.URL), errResponseTooLarge)
	}
	return exchange{status: resp.StatusCode, body: b, retryAfter: retryAfter(resp.Header.Get("Retry-After"))}, nil
}

// retryAfter reads a Retry-After header given in seconds (the form Slack
// and Feishu use); anything else is no hint.
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// displayURL is what errors say of a URL: scheme and host only.
func displayURL(u *url.URL) string {
	return u.Scheme + "://" + u.Host
}

// redactURLError strips the URL *url.Error puts in its message and keeps
// the cause, so that context.DeadlineExceeded still matches.
func redactURLError(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return fmt.Errorf("%s: %w", strings.ToLower(uerr.Op), uerr.Err)
	}
	return err
}
