package app

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clientFrom is an HTTP client whose connections leave from the loopback
// address ip (Linux answers the whole of 127.0.0.0/8).
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

func loginFrom(t *testing.T, c *http.Client, url, token string) (int, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/console/login", strings.NewReader(`{"token":"`+token+`"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header
}

// Over the admin listener: five wrong tokens from one address, then that
// address is answered 429 with a Retry-After, even with the right token
// (it is not looked at), while another address logs in; the failures are
// counted in hookgate_console_login_failures_total without the tokens.
func TestConsoleLoginThrottle(t *testing.T) {
	a := startConsole(t, t.TempDir(), "")
	base := a.AdminURL()
	guesser, approver := clientFrom("127.0.0.1"), clientFrom("127.0.0.2")
	if _, err := approver.Get(base + "/healthz"); err != nil {
		t.Skipf("cannot connect from 127.0.0.2 here: %v", err)
	}
	for i := range 5 {
		if status, _ := loginFrom(t, guesser, base, "tok-guess-"+strconv.Itoa(i)); status != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %d, want 401", i+1, status)
		}
	}
	for _, token := range []string{"tok-guess-again", "tok-root-console"} {
		status, h := loginFrom(t, guesser, base, token)
		retry, _ := strconv.Atoi(h.Get("Retry-After"))
		if status != http.StatusTooManyRequests || retry < 1 || retry > 30 || h.Get("Set-Cookie") != "" {
			t.Fatalf("after five failures, %s: %d Retry-After %q cookie %q; want 429, 1..30 s, no cookie",
				token, status, h.Get("Retry-After"), h.Get("Set-Cookie"))
		}
	}
	if status, h := loginFrom(t, approver, base, "tok-root-console"); status != http.StatusOK || h.Get("Set-Cookie") == "" {
		t.Fatalf("the approver from another address: %d, want 200 and a cookie", status)
	}

	m := do(t, "GET", base+"/metrics", nil, "")
	for _, want := range []string{
		`hookgate_console_login_failures_total{reason="wrong_token"} 5`,
		`hookgate_console_login_failures_total{reason="throttled"} 2`,
	} {
		if !strings.Contains(m.body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(m.body, "tok-guess") || strings.Contains(m.body, "tok-root") {
		t.Error("a token is in the metrics")
	}
}
