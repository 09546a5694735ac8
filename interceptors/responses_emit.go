package interceptors

import (
	"context"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// What a Responses stream writes: held events once their turn comes, as
// they came or re-encoded, with their sequence numbers kept contiguous.

// flush emits, in order, everything whose turn has come: events, calls
// once judged, and the terminal event once no call is held.
func (s *responsesStream) flush(ctx context.Context) error {
	for len(s.queue) > 0 {
		e := s.queue[0]
		var err error
		switch {
		case e.call != nil:
			if !e.call.resolved {
				return nil
			}
			err = s.emitCall(e.call)
		case e.final != nil:
			err = s.emitTerminal(ctx, e.frame, e.kind, e.final)
		default:
			err = s.emitFrame(e.frame, nil)
		}
		if err != nil {
			return err
		}
		s.queue = s.queue[1:]
	}
	return nil
}

// emitFrame writes an upstream event: its bytes as they came, unless its
// payload was edited (payload) or its sequence number must change.
func (s *responsesStream) emitFrame(f *rsFrame, payload []byte) error {
	if f.hasSeq {
		if n, changed := s.seq.place(f.seq); changed {
			if payload == nil {
				payload = f.data
			}
			var err error
			if payload, err = providers.SetSequenceNumber(payload, n); err != nil {
				return s.fail("hookgate_error", "hookgate could not renumber an event", err)
			}
		}
	}
	if payload == nil {
		return s.write(f.raw)
	}
	return s.write(providers.AppendSSEEvent(nil, f.event, payload))
}

// emitEvents writes events hookgate built.
func (s *responsesStream) emitEvents(evs []providers.ResponsesEventOut) error {
	for _, ev := range evs {
		if err := s.write(ev.Frame()); err != nil {
			return err
		}
	}
	return nil
}

// emitCall emits one judged call.
func (s *responsesStream) emitCall(c *rsCall) error {
	c.emitted = true
	s.x.held(-1)
	s.x.countToolCall(c.name, c.v.Decision)
	if c.v.Decision == hooks.Block {
		for range c.frames {
			s.seq.drop()
		}
		note := blockNote(s.x.r.loop.opts.BlockTemplate, c.name, c.v.HookID, c.v.Reason) + "\n"
		if n := len(s.text); n > 0 && s.text[n-1] != '\n' {
			note = "\n" + note
		}
		c.noteID, c.note = noteItemID(), note
		s.text = appendCapped(s.text, []byte(note), maxAnswerText)
		if len(c.frames) == 0 {
			return nil // listed only by the terminal event, which is patched
		}
		return s.emitEvents(providers.MessageItemEvents(c.noteID, c.outputIndex, note, s.seq.next))
	}
	s.survived++
	s.x.r.loop.clock.issued(s.x.id.session, c.callID)
	if c.v.Decision == hooks.Rewrite {
		return s.emitRewritten(c)
	}
	for _, f := range c.frames {
		if err := s.emitFrame(f, nil); err != nil {
			return err
		}
	}
	return nil
}

// emitRewritten emits a call with its new input: the added item's input
// emptied, one delta carrying the whole input in place of the deltas, the
// .done event and the done item patched.
func (s *responsesStream) emitRewritten(c *rsCall) error {
	text := string(c.v.Arguments)
	wroteDelta := false
	for _, f := range c.frames {
		var payload []byte
		var err error
		switch f.role {
		case roleAdded:
			switch {
			case c.addedLen > 0 && !c.hasDelta:
				// The input came whole in the added item.
				payload, err = providers.SetItemCallInput(f.data, c.kind, text)
			case c.addedLen > 0:
				payload, err = providers.SetItemCallInput(f.data, c.kind, "")
			}
		case roleDelta:
			if wroteDelta {
				s.seq.drop()
				continue
			}
			wroteDelta = true
			payload, err = providers.SetEventDelta(f.data, text)
		case roleDone:
			payload, err = providers.SetEventCallInput(f.data, c.kind, text)
		case roleItemDone:
			payload, err = providers.SetItemCallInput(f.data, c.kind, text)
		}
		if err != nil {
			return s.fail("hookgate_error", "hookgate could not encode a rewritten tool call", err)
		}
		if err := s.emitFrame(f, payload); err != nil {
			return err
		}
	}
	return nil
}

// emitTerminal emits the response's last event: its output patched as the
// calls were, pre_response's text added as a message item before it, and
// the chain's link recorded before the agent can continue it.
func (s *responsesStream) emitTerminal(ctx context.Context, f *rsFrame, kind providers.ResponsesEventKind, final *providers.ResponsesResponse) error {
	data := f.data
	changed := false
	link := s.x.newLink()
	edit := func(out []byte, err error) error {
		if err != nil {
			return s.fail("hookgate_error", "hookgate could not apply the hooks' decisions to the final response", err)
		}
		data, changed = out, true
		return nil
	}
	for _, it := range final.Calls() {
		c := s.callOf(it)
		if c == nil {
			continue
		}
		var err error
		switch c.v.Decision {
		case hooks.Block:
			link.block(c.kind, c.callID, c.v.HookID, c.v.Reason)
			err = edit(providers.ReplaceResponsesOutputItem(data, providers.EventOutput, it.Pos, providers.MessageItem(c.noteID, c.note)))
		case hooks.Rewrite:
			link.addCall(c.callID, c.name, callArguments(c.kind, string(c.v.Arguments)))
			err = edit(providers.SetResponsesOutputInput(data, providers.EventOutput, it.Pos, c.kind, string(c.v.Arguments)))
		default:
			link.addCall(c.callID, c.name, callArguments(c.kind, string(c.input)))
			if it.Input != string(c.input) {
				// The final output must say what was judged.
				err = edit(providers.SetResponsesOutputInput(data, providers.EventOutput, it.Pos, c.kind, string(c.input)))
			}
		}
		if err != nil {
			return err
		}
	}
	answer := kind != providers.RespFailed && s.survived == 0
	if kind != providers.RespFailed && (answer || s.x.r.loop.opts.PreResponseOnToolCalls) {
		text, err := s.x.r.loop.preResponse(ctx, &s.x.exchangeState, string(s.text))
		if err != nil {
			return s.fail("hook_failed", err.Error(), errHookFailed)
		}
		if text != "" {
			if len(s.text) > 0 {
				text = "\n\n" + text
			}
			id := noteItemID()
			if err := s.emitEvents(providers.MessageItemEvents(id, s.items, text, s.seq.next)); err != nil {
				return err
			}
			s.items++
			s.text = appendCapped(s.text, []byte(text), maxAnswerText)
			if err := edit(providers.AppendResponsesOutputItem(data, providers.EventOutput, providers.MessageItem(id, text))); err != nil {
				return err
			}
		}
	}
	s.x.saveLink(s.responseID, link)
	if answer {
		s.x.r.loop.answered(ctx, s.x.id, string(s.text))
	}
	if !changed {
		data = nil
	}
	return s.emitFrame(f, data)
}
