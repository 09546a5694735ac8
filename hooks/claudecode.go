package hooks

// This file and claudecode_output.go let a Claude Code hook script run as a
// hookgate command hook unchanged (`format: claude_code`): its stdin uses
// Claude Code's names, and its stdout and exit code are read with Claude
// Code's meaning, except that hookgate fails closed where Claude Code fails
// open.

// claudeCodeEvents maps hookgate's events to Claude Code's hook_event_name.
// pre_response has no Claude Code counterpart.
var claudeCodeEvents = map[EventName]string{
	SessionStart:     "SessionStart",
	UserPromptSubmit: "UserPromptSubmit",
	PreToolUse:       "PreToolUse",
	PostToolUse:      "PostToolUse",
	Stop:             "Stop",
	SubagentStart:    "SubagentStart",
	SubagentStop:     "SubagentStop",
}

// claudeCodeEventName returns Claude Code's name for e.
func claudeCodeEventName(e EventName) (string, bool) {
	name, ok := claudeCodeEvents[e]
	return name, ok
}

// claudeCodeInput is the JSON a Claude Code hook reads on stdin. Fields a
// proxy cannot know (cwd, transcript_path, permission_mode) are absent, not
// invented.
type claudeCodeInput struct {
	SessionID     string `json:"session_id"`
	HookEventName string `json:"hook_event_name"`
	// ToolInput is an interface so that a tool event always carries an
	// object (`{}` when the call had no arguments) and other events none.
	ToolInput    any     `json:"tool_input,omitempty"`
	ToolName     string  `json:"tool_name,omitempty"`
	ToolUseID    string  `json:"tool_use_id,omitempty"`
	ToolResponse *string `json:"tool_response,omitempty"`
	Prompt       string  `json:"prompt,omitempty"`
	// Source is "startup" on SessionStart: hookgate fires it the first time
	// it sees a session.
	Source string `json:"source,omitempty"`
	Model  string `json:"model,omitempty"`
	// StopHookActive is false on Stop and SubagentStop: a proxy never makes
	// the agent go on, so no stop hook is ever active.
	StopHookActive       *bool  `json:"stop_hook_active,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
	// AgentID names the subagent on SubagentStart and SubagentStop, whose
	// session_id is then the parent's, as in Claude Code.
	AgentID string `json:"agent_id,omitempty"`
}

// encodeClaudeCodeInput writes ev as a Claude Code hook input.
func encodeClaudeCodeInput(ev *Event) ([]byte, error) {
	in := claudeCodeInput{
		SessionID:     ev.SessionID,
		HookEventName: claudeCodeEvents[ev.Event],
	}
	switch ev.Event {
	case PreToolUse, PostToolUse:
		in.ToolName = ev.ToolName
		in.ToolUseID = ev.ToolCallID
		if ev.ToolInput != nil {
			in.ToolInput = ev.ToolInput
		} else {
			in.ToolInput = map[string]any{}
		}
		if ev.Event == PostToolUse {
			in.ToolResponse = ev.ToolResult
			if in.ToolResponse == nil {
				empty := ""
				in.ToolResponse = &empty
			}
		}
	case UserPromptSubmit:
		in.Prompt = ev.Prompt
	case SessionStart:
		in.Source = "startup"
		in.Model = ev.Model
	case Stop, SubagentStop:
		inactive := false
		in.StopHookActive = &inactive
		in.LastAssistantMessage = ev.Response
	}
	if ev.Event == SubagentStart || ev.Event == SubagentStop {
		in.AgentID = ev.SessionID
		if ev.ParentSessionID != "" {
			in.SessionID = ev.ParentSessionID
		}
	}
	if in.HookEventName == "" {
		// Guarded at load; an event of another kind reaching this hook is a
		// wiring bug, answered as an error rather than a guess.
		return nil, errUnmappedEvent(ev.Event)
	}
	return marshalNoEscape(in)
}

// errUnmappedEvent reports an event with no Claude Code name.
type errUnmappedEvent EventName

func (e errUnmappedEvent) Error() string {
	return "event " + string(e) + " has no Claude Code equivalent"
}
