package hooks

import "github.com/hookgate/hookgate/hooks/toolclass"

// EventName names a boundary of the agent loop at which hooks fire.
type EventName string

// The events hookgate fires.
const (
	SessionStart     EventName = "session_start"
	UserPromptSubmit EventName = "user_prompt_submit"
	PreToolUse       EventName = "pre_tool_use"
	PostToolUse      EventName = "post_tool_use"
	PreResponse      EventName = "pre_response"
	Stop             EventName = "stop"
	SubagentStart    EventName = "subagent_start"
	SubagentStop     EventName = "subagent_stop"
)

// AllEvents lists every event in a stable order.
var AllEvents = []EventName{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PreResponse, Stop, SubagentStart, SubagentStop}

// Valid reports whether e is one of the events hookgate fires.
func (e EventName) Valid() bool {
	for _, known := range AllEvents {
		if e == known {
			return true
		}
	}
	return false
}

// Blocking reports whether hooks of this event may block (and are waited for).
func (e EventName) Blocking() bool {
	return e == UserPromptSubmit || e == PreToolUse || e == SubagentStart
}

// HasTool reports whether the event concerns one tool call, so that a hook's
// matcher (a regular expression on the tool name) applies to it.
func (e EventName) HasTool() bool {
	return e == PreToolUse || e == PostToolUse
}

// Class is how the dispatcher treats a hook: whether the caller waits for it
// and what its result may do.
type Class int

// The classes of hooks.
const (
	// Observing hooks run on a bounded worker pool; the caller never waits
	// for them and a full pool drops the event (counted).
	Observing Class = iota
	// Contributing hooks run synchronously because their output (context,
	// appended text, a rewritten tool result) is used; they cannot block.
	Contributing
	// Blocking hooks run synchronously and may block or rewrite.
	Blocking
)

// String names the class for logs and errors.
func (c Class) String() string {
	switch c {
	case Blocking:
		return "blocking"
	case Contributing:
		return "contributing"
	default:
		return "observing"
	}
}

// Class is the class of the event's hooks: blocking for user_prompt_submit,
// pre_tool_use and subagent_start; contributing for session_start and
// pre_response; observing for stop, subagent_stop and post_tool_use. A
// post_tool_use hook that may rewrite the tool result (a trusted hook with
// toolResult in allow_mutation) is contributing instead; see Spec.Class.
func (e EventName) Class() Class {
	switch {
	case e.Blocking():
		return Blocking
	case e == SessionStart || e == PreResponse:
		return Contributing
	default:
		return Observing
	}
}

// index is the event's position in AllEvents, or -1.
func (e EventName) index() int {
	for i, known := range AllEvents {
		if e == known {
			return i
		}
	}
	return -1
}

// Event is what every handler receives, serialised as camelCase JSON.
// Fields that do not apply to an event are left empty and omitted.
// It never carries an API key.
//
// The engine never modifies an Event it is given, nor its maps (a rewrite
// builds new ones). The caller must not modify them either once the Event
// has been dispatched: observers may still be reading them.
type Event struct {
	Event           EventName      `json:"event"`
	EventID         string         `json:"eventId"`
	SessionID       string         `json:"sessionId,omitempty"`
	ParentSessionID string         `json:"parentSessionId,omitempty"`
	Tenant          string         `json:"tenant,omitempty"`
	Agent           string         `json:"agent,omitempty"`
	User            string         `json:"user,omitempty"`
	Provider        string         `json:"provider,omitempty"`
	Model           string         `json:"model,omitempty"`
	ToolName        string         `json:"toolName,omitempty"`
	ToolCallID      string         `json:"toolCallId,omitempty"`
	ToolInput       map[string]any `json:"toolInput,omitempty"`
	// Tool is the normalised view of the call (class, command, paths,
	// url), for a tool of a known class (package toolclass). The engine
	// fills it in for the hooks it runs, from ToolName and ToolInput (and
	// what was typed before into a terminal session); a caller's value is
	// replaced.
	Tool       *toolclass.View `json:"tool,omitempty"`
	ToolResult *string         `json:"toolResult,omitempty"`
	Prompt     string          `json:"prompt,omitempty"`
	Response   string          `json:"response,omitempty"`
	Metadata   map[string]any  `json:"metadata,omitempty"`

	// typed is the terminal line a write_stdin call is read with (set by
	// the engine on its own copy; see Engine.viewed).
	typed *typedLine

	// Bypass is set by the wiring for requests made with a virtual key
	// marked bypass_hooks (automated evaluations). Blocking hooks are then
	// not run; each one that would have run is recorded as Bypassed. It is
	// never serialised and no client header can set it.
	Bypass bool `json:"-"`
}
