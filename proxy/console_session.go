package proxy

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// ConsoleCookie is the name of the console's session cookie.
const ConsoleCookie = "hookgate_console"

// ConsoleCSRFHeader carries a session's CSRF token on every console write.
const ConsoleCSRFHeader = "X-CSRF-Token"

// consoleSession is a verified session cookie.
type consoleSession struct {
	tok     adminToken
	id      string
	csrf    string
	expires time.Time
}

// sessionClaims is what a cookie holds, signed: the token's name and a
// fingerprint of its digest (a rotated or removed token ends its
// sessions), the session's random id (logging out revokes it), the
// expiry and the session's CSRF token. The admin token itself is never in
// it.
type sessionClaims struct {
	Name    string `json:"n"`
	Token   string `json:"t"`
	ID      string `json:"i"`
	Expires int64  `json:"e"`
	CSRF    string `json:"c"`
}

// sessionMACLabel separates the cookie's MAC from any other use of the key.
const sessionMACLabel = "hookgate-console-session-v1\n"

// NewSessionKey is a random key for sessions that end with the process.
func NewSessionKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // crypto/rand.Read never fails
	return k
}

func fingerprint(t adminToken) string { return hex.EncodeToString(t.digest[:8]) }

func (c *console) mac(payload string) []byte {
	m := hmac.New(sha256.New, c.opts.SessionKey)
	m.Write([]byte(sessionMACLabel))
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// newSession opens a session for tok.
func (c *console) newSession(tok adminToken) consoleSession {
	return consoleSession{tok: tok, id: randomString(), csrf: randomString(), expires: time.Now().Add(c.opts.SessionTTL)}
}

// randomString is 144 random bits, URL-safe.
func randomString() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}

// setCookie sends s as the session cookie: HttpOnly (no script reads it),
// SameSite=Strict (no other site's page sends it), Secure unless
// insecure_cookies, for the console's paths only.
func (c *console) setCookie(ctx *fasthttp.RequestCtx, s consoleSession) {
	claims, _ := json.Marshal(sessionClaims{Name: s.tok.name, Token: fingerprint(s.tok), ID: s.id, Expires: s.expires.Unix(), CSRF: s.csrf})
	payload := base64.RawURLEncoding.EncodeToString(claims)
	value := payload + "." + base64.RawURLEncoding.EncodeToString(c.mac(payload))
	c.writeCookie(ctx, value, int(c.opts.SessionTTL/time.Second))
}

// clearCookie tells the browser to forget the session cookie.
func (c *console) clearCookie(ctx *fasthttp.RequestCtx) { c.writeCookie(ctx, "", -1) }

func (c *console) writeCookie(ctx *fasthttp.RequestCtx, value string, maxAge int) {
	ck := fasthttp.AcquireCookie()
	defer fasthttp.ReleaseCookie(ck)
	ck.SetKey(ConsoleCookie)
	ck.SetValue(value)
	ck.SetPath("/console/")
	ck.SetHTTPOnly(true)
	ck.SetSameSite(fasthttp.CookieSameSiteStrictMode)
	ck.SetSecure(!c.opts.InsecureCookies)
	ck.SetMaxAge(maxAge)
	if maxAge < 0 {
		ck.SetExpire(fasthttp.CookieExpireDelete)
	}
	ctx.Response.Header.SetCookie(ck)
}

// errNoSession: the request carries no valid, unrevoked session cookie.
var errNoSession = errors.New("no console session")

// session verifies the request's session cookie: its MAC, its expiry,
// that its token is still configured as it was at login, and that it was
// not logged out (console_revoke.go). The error is errNoSession, or the
// store's when the revocation could not be looked up (the session is
// refused then too).
func (c *console) session(reqCtx context.Context, ctx *fasthttp.RequestCtx) (consoleSession, error) {
	s, ok := c.verify(ctx.Request.Header.Cookie(ConsoleCookie))
	if !ok {
		return consoleSession{}, errNoSession
	}
	if err := c.revoked.check(reqCtx, s); err != nil {
		return consoleSession{}, err
	}
	return s, nil
}

// verify checks a cookie's value: its MAC, its expiry and its token.
func (c *console) verify(cookie []byte) (consoleSession, bool) {
	payload, sig, ok := strings.Cut(string(cookie), ".")
	if !ok {
		return consoleSession{}, false
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, c.mac(payload)) {
		return consoleSession{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return consoleSession{}, false
	}
	var cl sessionClaims
	if err := json.Unmarshal(b, &cl); err != nil {
		return consoleSession{}, false
	}
	expires := time.Unix(cl.Expires, 0)
	if !time.Now().Before(expires) || cl.CSRF == "" || cl.ID == "" {
		return consoleSession{}, false
	}
	for _, t := range c.admin.tokens {
		if t.name == cl.Name && subtle.ConstantTimeCompare([]byte(fingerprint(t)), []byte(cl.Token)) == 1 {
			return consoleSession{tok: t, id: cl.ID, csrf: cl.CSRF, expires: expires}, true
		}
	}
	return consoleSession{}, false
}

// csrfOK reports whether a write carries its session's CSRF token.
func (c *console) csrfOK(ctx *fasthttp.RequestCtx, s consoleSession) bool {
	given := ctx.Request.Header.Peek(ConsoleCSRFHeader)
	return len(given) > 0 && subtle.ConstantTimeCompare(given, []byte(s.csrf)) == 1
}
