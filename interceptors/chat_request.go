package interceptors

import (
	"context"
	"fmt"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// prepareRequest fires the request-side events (subagent_start,
// session_start, user_prompt_submit, post_tool_use) once per session and
// re-applies what they contributed, so that the body sent upstream carries
// the same context on every resend of the history.
func (x *chatExchange) prepareRequest(ctx context.Context) error {
	c := x.chat
	view := x.view
	sess := c.opts.Memory.Lock(x.id.session)
	defer c.opts.Memory.Unlock(sess)
	fresh := !view.HasAssistant

	if x.id.parent != "" && fresh && !sess.SubagentStarted && c.has(hooks.SubagentStart) {
		out := x.dispatch(ctx, x.id.event(hooks.SubagentStart, "start"))
		if out.Blocked() {
			x.reply = x.blockedReply(fmt.Sprintf("[hookgate] subagent blocked by %s: %s", out.HookID, out.Reason))
			return nil
		}
		sess.SubagentStarted = true
	}

	if fresh && !sess.Started {
		if c.has(hooks.SessionStart) {
			out := x.dispatch(ctx, x.id.event(hooks.SessionStart, "start"))
			if out.Failed() {
				return hookFailed(out)
			}
			sess.Context = out.Context
		}
		sess.Started = true
	}

	if view.NewestUser >= 0 && c.has(hooks.UserPromptSubmit) {
		key := x.userKey(view.NewestUser)
		if _, fired := sess.Prompts[key]; !fired {
			ev := x.id.event(hooks.UserPromptSubmit, key)
			ev.Prompt = view.NewestUserText()
			out := x.dispatch(ctx, ev)
			if out.Blocked() {
				// Not remembered: the same prompt sent again is judged again.
				x.reply = x.blockedReply(out.Reason)
				return nil
			}
			sess.Prompts[key] = out.Context
		}
	}

	if c.has(hooks.PostToolUse) {
		for _, tr := range view.ToolResults {
			if _, fired := sess.Results[tr.ToolCallID]; fired || tr.ToolCallID == "" {
				continue
			}
			out := x.dispatch(ctx, x.toolResultEvent(tr))
			if out.Failed() {
				return hookFailed(out)
			}
			sess.Results[tr.ToolCallID] = out.ToolResult
		}
	}

	body, err := x.reapply(sess)
	if err != nil {
		return &RequestError{Status: 500, Type: "server_error", Code: "hookgate_error", Message: "hookgate could not apply the hooks' context to the request", Err: err}
	}
	x.body = body
	return nil
}

// userKey identifies the user message at position pos across resends.
func (x *chatExchange) userKey(pos int) string {
	ordinal := 0
	for i := 0; i < pos; i++ {
		if x.view.Messages[i].Role == "user" {
			ordinal++
		}
	}
	return promptKey(ordinal, x.view.Messages[pos].Content)
}

// toolResultEvent builds post_tool_use for a tool message, with the call's
// name and input found in the assistant message that made it.
func (x *chatExchange) toolResultEvent(tr providers.ToolResult) *hooks.Event {
	ev := x.id.event(hooks.PostToolUse, tr.ToolCallID)
	ev.ToolCallID = tr.ToolCallID
	content := tr.Content
	ev.ToolResult = &content
	for _, m := range x.view.Messages {
		for _, tc := range m.ToolCalls {
			if tc.ID == tr.ToolCallID {
				ev.ToolName = tc.Name
				if in, err := decodeObject([]byte(tc.Arguments)); err == nil {
					ev.ToolInput = in
				}
			}
		}
	}
	return ev
}

// reapply edits the request body with everything the session's hooks
// contributed: rewritten tool results, context added to user prompts and
// the session context. Positions come from the view, so messages are
// edited before the system message is inserted.
func (x *chatExchange) reapply(sess *Session) ([]byte, error) {
	body := x.body
	var err error
	for _, tr := range x.view.ToolResults {
		if r := sess.Results[tr.ToolCallID]; r != nil && *r != tr.Content {
			if body, err = providers.ReplaceToolResult(body, tr.ToolCallID, *r); err != nil {
				return nil, err
			}
		}
	}
	if len(sess.Prompts) > 0 {
		for i, m := range x.view.Messages {
			if m.Role != "user" {
				continue
			}
			if added := sess.Prompts[x.userKey(i)]; added != "" {
				if body, err = providers.AppendToMessage(body, i, "\n\n"+added); err != nil {
					return nil, err
				}
			}
		}
	}
	if sess.Context != "" {
		where := providers.SystemFirst
		if x.chat.opts.ContextAfterSystem {
			where = providers.SystemAfterLeading
		}
		if body, err = providers.InjectSystemMessage(body, sess.Context, where); err != nil {
			return nil, err
		}
	}
	return body, nil
}

// hookFailed is the answer when a contributing hook failed under
// on_timeout: fail: the request does not go on without its contribution.
func hookFailed(out hooks.Outcome) error {
	return &RequestError{Status: 503, Type: "server_error", Code: "hook_failed",
		Message: fmt.Sprintf("hook %s failed and its contribution is required (on_timeout: fail): %s", out.HookID, out.Reason), Err: out.Cause}
}
