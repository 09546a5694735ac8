package interceptors

import (
	"context"

	"github.com/hookgate/hookgate/hooks"
)

// The answer-side events every wire format fires the same way once it
// holds a final answer: pre_response, whose text is appended to it, and
// stop / subagent_stop, which only observe it.

// preResponse runs pre_response for a final answer and returns the text
// to append. Texts in send mode go to their channel; a failed hook (under
// on_timeout: fail) is an error.
func (l *agentLoop) preResponse(ctx context.Context, x *exchangeState, answer string) (string, error) {
	if !l.has(hooks.PreResponse) {
		return "", nil
	}
	ev := x.id.event(hooks.PreResponse, answer)
	ev.Response = answer
	out := x.dispatch(ctx, ev)
	if out.Failed() {
		return "", hookFailed(out)
	}
	for _, contribution := range out.Contributions {
		if contribution.Mode != hooks.Send {
			continue
		}
		if l.opts.Send == nil {
			l.log.Info("pre_response text for a channel (no channel configured)", "hook", contribution.HookID, "session", x.id.session)
			continue
		}
		if err := l.opts.Send(ctx, contribution.HookID, x.id.session, contribution.Text); err != nil {
			l.log.Warn("pre_response send failed", "hook", contribution.HookID, "err", err)
		}
	}
	return out.Context, nil
}

// answered fires the observing events of a completed final answer: stop,
// and subagent_stop for a subagent's session. Neither waits.
func (l *agentLoop) answered(ctx context.Context, id *identity, answer string) {
	if l.has(hooks.Stop) {
		ev := id.event(hooks.Stop, answer)
		ev.Response = answer
		l.opts.Engine.Dispatch(context.WithoutCancel(ctx), ev)
	}
	if id.parent != "" && l.has(hooks.SubagentStop) {
		ev := id.event(hooks.SubagentStop, answer)
		ev.Response = answer
		l.opts.Engine.Dispatch(context.WithoutCancel(ctx), ev)
	}
}
