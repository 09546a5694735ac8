package interceptors

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/hookgate/hookgate/hooks"
)

// agentLoop is the agent-loop machinery every wire format shares: the
// options, the logger and the call clock, who a request comes from
// (identify), whether its hooks may run (admit), the request-side events
// (prepareTurn, turn.go) and the answer-side ones (preResponse, answered,
// answer.go). Each format's Begin is the loop's begin over an adapter of
// its own (agent_loop_begin.go); its exchanges reach the loop for the
// rest.
type agentLoop struct {
	opts  Options
	log   *slog.Logger
	clock *callClock
}

const defaultBlockTemplate = "[hookgate] tool call {{tool}} blocked by {{hook}}: {{reason}}"

// newAgentLoop fills in the defaults of opts: a process-local memory
// keeping sessions for a day, the built-in block template, a 5s heartbeat
// and slog.Default().
func newAgentLoop(opts Options) *agentLoop {
	if opts.Memory == nil {
		opts.Memory = NewLocalMemory(24 * time.Hour)
	}
	if opts.BlockTemplate == "" {
		opts.BlockTemplate = defaultBlockTemplate
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 5 * time.Second
	}
	l := &agentLoop{opts: opts, log: opts.Logger, clock: newCallClock(1 << 16)}
	if l.log == nil {
		l.log = slog.Default()
	}
	return l
}

// active reports whether any hook is configured.
func (l *agentLoop) active() bool {
	e := l.opts.Engine
	if e == nil {
		return false
	}
	for _, ev := range hooks.AllEvents {
		if e.HasHooks(ev) {
			return true
		}
	}
	return false
}

// admit asks the audit whether hooks may run now (Options.Admit): a
// request whose decisions could not be recorded is refused with a 503 to
// retry, in every format alike.
func (l *agentLoop) admit(ctx context.Context) error {
	if l.opts.Admit == nil {
		return nil
	}
	if err := l.opts.Admit(ctx); err != nil {
		return &RequestError{Status: 503, Type: "server_error", Code: "audit_unavailable",
			Message: "hookgate cannot record hook decisions right now, so it runs no hooks and forwards nothing; retry shortly", Err: err}
	}
	return nil
}

// has reports a hook on ev.
func (l *agentLoop) has(ev hooks.EventName) bool {
	return l.opts.Engine != nil && l.opts.Engine.HasHooks(ev)
}

// identify works out who the request comes from: the session header, or
// a fingerprint of tenant, system text and first user message.
func (l *agentLoop) identify(req *Request, user, model, system, first string) *identity {
	header := func(name string) string {
		if name == "" || req.Header == nil {
			return ""
		}
		return strings.TrimSpace(req.Header(name))
	}
	id := &identity{
		session:  header(l.opts.SessionHeader),
		parent:   header(l.opts.ParentHeader),
		agent:    req.Agent,
		bypass:   req.Bypass,
		user:     user,
		provider: req.Provider,
		model:    model,
		tenant:   req.Tenant,
	}
	if id.agent == "" {
		id.agent = header(l.opts.AgentHeader)
	}
	switch {
	case id.session == "":
		id.session = fingerprintSession(id.tenant, system, first)
	case id.tenant != "":
		// Session ids come from clients: one tenant's must never name
		// another's session (its context, its approvals).
		id.session = id.tenant + ":" + id.session
	}
	if id.parent != "" && id.tenant != "" {
		id.parent = id.tenant + ":" + id.parent
	}
	md := map[string]any{"route": req.Route}
	for _, h := range l.opts.MetadataHeaders {
		if v := header(h); v != "" {
			md[h] = v
		}
	}
	id.metadata = md
	return id
}

// sessionHeader is the request's session header, trimmed ("" when none
// is configured or the request sent none).
func (l *agentLoop) sessionHeader(req *Request) string {
	if l.opts.SessionHeader == "" || req.Header == nil {
		return ""
	}
	return strings.TrimSpace(req.Header(l.opts.SessionHeader))
}
