package interceptors

import (
	"context"
	"io"
	"log/slog"
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

// Chat reads OpenAI chat-completions traffic (/v1/chat/completions): the
// agent loop (agentLoop) over the chat wire format.
type Chat struct {
	*agentLoop
}

// NewChat returns the chat-completions interceptor.
func NewChat(opts Options) *Chat {
	return &Chat{newAgentLoop(opts)}
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
