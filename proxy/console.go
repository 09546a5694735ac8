package proxy

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"log/slog"
	"mime"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// The console's pages, styles and scripts ship inside the binary; a page
// loads nothing from anywhere else.
//
//go:embed console
var consoleFiles embed.FS

// ConsoleOptions configure the operator's console on the admin listener.
type ConsoleOptions struct {
	// Enabled serves /console/; off, those paths are 404s.
	Enabled bool
	// SessionKey signs session cookies. Every instance behind one load
	// balancer needs the same key; it must be at least 32 bytes.
	SessionKey []byte
	// InsecureCookies drops the cookie's Secure flag (plain-HTTP set-ups).
	InsecureCookies bool
	// SessionTTL is how long a login lasts; zero is DefaultSessionTTL.
	SessionTTL time.Duration
	// Decisions answers the decisions page; nil shows none.
	Decisions DecisionDesk
	// Sessions answers the session timeline; nil shows none.
	Sessions SessionDesk
	// Costs answers the costs page; nil shows none.
	Costs CostDesk
	// Policy answers the policy page; nil shows none.
	Policy func() any
	// EventPoll is how often an event stream looks for changes; zero is
	// DefaultEventPoll.
	EventPoll time.Duration
	// Revocations keeps logged-out sessions for every instance; nil keeps
	// them in this process only.
	Revocations ConsoleRevocations
}

// DefaultSessionTTL is how long a console login lasts by default.
const DefaultSessionTTL = 8 * time.Hour

// DefaultEventPoll is how often the console's event stream looks at the
// store for new questions and decisions (the store, not this instance's
// memory, so that questions asked through other instances show too).
const DefaultEventPoll = time.Second

// DecisionDesk lists recent hook executions for the console. tenants is
// the viewer's scope, as for ApprovalDesk.
type DecisionDesk interface {
	Decisions(ctx context.Context, f DecisionFilter, tenants []string) (any, error)
	// Latest names the newest execution f selects ("" for none): the
	// event stream tells the page to look again when it changes.
	Latest(ctx context.Context, tenants []string) (string, error)
}

// SessionDesk tells one session's agent loop, in order, for the console.
// tenants is the viewer's scope: a session outside it shows nothing.
type SessionDesk interface {
	Session(ctx context.Context, id string, tenants []string) (any, error)
}

// CostDesk tells what the hooks cost over the last window, per hook, and
// the streams and held calls right now. tenants is the viewer's scope.
type CostDesk interface {
	Costs(ctx context.Context, window time.Duration, tenants []string) (any, error)
}

// DecisionFilter selects decisions; empty fields select all.
type DecisionFilter struct {
	Hook, Session, Decision, Tool, Tenant, Agent string
	// DryRun keeps only the would-decisions of dry_run hooks.
	DryRun bool
	// Limit is how many of the newest to show (at most 500; <= 0: 100).
	Limit int
}

// console serves /console/: pages, its JSON API and its event stream.
type console struct {
	admin *Admin
	opts  ConsoleOptions
	// throttle counts failed logins (console_throttle.go).
	throttle *loginThrottle
	// revoked refuses logged-out sessions (console_revoke.go).
	revoked *revocations

	stopOnce sync.Once
	done     chan struct{}
}

func newConsole(a *Admin, opts ConsoleOptions) *console {
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = DefaultSessionTTL
	}
	if opts.EventPoll <= 0 {
		opts.EventPoll = DefaultEventPoll
	}
	return &console{admin: a, opts: opts, throttle: newLoginThrottle(nil), revoked: newRevocations(opts.Revocations), done: make(chan struct{})}
}

// stop ends the open event streams.
func (c *console) stop() { c.stopOnce.Do(func() { close(c.done) }) }

