package interceptors

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// Options configure the chat-completions interceptor. Every field says
// what its zero value means.
type Options struct {
	// Engine runs the hooks. Nil (or an engine without hooks) relays
	// traffic untouched.
	Engine *hooks.Engine
	// Memory remembers sessions. Nil keeps them in this process for a day.
	Memory Memory
	// MaxEventBytes caps one SSE event (0: the parser's default);
	// MaxStreamBytes a whole stream (0: no cap).
	MaxEventBytes  int
	MaxStreamBytes int64
	// ToolLimits bound the tool calls of one response.
	ToolLimits providers.ToolCallLimits
	// SessionHeader, ParentHeader and AgentHeader name the request headers
	// that carry the session, the parent session of a subagent, and the
	// agent id. Empty disables each.
	SessionHeader, ParentHeader, AgentHeader string
	// MetadataHeaders are request headers exposed to hooks in metadata.
	MetadataHeaders []string
	// BlockTemplate renders the note an agent gets for a blocked call, with
	// {{tool}}, {{hook}} and {{reason}}. Empty uses a built-in template.
	BlockTemplate string
	// ContextAfterSystem puts session context after the agent's own
	// leading system messages instead of before every message.
	ContextAfterSystem bool
	// Heartbeat is the interval of SSE keep-alive comments while a tool
	// call is held. Zero means 5s.
	Heartbeat time.Duration
	// PreResponseOnToolCalls fires pre_response on responses that still
	// carry tool calls too, not only on final answers.
	PreResponseOnToolCalls bool
	// OnBlock is what happens when every call of a response is blocked:
	// "respond" (or empty) shows the notes; "retry" tells the model and asks
	// again, up to MaxRetries times. RetryHooks reports that some hook sets
	// on_block: retry itself.
	OnBlock    string
	MaxRetries int
	RetryHooks bool
	// Send hands a pre_response text in send mode to a channel. Nil logs
	// it.
	Send func(ctx context.Context, hookID, sessionID, text string) error
	// Metrics counts judged tool calls and held ones. Nil counts nothing.
	Metrics Metrics
	// Admit is asked before a request's hooks run (the audit log must
	// have room for their records); an error refuses the request with a
	// 503. Nil admits every request.
	Admit func(ctx context.Context) error
	// Logger receives warnings. Nil means slog.Default().
	Logger *slog.Logger
}

// Metrics is what the interceptor reports for Prometheus. Implementations
// must be quick and must bound their label values (tool names come from
// the model).
type Metrics interface {
	// ToolCall counts a judged tool call and what was decided.
	ToolCall(tool string, decision string)
	// Held moves the number of tool calls being held by delta.
	Held(delta int)
}

// Chat reads OpenAI chat-completions traffic (/v1/chat/completions).
type Chat struct {
	opts  Options
	log   *slog.Logger
	clock *callClock
}

var _ Interceptor = (*Chat)(nil)

const defaultBlockTemplate = "[hookgate] tool call {{tool}} blocked by {{hook}}: {{reason}}"

// NewChat returns the chat-completions interceptor.
func NewChat(opts Options) *Chat {
	if opts.Memory == nil {
		opts.Memory = NewLocalMemory(24 * time.Hour)
	}
	if opts.BlockTemplate == "" {
		opts.BlockTemplate = defaultBlockTemplate
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 5 * time.Second
	}
	c := &Chat{opts: opts, log: opts.Logger, clock: newCallClock(1 << 16)}
	if c.log == nil {
		c.log = slog.Default()
	}
	return c
}

