package interceptors

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// turn is one request of an agent loop, read out of any wire format
// (providers.Turn).
type (
	turn        = providers.Turn
	turnMessage = providers.TurnMessage
	turnResult  = providers.TurnResult
	turnCall    = providers.TurnCall
)

// turnEditor applies the hooks' contributions to a request body of one
// wire format. Every edit returns a new body and keeps the rest of it.
type turnEditor interface {
	ReplaceToolResult(body []byte, callID, content string) ([]byte, error)
	AppendToMessage(body []byte, pos int, text string) ([]byte, error)
	InjectSystem(body []byte, text string, afterAgentSystem bool) ([]byte, error)
}

// prepareTurn fires the request-side events (subagent_start,
// session_start, user_prompt_submit, post_tool_use) once per session and
// re-applies what they contributed, so that the body sent upstream carries
// the same context on every resend of the history. A non-empty blocked is
// the text to answer the agent with instead of forwarding. A hook that
// hookgate could not run for want of a slot (limits.max_concurrent_hooks)
// is no verdict on the prompt: the request is refused with a 503 to retry
// (overloaded), not answered as blocked. readTurn reads the request's
// turn; it is called only when a request-side hook exists.
func (l *agentLoop) prepareTurn(ctx context.Context, x *exchangeState, readTurn func() *turn, ed turnEditor, body []byte) (out []byte, blocked string, err error) {
	if !l.requestSide() {
		// Nothing to fire or re-apply: the turn is not read and the
		// session not even looked up (with a store, that is a locked read
		// per request).
		return body, "", nil
	}
	t := readTurn()
	sess, err := l.opts.Memory.Lock(x.id.session)
	if err != nil {
		return nil, "", memoryUnavailable(err)
	}
	defer func() {
		// What the hooks did is on record but not remembered: the
		// request must not go on as if it were, or the next one would
		// fire the same events again unannounced.
		if uerr := l.opts.Memory.Unlock(sess); uerr != nil {
			out, blocked, err = nil, "", memoryUnavailable(uerr)
		}
	}()
	fresh := !t.HasAssistant

	if x.id.parent != "" && fresh && !sess.SubagentStarted && l.has(hooks.SubagentStart) {
		o := x.dispatch(ctx, x.id.event(hooks.SubagentStart, "start"))
		if err := overloaded(o); err != nil {
			return nil, "", err
		}
		if o.Blocked() {
			return nil, fmt.Sprintf("[hookgate] subagent blocked by %s: %s", o.HookID, o.Reason), nil
		}
		sess.SubagentStarted = true
	}

	if fresh && !sess.Started {
		if l.has(hooks.SessionStart) {
			o := x.dispatch(ctx, x.id.event(hooks.SessionStart, "start"))
			if err := overloaded(o); err != nil {
				return nil, "", err
			}
			if o.Failed() {
				return nil, "", hookFailed(o)
			}
			sess.Context = o.Context
		}
		sess.Started = true
	}

	if n := len(t.Users); n > 0 && l.has(hooks.UserPromptSubmit) {
		key := promptKey(n-1, t.Users[n-1].Text)
		if _, fired := sess.Prompts[key]; !fired {
			ev := x.id.event(hooks.UserPromptSubmit, key)
			ev.Prompt = t.Users[n-1].Text
			o := x.dispatch(ctx, ev)
			if err := overloaded(o); err != nil {
				return nil, "", err
			}
			if o.Blocked() {
				// Not remembered: the same prompt sent again is judged again.
				return nil, o.Reason, nil
			}
			sess.Prompts[key] = o.Context
		}
	}

	if l.has(hooks.PostToolUse) {
		keys := resultKeys(t.Results)
		for i, r := range t.Results {
			if _, fired := sess.Results[keys[i]]; fired || r.CallID == "" {
				continue
			}
			ev := toolResultEvent(x.id, t, r)
			if at, ok := l.clock.at(x.id.session, r.CallID); ok {
				ev.Metadata = withMetadata(ev.Metadata, "toolCallAt", at.UTC().Format(time.RFC3339Nano))
			}
			o := x.dispatch(ctx, ev)
			if err := overloaded(o); err != nil {
				return nil, "", err
			}
			if o.Failed() {
				return nil, "", hookFailed(o)
			}
			sess.Results[keys[i]] = o.ToolResult
		}
	}

	out, err = l.reapply(t, ed, body, sess)
	if err != nil {
		return nil, "", &RequestError{Status: 500, Type: "server_error", Code: "hookgate_error", Message: "hookgate could not apply the hooks' context to the request", Err: err}
	}
	return out, "", nil
}

// memoryUnavailable is the answer to a request whose session memory
// cannot be reached: its request-side hooks fire once per session (or per
// prompt, per tool result) and what they contribute is re-applied from
// the memory, so running them without it would fire them again on every
// instance and after the memory returns. 503, Retry-After, nothing
// forwarded and no hook run.
func memoryUnavailable(err error) error {
	return &RequestError{Status: 503, Type: "server_error", Code: "session_memory_unavailable",
		Message: "hookgate cannot reach its session memory, which its session hooks need, so it runs no hooks and forwards nothing; retry shortly", Err: err}
}

