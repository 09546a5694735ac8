package interceptors

import (
	"context"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// Unheld Responses calls (unheld_calls.go): when every pre_tool_use hook in
// scope is a dry run, a Responses stream holds no call item. Its events
// (output_item.added, the input's deltas and .done, output_item.done, and
// a provider's own events of the item) go to the client as they come, with
// their bytes and sequence numbers, while the stream assembles each call on
// the side; once the call's output_item.done has gone out (or the terminal
// event ends a call still open, or lists one never streamed) the call is
// dispatched with observeUnheld, on the input it would have been judged on
// (a custom tool call's text as {"input": text}). The terminal event goes
// out as it came too: nothing in it is edited.
//
// Assembly never refuses: what hookgate cannot follow (a call announced at
// the output_index of one still open, input over
// limits.max_tool_arguments_bytes, calls over limits.max_tool_calls, input
// for an item it was not following) goes on as it came and is not seen by
// the dry runs, with a warning. The checks of events as events (an
// unreadable event, one after the end, an item a client runs unjudged)
// still apply.

// relayCallItem is onCallItem for unheld calls.
func (s *responsesStream) relayCallItem(ctx context.Context, fr *rsFrame, kind providers.ResponsesCallKind) error {
	ev := &s.ev
	c := s.openCall()
	if ev.Kind == providers.RespItemAdded {
		if c != nil {
			s.unwatch(c, "the upstream announced a second item at the output_index of a call it had not finished")
		}
		c = &rsCall{kind: kind, outputIndex: s.items - 1}
		if ev.HasOutputIndex {
			c.outputIndex = ev.OutputIndex
		}
		c.describe(&ev.Item)
		if in := ev.Item.CallInput(); in.Set() {
			c.built = callText(in)
			c.addedLen = len(c.built)
		}
		s.addUnheld(c)
		s.open = append(s.open, c)
		return s.pass(fr)
	}
	if c == nil {
		// Done without added: the item arrives whole.
		c = &rsCall{kind: kind, outputIndex: s.items - 1}
		if ev.HasOutputIndex {
			c.outputIndex = ev.OutputIndex
		}
		s.addUnheld(c)
	}
	s.closeOpen(c)
	c.describe(&ev.Item)
	if in := ev.Item.CallInput(); in.Present() && !c.unwatched {
		c.item, c.hasItem = callText(in), true
	}
	if err := s.pass(fr); err != nil {
		return err
	}
	s.judge(ctx, c)
	return nil
}

// relayCallInput is onCallInput for unheld calls.
func (s *responsesStream) relayCallInput(fr *rsFrame) error {
	ev := &s.ev
	c := s.openCall()
	switch {
	case c == nil:
		s.x.r.loop.log.Warn("a streamed tool call's input came for no call hookgate was following; its dry-run hooks do not see it")
	case c.unwatched:
	case ev.Kind == providers.RespArgsDelta:
		c.built = ev.Delta.AppendText(c.built)
		c.hasDelta = true
		if len(c.built) > s.maxArguments() {
			s.unwatch(c, "the call's input is over limits.max_tool_arguments_bytes")
		}
	default:
		c.done, c.hasDone = callText(ev.Final()), true
	}
	return s.pass(fr)
}

// addUnheld numbers a call the stream follows: it goes out as it comes,
// so it is never held (nor counted as held).
func (s *responsesStream) addUnheld(c *rsCall) {
	c.ordinal = len(s.calls)
	c.emitted, c.resolved = true, true
	s.calls = append(s.calls, c)
	if len(s.calls) > s.maxCalls() {
		s.unwatch(c, "the response makes more tool calls than limits.max_tool_calls")
	}
}

// unwatch stops assembling a call: it goes on as it comes, unseen by the
// dry runs.
func (s *responsesStream) unwatch(c *rsCall, why string) {
	if c.unwatched {
		return
	}
	c.unwatched = true
	c.built, c.done, c.item = nil, nil, nil
	s.x.r.loop.log.Warn("a streamed tool call could not be assembled for its dry-run hooks; they do not see it", "reason", why)
}

// observe dispatches a complete unheld call to its dry-run hooks and
// counts it as what reached the agent.
func (s *responsesStream) observe(ctx context.Context, c *rsCall) {
	s.survived++
	if c.unwatched {
		s.x.countToolCall(c.name, hooks.Allow)
		return
	}
	if !c.settle() {
		// A held call would be blocked; this one went out as it came. The
		// dry runs see the input its last source gave.
		s.x.r.loop.log.Warn("the upstream sent conflicting inputs for a streamed tool call; its dry-run hooks see the last")
	}
	ev := s.x.callEvent(s.responseID, c.callID, c.name, c.ordinal)
	args := c.input
	if c.kind == providers.CustomToolCall {
		args = customToolInput(string(c.input))
	}
	s.x.observeUnheld(ctx, ev, args, s.x.r.loop.clock)
}
