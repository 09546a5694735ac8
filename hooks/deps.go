package hooks

import (
	"context"
	"log/slog"
	"time"
)

// Deps is what the wiring hands to handler constructors.
type Deps struct {
	// BaseDir resolves relative paths such as a script's `file:`.
	BaseDir string
	// Judges maps an upstream name to the endpoint prompt handlers call.
	// The empty name is the default (the first upstream).
	Judges map[string]JudgeEndpoint
	// Logger receives warnings (stripped mutations, dropped events). Nil
	// means slog.Default().
	Logger *slog.Logger
	// ReadOnly is the run-time read-only switch that the readonly_guard
	// built-in consults (persisted by the store, flipped through the admin
	// API). Nil means there is no switch: the hook's configured default
	// applies.
	ReadOnly ReadOnlyState
	// Approver is the human approval gate the `approval` built-in asks.
	// Nil means there is none: such an entry is a configuration error.
	Approver Approver
	// ToolCalls keeps the record of tool calls (the audit_log built-in);
	// Messenger sends messages to channels (the notify built-in). Nil
	// means there is none: such entries are configuration errors.
	ToolCalls ToolCallRecorder
	Messenger Messenger
	// ScriptMaxMemory is the memory budget of one script execution in
	// bytes (limits.script_max_memory); a hook may ask for less, never
	// more. Zero means DefaultScriptMaxMemory.
	ScriptMaxMemory int64
}

// ToolCallRecorder keeps the record of a tool call whose result came
// back. It must not block the caller for long: the wiring queues it.
type ToolCallRecorder interface {
	RecordToolCall(r ToolCallRecord)
}

// ToolCallRecord is one tool call and its result, as audit_log sees it.
type ToolCallRecord struct {
	Tenant, SessionID, ToolCallID, Tool string
	Input                               map[string]any
	ResultBytes                         int
	// CalledAt is when the call reached the agent; zero when unknown.
	CalledAt time.Time
}

// Messenger sends a plain message to a configured channel by name ("" is
// the operator's first channel).
type Messenger interface {
	SendMessage(ctx context.Context, channel, text string) error
}

// ReadOnlyState reports the run-time read-only switch of a tenant, or of
// the whole organisation when tenant is "". set is false when no switch
// has been thrown (or it was cleared), in which case value is meaningless
// and the configuration's default applies. An error makes the asking hook
// fail closed. Implementations must be safe for concurrent use and answer
// quickly: they are asked on the request path.
type ReadOnlyState interface {
	ReadOnly(ctx context.Context, tenant string) (value bool, set bool, err error)
}

// JudgeEndpoint is an OpenAI-compatible endpoint a prompt handler asks.
// The key is used only for that request and never reaches hook input.
type JudgeEndpoint struct {
	BaseURL string
	APIKey  string
}
