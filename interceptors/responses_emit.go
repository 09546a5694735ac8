package interceptors

import (
	"context"
	"errors"

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

// emitFrame writes an upstream event, or holds it behind the end of what
// may be the answer's last text (follow).
func (s *responsesStream) emitFrame(f *rsFrame, payload []byte) error {
	if err := s.follow(f); err != nil {
		return err
	}
	if s.tail != nil {
		s.tail.frames = append(s.tail.frames, f.clone())
		s.tail.payload = append(s.tail.payload, clone(payload))
		s.tail.shift = append(s.tail.shift, s.shift)
		return nil
	}
	return s.writeFrame(f, payload, s.shift)
}

// follow keeps track of the message item being written: a new item, or a
// new part of the item, releases the held end of the last text (it was not
// the last); the first .done event of an item's latest output_text part
// starts holding.
func (s *responsesStream) follow(f *rsFrame) error {
	cur := s.cur
	ofCur := cur != nil && (f.outIdx < 0 || f.outIdx == cur.up)
	switch f.kind {
	case providers.RespItemAdded:
		if err := s.releaseTail(); err != nil {
			return err
		}
		s.cur = nil
		if f.message {
			s.cur = &rsText{up: f.outIdx, last: -1, itemID: f.messageID}
		}
	case providers.RespPartAdded:
		if !ofCur {
			return nil
		}
		if err := s.releaseTail(); err != nil {
			return err
		}
		cur.last, cur.spoke = -1, false
		if f.textPart {
			cur.last = f.contentIdx
		}
	case providers.RespTextDelta:
		if ofCur && f.contentIdx == cur.last && f.spoke {
			cur.spoke = true
		}
	case providers.RespTextDone, providers.RespPartDone, providers.RespItemDone:
		if f.kind == providers.RespItemDone && !ofCur {
			// An item that arrives whole, without output_item.added:
			// another item follows the text.
			s.cur = nil
			return s.releaseTail()
		}
		if s.tail != nil || !ofCur || cur.last < 0 {
			return nil
		}
		if f.kind == providers.RespItemDone && !f.message ||
			f.kind != providers.RespItemDone && f.contentIdx != cur.last ||
			f.kind == providers.RespPartDone && !f.textPart {
			return nil
		}
		s.tail = &rsTail{text: *cur, out: cur.up - s.shift}
	case providers.RespError:
		return s.releaseTail()
	}
	return nil
}

// releaseTail writes the held events as they were to go out: the part
// was not the answer's last text.
func (s *responsesStream) releaseTail() error {
	t := s.tail
	if t == nil {
		return nil
	}
	s.tail = nil
	for i, f := range t.frames {
		if err := s.writeFrame(f, t.payload[i], t.shift[i]); err != nil {
			return err
		}
	}
	return nil
}

// settle ends the answer's text: the notes of the blocked calls and
// pre_response's text (see settleAnswer) join the held last text part as one more
// output_text.delta, its held .done events repeating the text with them.
// It returns the text added and where it went: the held item's id and
// content index, or "" and -1 when the answer holds no text part and the
// caller adds an item of its own.
func (s *responsesStream) settle(ctx context.Context, final, mayDisclaim bool) (text, itemID string, part int, err error) {
	shown, disclaimer, err := s.x.r.loop.settleAnswer(ctx, &s.x.exchangeState, &s.added, s.text, final, mayDisclaim)
	if err != nil {
		return "", "", -1, s.fail("hook_failed", err.Error(), errHookFailed)
	}
	s.text = shown
	t := s.tail
	text = s.added.joined(disclaimer, t != nil && t.text.spoke)
	if disclaimer != "" {
		if len(s.text) > 0 {
			s.text = appendCapped(s.text, []byte("\n\n"), maxAnswerText)
		}
		s.text = appendCapped(s.text, []byte(disclaimer), maxAnswerText)
	}
	if t == nil || text == "" {
		return text, "", -1, s.releaseTail()
	}
	s.tail = nil
	delta := providers.EncodeOutputTextDelta(t.text.itemID, t.out, t.text.last, text, s.seq.next)
	if err := s.write(delta.Frame()); err != nil {
		return "", "", -1, err
	}
	for i, f := range t.frames {
		payload := t.payload[i]
		if f.outIdx == t.text.up && (f.kind == providers.RespTextDone && f.contentIdx == t.text.last ||
			f.kind == providers.RespPartDone && f.contentIdx == t.text.last ||
			f.kind == providers.RespItemDone && f.message) {
			if payload == nil {
				payload = f.data
			}
			switch joined, err := providers.AppendToDoneText(payload, f.kind, t.text.last, text); {
			case err == nil:
				payload = joined
			case errors.Is(err, providers.ErrNotFound):
				// The event does not repeat the part's text (an item done
				// with empty content, as some servers send): there is
				// nothing to join.
				payload = t.payload[i]
			default:
				return "", "", -1, s.fail("hookgate_error", "hookgate could not add its notes to the answer's text", err)
			}
		}
		if err := s.writeFrame(f, payload, t.shift[i]); err != nil {
			return "", "", -1, err
		}
	}
	return text, t.text.itemID, t.text.last, nil
}

// writeFrame writes an upstream event: its bytes as they came, unless its
// payload was edited (payload), its item moved up (shift: the blocked calls
// dropped before it) or its sequence number must change.
func (s *responsesStream) writeFrame(f *rsFrame, payload []byte, shift int) error {
	if shift > 0 && f.outIdx >= 0 {
		if payload == nil {
			payload = f.data
		}
		var err error
		if payload, err = providers.SetEventOutputIndex(payload, f.outIdx-shift); err != nil {
			return s.fail("hookgate_error", "hookgate could not renumber an output item", err)
		}
	}
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
	endHeldSpan(c.span, &c.v)
	s.x.countToolCall(c.name, c.v.Decision)
	if c.v.Decision == hooks.Block {
		// Not written: its note joins the answer's last text, and the
		// items after it move up (a call listed only by the terminal event
		// held no place in the stream).
		for range c.frames {
			s.seq.drop()
		}
		if len(c.frames) > 0 {
			s.shift++
		}
		s.added.note(blockNote(s.x.r.loop.opts.BlockTemplate, c.name, c.v.HookID, c.v.Reason))
		return nil
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
// calls were (a blocked call removed), the answer's end settled (the notes
// and pre_response's text joined to the last text part, or one message
// item carrying them), and the chain's link recorded before the agent can
// continue it.
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
	var removed []int
	for _, it := range final.Calls() {
		c := s.callOf(it)
		if c == nil {
			continue
		}
		if s.unheld {
			// It went out as it came: the final output stays as it is.
			link.addCall(it.CallID, it.Name, callArguments(it.Kind, it.Input))
			continue
		}
		var err error
		switch c.v.Decision {
		case hooks.Block:
			link.block(c.kind, c.callID, c.v.HookID, c.v.Reason)
			removed = append(removed, it.Pos)
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
	text, itemID, part, err := s.settle(ctx, answer, kind != providers.RespFailed)
	if err != nil {
		return err
	}
	if text != "" && itemID != "" {
		// The final output repeats the text the held part now ends with.
		for _, it := range final.Output {
			if it.ID == itemID && it.Type == "message" {
				joined, err := providers.AppendToResponsesOutputText(data, providers.EventOutput, it.Pos, part, text)
				if errors.Is(err, providers.ErrNotFound) {
					break // the final output does not repeat the part's text
				}
				if err := edit(joined, err); err != nil {
					return err
				}
				break
			}
		}
	}
	if text != "" && itemID == "" {
		id := noteItemID()
		if err := s.emitEvents(providers.MessageItemEvents(id, s.items-s.shift, text, s.seq.next)); err != nil {
			return err
		}
		s.items++
		if err := edit(providers.AppendResponsesOutputItem(data, providers.EventOutput, providers.MessageItem(id, text))); err != nil {
			return err
		}
	}
	if len(removed) > 0 {
		if err := edit(providers.RemoveResponsesOutputItems(data, providers.EventOutput, removed...)); err != nil {
			return err
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
