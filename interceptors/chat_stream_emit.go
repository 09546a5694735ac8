package interceptors

import (
	"context"
	"strings"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// Emission of a chat stream's held calls: in order, as the bytes that came
// when every call of their events is allowed unchanged, re-encoded when one
// was rewritten or re-indexed, and a note in place of a blocked one.

// flush emits, in order, every call whose turn has come, then the queued
// events once no call is held.
func (s *chatStream) flush(ctx context.Context) error {
	if s.retry.deciding {
		return nil
	}
	for s.next < len(s.calls) {
		c := s.calls[s.next]
		if !c.resolved {
			return nil
		}
		ready, err := s.emitCall(c)
		if err != nil {
			return err
		}
		if !ready {
			return nil
		}
		s.next++
	}
	for len(s.queue) > 0 {
		q := s.queue[0]
		s.queue = s.queue[1:]
		if len(q.finish) == 0 {
			if err := s.write(q.raw); err != nil {
				return err
			}
			continue
		}
		if err := s.emitFinish(ctx, q.raw, q.data, q.finish); err != nil {
			return err
		}
		if s.retry.deciding {
			s.queue = nil
			return nil
		}
	}
	return nil
}

// emitCall emits one resolved call; it reports false when the call must
// wait for another call that shares its events.
func (s *chatStream) emitCall(c *heldCall) (bool, error) {
	if c.emitted {
		return true, nil
	}
	cs := c.choice
	if c.v.Decision == hooks.Block {
		c.emitted = true
		s.x.held(-1)
		endHeldSpan(c.span, &c.v)
		s.x.countToolCall(c.name, c.v.Decision)
		cs.blocked++
		cs.shifted = true
		cs.blockedCalls = append(cs.blockedCalls, c)
		spoil(c)
		note := blockNote(s.x.chat.opts.BlockTemplate, c.name, c.v.HookID, c.v.Reason) + "\n"
		if s.x.retryPossible() {
			// Shown at the finish, unless the model is asked again instead.
			cs.notes = append(cs.notes, note)
		} else if err := s.writeNote(cs, c.template, note); err != nil {
			return false, err
		}
		s.queueCarriedFinish(c)
		return true, nil
	}
	if c.raw == 0 {
		decided, raw := s.decideRaw(c)
		if !decided {
			return false, nil
		}
		for _, g := range group(c) {
			g.raw = raw
		}
	}
	c.emitted = true
	s.x.held(-1)
	endHeldSpan(c.span, &c.v)
	s.x.countToolCall(c.name, c.v.Decision)
	s.x.chat.clock.issued(s.x.id.session, c.id)
	index := cs.survived
	cs.survived++
	if c.raw > 0 {
		for _, f := range c.frames {
			if !f.emitted {
				f.emitted = true
				if err := s.write(f.raw); err != nil {
					return false, err
				}
			}
		}
		return true, nil
	}
	spoil(c)
	chunk, err := providers.EncodeToolCallChunk(c.template, cs.index, providers.ToolCallOut{
		Index: index, ID: c.id, Name: c.name, Arguments: string(c.v.Arguments),
	})
	if err != nil {
		return false, s.fail("hookgate_error", "hookgate could not encode a tool call", err)
	}
	if err := s.write(providers.FrameSSEData(chunk)); err != nil {
		return false, err
	}
	s.queueCarriedFinish(c)
	return true, nil
}

// queueCarriedFinish puts a finish that c's events carried (with its usage)
// ahead of the queue, once the last call sharing those events is out.
func (s *chatStream) queueCarriedFinish(c *heldCall) {
	for _, f := range c.frames {
		if len(f.finish) > 0 && allEmitted(f.calls) && !f.emitted {
			f.emitted = true
			s.queue = append([]*queuedFrame{{data: f.data, finish: f.finish}}, s.queue...)
		}
	}
}

// writeNote shows the agent a note in the answer's text.
func (s *chatStream) writeNote(cs *choiceState, template []byte, note string) error {
	if cs.spoke && !cs.endsLine {
		note = "\n" + note
	}
	cs.spoke, cs.endsLine = true, strings.HasSuffix(note, "\n")
	chunk, err := providers.EncodeContentChunk(template, cs.index, note)
	if err != nil {
		return s.fail("hookgate_error", "hookgate could not encode a block note", err)
	}
	cs.text = appendCapped(cs.text, []byte(note), maxAnswerText)
	return s.write(providers.FrameSSEData(chunk))
}

// decideRaw decides, for the group of calls that share events with c,
// whether the events can go out as they came: every call of the group
// resolved and allowed unchanged, none re-indexed, every event intact.
func (s *chatStream) decideRaw(c *heldCall) (decided bool, raw int8) {
	raw = 1
	for _, g := range group(c) {
		if !g.resolved {
			return false, 0
		}
		if g.v.Decision != hooks.Allow || g.choice.shifted {
			raw = -1
		}
		for _, f := range g.frames {
			if f.raw == nil {
				raw = -1
			}
		}
		for _, e := range g.choice.calls[:g.ordinal] {
			if !e.resolved {
				return false, 0
			}
			if e.v.Decision == hooks.Block {
				raw = -1
			}
		}
	}
	if raw > 0 && s.x.chat.opts.PreResponseOnToolCalls && s.x.chat.has(hooks.PreResponse) {
		for _, g := range group(c) {
			for _, f := range g.frames {
				if len(f.finish) > 0 {
					raw = -1
				}
			}
		}
	}
	return true, raw
}

// group is the set of calls connected to c by shared events.
func group(c *heldCall) []*heldCall {
	out := []*heldCall{c}
	for i := 0; i < len(out); i++ {
		for _, f := range out[i].frames {
			for _, g := range f.calls {
				if !containsCall(out, g) {
					out = append(out, g)
				}
			}
		}
	}
	return out
}

// spoil marks c's events as unusable as they came: they carry fragments
// of a call that went out another way.
func spoil(c *heldCall) {
	for _, f := range c.frames {
		if !f.emitted {
			f.raw = nil
		}
	}
}

func allEmitted(cs []*heldCall) bool {
	for _, c := range cs {
		if !c.emitted {
			return false
		}
	}
	return true
}

func containsCall(cs []*heldCall, c *heldCall) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

func containsFrame(fs []*heldFrame, f *heldFrame) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}
