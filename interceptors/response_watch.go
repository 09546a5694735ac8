package interceptors

import "github.com/hookgate/hookgate/hooks"

// watchesResponse reports whether a hooked exchange's response must be
// read event by event, in every format alike: its tool calls held for
// judgement (pre_tool_use) or stamped as they reach the agent, for the
// post_tool_use of their results to say when (post_tool_use), or its end
// handled (pre_response, stop, subagent_stop).
func (l *agentLoop) watchesResponse(hooked bool) bool {
	return hooked && (l.has(hooks.PreToolUse) || l.has(hooks.PostToolUse) || l.has(hooks.PreResponse) || l.has(hooks.Stop) || l.has(hooks.SubagentStop))
}
