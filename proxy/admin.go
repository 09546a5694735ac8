package proxy

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// Admin is the operator-facing listener. Only /healthz (the process is
// alive), /readyz (send it traffic) and /metrics need no token, so that a
// load balancer, a kubelet and Prometheus reach them; it binds loopback by
// default. Every /admin/ endpoint needs a bearer token, compared in
// constant time, whose name is recorded as who acted.
// /callbacks/{channel} takes no token but is authenticated by the
// channel's signature. /console/ is the operator's console (console.go),
// behind a login with an admin token. Anything else is a 404.
type Admin struct {
	srv      *fasthttp.Server
	metrics  fasthttp.RequestHandler
	opts     AdminOptions
	tokens   []adminToken
	timeouts *clientTimeouts
	console  *console
}

// AdminToken is a bearer token and the name it acts under.
type AdminToken struct {
	Name, Token string
	// Tenants are the tenants whose approvals and decisions the token
	// sees and answers; nil: all of them.
	Tenants []string
}

type adminToken struct {
	name    string
	digest  [32]byte
	tenants []string
}

// AdminOptions are the admin listener's parts. Nil parts have no
// endpoints.
type AdminOptions struct {
	Gatherer  prometheus.Gatherer
	Tokens    []AdminToken
	Approvals ApprovalDesk
	Tenants   TenantDesk
	// Readiness answers /readyz; nil answers it as /healthz does.
	Readiness Readiness
	// ConfigVersion answers GET /admin/config/version; nil has no such
	// endpoint.
	ConfigVersion ConfigVersion
	// Timeouts are the client timeouts of the admin connections
	// (timeouts.client_*: it takes Slack and Feishu callbacks from the
	// internet). Zero durations are off.
	Timeouts Timeouts
	// Metrics counts the admin connections and their timeouts. Nil
	// counts nothing.
	Metrics *Metrics
	// Console is the operator's console; its zero value has no console.
	Console ConsoleOptions
}

// ApprovalDesk answers approval questions for the admin API, the console
// and channel callbacks. Values it returns are encoded as JSON. tenants
// is the asking token's scope: nil sees every question, otherwise only
// the questions of these tenants (others are not found).
type ApprovalDesk interface {
	List(ctx context.Context, status string, tenants []string) (any, error)
	// Decide records an answer with the approver's optional comment; the
	// error's HTTP status comes from StatusOf on the desk's side (see
	// DecisionStatus).
	Decide(ctx context.Context, id string, approve bool, by, comment string, tenants []string) (any, int, error)
	Callback(ctx context.Context, channel string, header http.Header, body []byte) (int, []byte)
}

// TenantDesk switches tenants' read-only mode at run time.
type TenantDesk interface {
	SetReadOnly(ctx context.Context, tenant string, readOnly *bool, by string) (any, int, error)
}

// NewAdmin builds the admin listener.
func NewAdmin(opts AdminOptions) *Admin {
	a := &Admin{opts: opts, metrics: fasthttpadaptor.NewFastHTTPHandler(promhttp.HandlerFor(opts.Gatherer, promhttp.HandlerOpts{}))}
	for _, t := range opts.Tokens {
		if t.Token != "" {
			a.tokens = append(a.tokens, adminToken{name: t.Name, digest: sha256.Sum256([]byte(t.Token)), tenants: t.Tenants})
		}
	}
	if opts.Console.Enabled {
		a.console = newConsole(a, opts.Console)
	}
	a.timeouts = newClientTimeouts(opts.Timeouts, opts.Metrics, "admin")
	a.srv = &fasthttp.Server{
		Name: "hookgate-admin", NoDefaultServerHeader: true,
		// Bodies are read as they arrive (bodyFirst), as on the agent
		// listener, under the timeouts of the connections.
		Handler:                      bodyFirst(a.handle, adminMaxBody),
		MaxRequestBodySize:           adminMaxBody,
		StreamRequestBody:            true,
		DisablePreParseMultipartForm: true,
		HeaderReceived:               a.timeouts.headReceived,
		ErrorHandler: func(ctx *fasthttp.RequestCtx, err error) {
			writeServerError(ctx, err, adminMaxBody, adminMaxHead)
		},
		ReadBufferSize: adminMaxHead,
	}
	return a
}

// adminMaxBody bounds an admin request's body, adminMaxHead its head.
const (
	adminMaxBody = 1 << 20
	adminMaxHead = 8 << 10
)

// Serve accepts admin connections on ln until Shutdown, each under the
// client timeouts (no connection caps: those are the agent listener's).
func (a *Admin) Serve(ln net.Listener) error {
	return a.srv.Serve(newClientListener(ln, "admin", a.timeouts, nil, 0, 0, slog.Default(), a.opts.Metrics))
}

// Shutdown stops the admin listener. The console's event streams are
// ended first: the server waits for every open response.
func (a *Admin) Shutdown() error {
	if a.console != nil {
		a.console.stop()
	}
	return a.srv.Shutdown()
}