// requestSide reports a hook on a request-side event: without one a
// request fires nothing and re-applies nothing, so neither its turn nor its
// session is needed.
func (l *agentLoop) requestSide() bool {
	return l.has(hooks.SessionStart) || l.has(hooks.UserPromptSubmit) || l.has(hooks.PostToolUse) || l.has(hooks.SubagentStart)
}

// toolResultEvent builds post_tool_use for a tool result, with the call's
// name and input found in the history.
func toolResultEvent(id *identity, t *turn, r turnResult) *hooks.Event {
	ev := id.event(hooks.PostToolUse, r.CallID)
	ev.ToolCallID = r.CallID
	content := r.Content
	ev.ToolResult = &content
	if call, ok := t.Calls[r.CallID]; ok {
		ev.ToolName = call.Name
		if in, err := decodeObject([]byte(call.Arguments)); err == nil {
			ev.ToolInput = in
		}
	}
	return ev
}

// reapply edits the request body with everything the session's hooks
// contributed: rewritten tool results, context added to user prompts and
// the session context. Positions come from the turn, so messages are
// edited before the system text is inserted.
func (l *agentLoop) reapply(t *turn, ed turnEditor, body []byte, sess *Session) ([]byte, error) {
	var err error
	keys := resultKeys(t.Results)
	for i, r := range t.Results {
		if keys[i] != r.CallID {
			// A reused call id: its results cannot be told apart by id, so
			// a rewrite of one is not applied to another.
			continue
		}
		if rw := sess.Results[keys[i]]; rw != nil && *rw != r.Content && !reusedID(t.Results, r.CallID) {
			if body, err = ed.ReplaceToolResult(body, r.CallID, *rw); err != nil {
				return nil, err
			}
		}
	}
	if len(sess.Prompts) > 0 {
		for i, m := range t.Users {
			if added := sess.Prompts[promptKey(i, m.Text)]; added != "" {
				if body, err = ed.AppendToMessage(body, m.Pos, "\n\n"+added); err != nil {
					return nil, err
				}
			}
		}
	}
	if sess.Context != "" {
		if body, err = ed.InjectSystem(body, sess.Context, l.opts.ContextAfterSystem); err != nil {
			return nil, err
		}
	}
	return body, nil
}

// resultKeys name each tool result across resends: its call id, with the
// occurrence number for a call id the history uses more than once (some
// upstreams reuse ids such as call_0 across turns), so that each result
// fires post_tool_use once and only its own rewrite is remembered.
func resultKeys(rs []turnResult) []string {
	seen := map[string]int{}
	out := make([]string, len(rs))
	for i, r := range rs {
		n := seen[r.CallID]
		seen[r.CallID] = n + 1
		out[i] = r.CallID
		if n > 0 {
			out[i] = r.CallID + "#" + strconv.Itoa(n)
		}
	}
	return out
}

// reusedID reports a call id that more than one result carries.
func reusedID(rs []turnResult, id string) bool {
	n := 0
	for _, r := range rs {
		if r.CallID == id {
			n++
		}
	}
	return n > 1
}

// withMetadata returns a copy of md with one more entry (the identity's
// map is shared by every event of the request).
func withMetadata(md map[string]any, key string, value any) map[string]any {
	out := make(map[string]any, len(md)+1)
	for k, v := range md {
		out[k] = v
	}
	out[key] = value
	return out
}

// hookFailed is the answer when a contributing hook failed under
// on_timeout: fail: the request does not go on without its contribution.
func hookFailed(out hooks.Outcome) error {
	return &RequestError{Status: 503, Type: "server_error", Code: "hook_failed",
		Message: fmt.Sprintf("hook %s failed and its contribution is required (on_timeout: fail): %s", out.HookID, out.Reason), Err: out.Cause}
}

// overloaded is the answer when a request-side event's hooks were refused
// by an admission limit (a *hooks.OverloadError cause, from
// limits.max_concurrent_hooks): the request passed the door check but
// found the pool full a moment later. Nothing was judged, so the agent
// gets a 503 (with Retry-After) to retry, as at the door, instead of a
// blocked prompt or a failed hook. Nil when the outcome is anything else.
//
// The error carries no cause: the refusal is counted in
// hookgate_admission_refused_total, and a warning per refused request
// would flood the log just when the machine is busiest (the engine logs
// these at debug level).
func overloaded(o hooks.Outcome) error {
	var over *hooks.OverloadError
	if (!o.Blocked() && !o.Failed()) || !errors.As(o.Cause, &over) {
		return nil
	}
	at := fmt.Sprintf("hookgate is at %s (%d)", over.Limit, over.Max)
	if over.Limit == "limits.max_concurrent_hooks" {
		at = fmt.Sprintf("hookgate is running its limit of %d hooks at once (%s)", over.Max, over.Limit)
	}
	return &RequestError{Status: 503, Type: "server_error", Code: "hook_limit_reached",
		Message: at + ", so hook " + o.HookID + " could not run and nothing was forwarded; retry shortly"}
}
