package interceptors

import "github.com/hookgate/hookgate/hooks"

// watchesResponse reports whether a hooked exchange's response must be
// read event by event, in every format alike: its tool calls held for
// judgement (pre_tool_use) or stamped as they reach the agent, for the
// post_tool_use of their results to say when (post_tool_use), or its end
// handled (pre_response, stop, subagent_stop).
func (c *Chat) watchesResponse(hooked bool) bool {
	return hooked && (c.has(hooks.PreToolUse) || c.has(hooks.PostToolUse) || c.has(hooks.PreResponse) || c.has(hooks.Stop) || c.has(hooks.SubagentStop))
}
