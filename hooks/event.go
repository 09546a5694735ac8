package hooks

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

// Event is what every handler receives, serialised as camelCase JSON.
// Fields that do not apply to an event are left empty and omitted.
// It never carries an API key.
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
	ToolResult      *string        `json:"toolResult,omitempty"`
	Prompt          string         `json:"prompt,omitempty"`
	Response        string         `json:"response,omitempty"`
	Metadata        map[string]any `json:"metadata,omitempty"`
}