func (a *Admin) handle(ctx *fasthttp.RequestCtx) {
	// Desks get a context of their own: fasthttp recycles ctx once this
	// handler returns, and contexts derived from it could outlive it.
	reqCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	path := string(ctx.Path())
	switch {
	case path == "/metrics":
		a.metrics(ctx)
	case path == "/healthz":
		ctx.SetContentType("application/json")
		ctx.SetBodyString(`{"status":"ok"}`)
	case path == "/readyz":
		a.serveReady(ctx)
	case strings.HasPrefix(path, "/callbacks/") && ctx.IsPost() && a.opts.Approvals != nil:
		header := http.Header{}
		for k, v := range ctx.Request.Header.All() {
			header.Add(string(k), string(v))
		}
		status, body := a.opts.Approvals.Callback(reqCtx, strings.TrimPrefix(path, "/callbacks/"), header, ctx.Request.Body())
		ctx.SetStatusCode(status)
		ctx.SetContentType("application/json")
		ctx.SetBody(body)
	case a.console != nil && (path == "/console" || strings.HasPrefix(path, "/console/")):
		a.console.handle(reqCtx, ctx, path)
	case strings.HasPrefix(path, "/admin/"):
		who, ok := a.authenticate(ctx)
		if !ok {
			ctx.Response.Header.Set("WWW-Authenticate", `Bearer realm="hookgate-admin"`)
			writeError(ctx, fasthttp.StatusUnauthorized, "invalid_request_error", "invalid_admin_token", "this endpoint needs a valid admin bearer token")
			return
		}
		a.handleAdmin(reqCtx, ctx, path, who)
	default:
		writeError(ctx, fasthttp.StatusNotFound, "invalid_request_error", "not_found", "no such admin endpoint")
	}
}

// authenticate finds the token a request carries as its bearer token.
func (a *Admin) authenticate(ctx *fasthttp.RequestCtx) (adminToken, bool) {
	auth := string(ctx.Request.Header.Peek("Authorization"))
	if len(auth) < 8 || !strings.EqualFold(auth[:7], "Bearer ") {
		return adminToken{}, false
	}
	return a.tokenOf(strings.TrimSpace(auth[7:]))
}

// tokenOf finds the configured token given is. Every configured token is
// compared, in constant time, whatever matched.
func (a *Admin) tokenOf(given string) (adminToken, bool) {
	if len(a.tokens) == 0 || given == "" {
		return adminToken{}, false
	}
	digest := sha256.Sum256([]byte(given))
	var who adminToken
	found := 0
	for _, t := range a.tokens {
		if subtle.ConstantTimeCompare(digest[:], t.digest[:]) == 1 {
			who, found = t, 1
		}
	}
	return who, found == 1
}

func (a *Admin) handleAdmin(reqCtx context.Context, ctx *fasthttp.RequestCtx, path string, who adminToken) {
	parts := strings.Split(strings.Trim(path, "/"), "/") // admin, approvals, {id}, approve
	switch {
	case len(parts) == 3 && parts[1] == "config" && parts[2] == "version" && ctx.IsGet() && a.opts.ConfigVersion != nil:
		a.reply(ctx, a.opts.ConfigVersion(), 0, nil)
	case len(parts) == 2 && parts[1] == "approvals" && ctx.IsGet() && a.opts.Approvals != nil:
		list, err := a.opts.Approvals.List(reqCtx, string(ctx.QueryArgs().Peek("status")), who.tenants)
		a.reply(ctx, list, fasthttp.StatusInternalServerError, err)
	case len(parts) == 4 && parts[1] == "approvals" && ctx.IsPost() && (parts[3] == "approve" || parts[3] == "reject") && a.opts.Approvals != nil:
		comment, ok := answerComment(ctx)
		if !ok {
			return
		}
		out, status, err := a.opts.Approvals.Decide(reqCtx, parts[2], parts[3] == "approve", who.name, comment, who.tenants)
		a.reply(ctx, out, status, err)
	case len(parts) == 4 && parts[1] == "tenants" && parts[3] == "readonly" && ctx.IsPost() && a.opts.Tenants != nil:
		var body struct {
			ReadOnly *bool `json:"read_only"`
		}
		if len(ctx.Request.Body()) > 0 {
			if err := json.Unmarshal(ctx.Request.Body(), &body); err != nil {
				writeError(ctx, fasthttp.StatusBadRequest, "invalid_request_error", "invalid_json", `want {"read_only": true|false|null}`)
				return
			}
		}
		if who.tenants != nil && !slices.Contains(who.tenants, parts[2]) {
			writeError(ctx, fasthttp.StatusForbidden, "invalid_request_error", "tenant_not_allowed", "this admin token may not switch this tenant")
			return
		}
		out, status, err := a.opts.Tenants.SetReadOnly(reqCtx, parts[2], body.ReadOnly, who.name)
		a.reply(ctx, out, status, err)
	default:
		writeError(ctx, fasthttp.StatusNotFound, "invalid_request_error", "not_found", "no such admin endpoint")
	}
}

// reply writes v as JSON, or err in the OpenAI error shape with status.
func (a *Admin) reply(ctx *fasthttp.RequestCtx, v any, status int, err error) {
	if err != nil {
		if status == 0 || status < 400 {
			status = fasthttp.StatusInternalServerError
		}
		writeError(ctx, status, "invalid_request_error", "admin_error", err.Error())
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		writeError(ctx, fasthttp.StatusInternalServerError, "server_error", "admin_error", "could not encode the answer")
		return
	}
	ctx.SetContentType("application/json")
	ctx.SetBody(b)
}