// active reports whether any hook is configured.
func (c *Chat) active() bool {
	e := c.opts.Engine
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
func (c *Chat) admit(ctx context.Context) error {
	if c.opts.Admit == nil {
		return nil
	}
	if err := c.opts.Admit(ctx); err != nil {
		return &RequestError{Status: 503, Type: "server_error", Code: "audit_unavailable",
			Message: "hookgate cannot record hook decisions right now, so it runs no hooks and forwards nothing; retry shortly", Err: err}
	}
	return nil
}

func (c *Chat) has(ev hooks.EventName) bool {
	return c.opts.Engine != nil && c.opts.Engine.HasHooks(ev)
}

// Begin reads the request and fires the request-side events.
func (c *Chat) Begin(ctx context.Context, req *Request) (Exchange, error) {
	if !c.active() {
		return &chatExchange{chat: c, body: req.Body}, nil
	}
	if err := c.admit(ctx); err != nil {
		return nil, err
	}
	view, err := providers.ParseChatRequest(req.Body)
	if err != nil {
		return nil, &RequestError{Status: 400, Type: "invalid_request_error", Code: "invalid_json",
			Message: "hookgate could not parse the request body as a chat completion request, and its hooks must read it", Err: err}
	}
	if view.LegacyFunctions && c.has(hooks.PreToolUse) {
		// Calls to legacy functions stream as delta.function_call, which
		// hookgate does not hold: refusing is the only way not to let them
		// past pre_tool_use.
		return nil, &RequestError{Status: 400, Type: "invalid_request_error", Code: "legacy_functions_unsupported",
			Message: "the deprecated \"functions\" parameter is not supported behind hookgate's tool policy; use \"tools\""}
	}
	x := &chatExchange{chat: c, body: req.Body, view: view, hooked: true}
	x.engine = c.opts.Engine
	x.metrics = c.opts.Metrics
	x.id = c.identify(req, view.User, view.Model, view.SystemText, firstUser(view))
	body, blocked, err := c.prepareTurn(ctx, &x.exchangeState, func() *turn { return chatTurn(view) }, chatEditor{}, req.Body)
	switch {
	case err != nil:
		return nil, err
	case blocked != "":
		x.reply = x.blockedReply(blocked)
	default:
		x.body = body
	}
	return x, nil
}

// identify works out who the request comes from: the session header, or
// a fingerprint of tenant, system text and first user message.
func (c *Chat) identify(req *Request, user, model, system, first string) *identity {
	header := func(name string) string {
		if name == "" || req.Header == nil {
			return ""
		}
		return strings.TrimSpace(req.Header(name))
	}
	id := &identity{
		session:  header(c.opts.SessionHeader),
		parent:   header(c.opts.ParentHeader),
		agent:    req.Agent,
		bypass:   req.Bypass,
		user:     user,
		provider: req.Provider,
		model:    model,
		tenant:   req.Tenant,
	}
	if id.agent == "" {
		id.agent = header(c.opts.AgentHeader)
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
	for _, h := range c.opts.MetadataHeaders {
		if v := header(h); v != "" {
			md[h] = v
		}
	}
	id.metadata = md
	return id
}

// chatExchange is one chat-completions request and its response.
type chatExchange struct {
	chat   *Chat
	body   []byte
	view   *providers.ChatRequest
	hooked bool
	reply  *Reply
	resend func(ctx context.Context, body []byte) (io.ReadCloser, error)
	exchangeState
}

var (
	_ Interceptor = (*Chat)(nil)
	_ Exchange    = (*chatExchange)(nil)
	_ Resender    = (*chatExchange)(nil)
	_ Timer       = (*chatExchange)(nil)
)

func (x *chatExchange) Body() []byte  { return x.body }
func (x *chatExchange) Reply() *Reply { return x.reply }

func (x *chatExchange) watchesResponse() bool { return x.chat.watchesResponse(x.hooked) }

func (x *chatExchange) RelayStream(ctx context.Context, upstream io.Reader, client Sink) error {
	if !x.watchesResponse() {
		r := newStreamRelay(x.chat.opts.MaxEventBytes, x.chat.opts.MaxStreamBytes, (&chatEnds{}).ends)
		return r.run(ctx, upstream, client, nil)
	}
	return x.relayWithRetries(ctx, upstream, client)
}

func (x *chatExchange) FinishPlain(ctx context.Context, body []byte) ([]byte, error) {
	x.noteUsageAt(ctx, body, "usage")
	if !x.watchesResponse() {
		return body, nil
	}
	return x.finishPlain(ctx, body)
}