// consoleCSP allows the console's own files and nothing else: no inline
// script or style, no frame, no form posted elsewhere.
const consoleCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// secure sets the headers every console answer carries. It runs after
// the handler, as writeError resets the response.
func secure(ctx *fasthttp.RequestCtx) {
	h := &ctx.Response.Header
	h.Set("Content-Security-Policy", consoleCSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	if len(h.Peek("Cache-Control")) == 0 {
		h.Set("Cache-Control", "no-store")
	}
}

func (c *console) handle(reqCtx context.Context, ctx *fasthttp.RequestCtx, p string) {
	defer secure(ctx)
	switch {
	case p == "/console":
		ctx.Redirect("/console/", fasthttp.StatusMovedPermanently)
	case p == "/console/" && ctx.IsGet():
		if _, err := c.session(reqCtx, ctx); err != nil {
			if !errors.Is(err, errNoSession) {
				writeError(ctx, fasthttp.StatusServiceUnavailable, "server_error", "session_check", "could not check the console session")
				return
			}
			ctx.Redirect("/console/login", fasthttp.StatusSeeOther)
			return
		}
		c.file(ctx, "index.html")
	case p == "/console/login" && ctx.IsGet():
		c.file(ctx, "login.html")
	case p == "/console/login" && ctx.IsPost():
		c.login(ctx)
	case strings.HasPrefix(p, "/console/assets/") && ctx.IsGet():
		c.file(ctx, strings.TrimPrefix(p, "/console/assets/"))
	case strings.HasPrefix(p, "/console/api/"):
		s, err := c.session(reqCtx, ctx)
		if errors.Is(err, errNoSession) {
			writeError(ctx, fasthttp.StatusUnauthorized, "invalid_request_error", "no_session", "log in to the console first")
			return
		}
		if err != nil {
			slog.Warn("console: the session's revocation could not be looked up; refused", "err", err)
			writeError(ctx, fasthttp.StatusServiceUnavailable, "server_error", "session_check", "could not check the console session")
			return
		}
		if !ctx.IsGet() && !ctx.IsHead() && !c.csrfOK(ctx, s) {
			writeError(ctx, fasthttp.StatusForbidden, "invalid_request_error", "csrf", "missing or wrong X-CSRF-Token header")
			return
		}
		c.api(reqCtx, ctx, strings.TrimPrefix(p, "/console/api/"), s)
	default:
		writeError(ctx, fasthttp.StatusNotFound, "invalid_request_error", "not_found", "no such console page")
	}
}

// file serves one embedded file by its base name.
func (c *console) file(ctx *fasthttp.RequestCtx, name string) {
	if name == "" || strings.ContainsAny(name, "/\\") {
		writeError(ctx, fasthttp.StatusNotFound, "invalid_request_error", "not_found", "no such console file")
		return
	}
	b, err := consoleFiles.ReadFile("console/" + name)
	if err != nil {
		writeError(ctx, fasthttp.StatusNotFound, "invalid_request_error", "not_found", "no such console file")
		return
	}
	typ := mime.TypeByExtension(path.Ext(name))
	if typ == "" {
		typ = "application/octet-stream"
	}
	ctx.SetContentType(typ)
	ctx.SetBody(b)
}

// api answers /console/api/{rest} for session s (its CSRF token already
// checked on writes).
func (c *console) api(reqCtx context.Context, ctx *fasthttp.RequestCtx, rest string, s consoleSession) {
	a := c.admin
	parts := strings.Split(rest, "/")
	switch {
	case rest == "session" && ctx.IsGet():
		a.reply(ctx, map[string]any{"name": s.tok.name, "tenants": s.tok.tenants, "csrf": s.csrf, "expires_at": s.expires.UTC()}, 0, nil)
	case rest == "logout" && ctx.IsPost():
		// Revoked for every instance, so that a copy of the cookie is
		// refused too; the browser forgets it either way.
		if err := c.revoked.revoke(reqCtx, s, s.tok.name); err != nil {
			slog.Warn("console: logout could not revoke the session", "err", err)
			writeError(ctx, fasthttp.StatusServiceUnavailable, "server_error", "logout_failed", "the session could not be revoked: try again")
			c.clearCookie(ctx)
			return
		}
		c.clearCookie(ctx)
		a.reply(ctx, map[string]any{"logged_out": true}, 0, nil)
	case rest == "approvals" && ctx.IsGet() && a.opts.Approvals != nil:
		list, err := a.opts.Approvals.List(reqCtx, string(ctx.QueryArgs().Peek("status")), s.tok.tenants)
		a.reply(ctx, list, fasthttp.StatusInternalServerError, err)
	case len(parts) == 3 && parts[0] == "approvals" && (parts[2] == "approve" || parts[2] == "reject") && ctx.IsPost() && a.opts.Approvals != nil:
		comment, ok := answerComment(ctx)
		if !ok {
			return
		}
		out, status, err := a.opts.Approvals.Decide(reqCtx, parts[1], parts[2] == "approve", s.tok.name, comment, s.tok.tenants)
		a.reply(ctx, out, status, err)
	case rest == "decisions" && ctx.IsGet() && c.opts.Decisions != nil:
		q := ctx.QueryArgs()
		limit, _ := strconv.Atoi(string(q.Peek("limit")))
		f := DecisionFilter{
			Hook: string(q.Peek("hook")), Session: string(q.Peek("session")), Decision: string(q.Peek("decision")),
			Tool: string(q.Peek("tool")), Tenant: string(q.Peek("tenant")), Agent: string(q.Peek("agent")),
			DryRun: string(q.Peek("dry_run")) == "1", Limit: limit,
		}
		out, err := c.opts.Decisions.Decisions(reqCtx, f, s.tok.tenants)
		a.reply(ctx, out, fasthttp.StatusInternalServerError, err)
	case rest == "timeline" && ctx.IsGet() && c.opts.Sessions != nil:
		// The id is a query argument: session ids may hold a slash.
		id := string(ctx.QueryArgs().Peek("session"))
		if id == "" {
			writeError(ctx, fasthttp.StatusBadRequest, "invalid_request_error", "no_session_id", "want ?session=ID")
			return
		}
		out, err := c.opts.Sessions.Session(reqCtx, id, s.tok.tenants)
		a.reply(ctx, out, fasthttp.StatusInternalServerError, err)
	case rest == "costs" && ctx.IsGet() && c.opts.Costs != nil:
		window, err := time.ParseDuration(string(ctx.QueryArgs().Peek("window")))
		if err != nil || window <= 0 {
			window = time.Hour
		}
		out, err := c.opts.Costs.Costs(reqCtx, min(window, 30*24*time.Hour), s.tok.tenants)
		a.reply(ctx, out, fasthttp.StatusInternalServerError, err)
	case rest == "policy" && ctx.IsGet() && c.opts.Policy != nil:
		a.reply(ctx, c.opts.Policy(), 0, nil)
	case rest == "events" && ctx.IsGet():
		c.events(ctx, s)
	default:
		writeError(ctx, fasthttp.StatusNotFound, "invalid_request_error", "not_found", "no such console endpoint")
	}
}

// login exchanges an admin token for a session cookie. The token comes in
// a JSON body, which a cross-site form cannot send; a browser's Origin,
// when it names one, must be this listener's.
func (c *console) login(ctx *fasthttp.RequestCtx) {
	if !sameOrigin(ctx) {
		writeError(ctx, fasthttp.StatusForbidden, "invalid_request_error", "cross_origin", "the login must come from the console's own page")
		return
	}
	if mt, _, _ := mime.ParseMediaType(string(ctx.Request.Header.ContentType())); mt != "application/json" {
		writeError(ctx, fasthttp.StatusUnsupportedMediaType, "invalid_request_error", "want_json", `want a JSON body {"token": "..."}`)
		return
	}
	var body struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(ctx.Request.Body(), &body); err != nil {
		writeError(ctx, fasthttp.StatusBadRequest, "invalid_request_error", "invalid_json", `want a JSON body {"token": "..."}`)
		return
	}
	addr := clientKey(ctx.RemoteIP())
	if ok, wait := c.throttle.allow(addr); !ok {
		c.admin.opts.Metrics.consoleLoginFailed(loginThrottled)
		writeError(ctx, fasthttp.StatusTooManyRequests, "invalid_request_error", "login_throttled", "too many failed logins: try again later")
		// After writeError, which resets the response.
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
		return
	}
	tok, ok := c.admin.tokenOf(strings.TrimSpace(body.Token))
	if !ok {
		c.admin.opts.Metrics.consoleLoginFailed(loginWrongToken)
		if c.throttle.failed(addr) {
			slog.Warn("console: failed logins from this client address are throttled", "client", addr)
		}
		writeError(ctx, fasthttp.StatusUnauthorized, "invalid_request_error", "invalid_admin_token", "that is not an admin token of this hookgate")
		return
	}
	s := c.newSession(tok)
	c.setCookie(ctx, s)
	c.admin.reply(ctx, map[string]any{"name": tok.name, "csrf": s.csrf, "expires_at": s.expires.UTC()}, 0, nil)
}

// sameOrigin reports whether the request's Origin header, if any, is the
// listener's own (scheme aside: TLS may end in front of hookgate).
func sameOrigin(ctx *fasthttp.RequestCtx) bool {
	origin := string(ctx.Request.Header.Peek("Origin"))
	if origin == "" {
		return true
	}
	_, host, ok := strings.Cut(origin, "://")
	return ok && host == string(ctx.Host())
}
