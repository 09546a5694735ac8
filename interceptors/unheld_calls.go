package interceptors

import (
	"context"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// Unheld tool calls: when every pre_tool_use hook that could see this
// request's calls is a dry run, nothing hookgate decides can change a call,
// so holding it would only delay it. The stream then relays the calls'
// events as they come, byte for byte as without hooks, while it assembles
// each call on the side; once a call is complete it is dispatched as a held
// one would be (the dry-run hooks record their would-decisions), and its
// verdict is dropped.
//
// The decision is made once per exchange, before any call is seen, and
// fails closed: any enforcing pre_tool_use hook in scope for the request's
// tenant and agent, whatever its matcher or condition (an approval hook
// too), makes the stream hold as usual (hooks.Engine.EnforcesAny).
// hookgate's own refusals of a held call (a tool name that is not plain
// ASCII, arguments that are not a JSON object) are enforcement too, and are
// not applied to an unheld call: it reaches the agent as it would without
// hooks.

// callsUnheld reports whether the exchange's streamed tool calls go out
// unheld: pre_tool_use hooks are configured, none of them enforcing for
// this request.
func (x *exchangeState) callsUnheld() bool {
	if x.engine == nil || x.id == nil || !x.engine.HasHooks(hooks.PreToolUse) {
		return false
	}
	probe := hooks.Event{Event: hooks.PreToolUse, Tenant: x.id.tenant, Agent: x.id.agent}
	return !x.engine.EnforcesAny(&probe)
}

// observeUnheld dispatches a complete unheld call for its dry-run hooks,
// on its own goroutine so that the stream never waits for it, and counts it
// as allowed: what reached the agent.
func (x *exchangeState) observeUnheld(ctx context.Context, ev *hooks.Event, args []byte, clock *callClock) {
	x.countToolCall(ev.ToolName, hooks.Allow)
	clock.issued(x.id.session, ev.ToolCallID)
	observeCall(ctx, x.engine, ev, args)
}

// observeCall dispatches a complete unheld call on its own goroutine and
// drops the verdict; ctx's cancellation (the stream's end) does not reach
// it.
func observeCall(ctx context.Context, engine *hooks.Engine, ev *hooks.Event, args []byte) {
	go judgeToolCall(context.WithoutCancel(ctx), engine, ev, args)
}

// relayToolFrame is holdToolFrame for unheld calls: the event goes out
// (or, carrying a finish, takes its place in the queue) as it came, then
// the calls it completed are dispatched.
func (s *chatStream) relayToolFrame(ctx context.Context, f *providers.SSEFrame, finish []int) error {
	type done struct {
		cs  *choiceState
		ord []int
	}
	var completed []done
	for i := range s.chunk.Choices {
		ch := &s.chunk.Choices[i]
		if len(ch.ToolCalls) == 0 {
			continue
		}
		cs := s.choice(ch.Index)
		if cs.unwatched {
			continue
		}
		ords, err := cs.asm.Add(f.Seq, ch.ToolCalls)
		if err != nil {
			// A call hookgate cannot assemble goes on as it came (no hook
			// enforces here); its choice is watched no further.
			cs.unwatched = true
			s.x.chat.log.Warn("a streamed tool call could not be assembled for its dry-run hooks; they do not see it", "err", err)
			continue
		}
		for ord := len(cs.calls); ord < cs.asm.Len(); ord++ {
			cs.calls = append(cs.calls, &heldCall{choice: cs, ordinal: ord})
		}
		if len(ords) > 0 {
			completed = append(completed, done{cs, ords})
		}
	}
	var data []byte
	if len(finish) > 0 {
		data = clone(f.Data)
	}
	if err := s.passOrQueue(f.Raw, data, finish); err != nil {
		return err
	}
	for _, d := range completed {
		for _, ord := range d.ord {
			s.judge(ctx, d.cs.calls[ord])
		}
	}
	if len(finish) > 0 {
		s.finishChoices(ctx, finish)
	}
	return nil
}
