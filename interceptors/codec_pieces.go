package interceptors

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// Calls streamed in pieces (providers.CodecFrame.Piece): a call that
// starts in one frame, grows by argument fragments over later frames and
// completes in a later one (Anthropic's tool_use blocks). Every frame of
// such a call is held, from its start on, and so is every frame after it;
// once the call is complete it is judged on its own goroutine while the
// stream goes on. When its turn comes, its frames go out as they came
// (allowed unchanged), as the codec's encoding of the whole call with its
// new arguments (rewritten: PieceCodec.EncodeCall, in place of its first
// frame), or not at all (blocked: its note joins the answer's end, and
// the slots after it move up, PieceCodec.Renumber).
//
// A call the upstream leaves open when the answer ends is judged then; one
// its in-band error cuts short is never written.

// streamedCall is what the machine keeps of a call streamed in pieces.
type streamedCall struct {
	call      providers.CodecCall // Args: the arguments judged, once complete
	startArgs []byte              // the arguments sent with its start
	endArgs   []byte              // the arguments its end repeats (nil: none)
	args      []byte              // the fragments, joined
	complete  bool                // handed to pre_tool_use (or to the dry runs)
	judged    bool
	abandoned bool // the upstream's error cut it short: never written
	decided   bool // its first frame went out: the decision was applied
	kept      bool // it reached the client
	rewritten bool // it reached the client as EncodeCall's frames
}

// onPiece takes a frame that carries a piece of a streamed call.
func (s *codecStream) onPiece(ctx context.Context, raw, payload []byte, f *providers.CodecFrame) error {
	p := &f.Piece
	limits := &s.x.c.loop.opts.ToolLimits
	var c *codecCall
	// An end that names a call at a key with none open is the whole call
	// (an item that arrives done, never announced): it starts and ends it.
	wholeAtEnd := p.Part == providers.PieceEnd && p.Name != "" && (s.open[p.Key] == nil || s.open[p.Key].complete)
	if p.Part == providers.PieceStart || wholeAtEnd {
		if limit := maxOr(limits.MaxCalls, providers.DefaultMaxToolCalls); s.calls >= limit {
			return s.fail("invalid_tool_call", fmt.Sprintf("the upstream started more than %d tool calls in one answer", limit), providers.ErrTooManyToolCalls)
		}
		s.calls++
		c = &codecCall{}
		c.call = providers.CodecCall{ID: p.ID, Name: p.Name, Key: p.Key, EventKey: p.EventKey, Ref: p.Ref}
		if p.Args != nil {
			c.startArgs = clone(p.Args)
		}
		if s.open == nil {
			s.open = map[string]*codecCall{}
		}
		s.open[p.Key] = c
		s.pieces = append(s.pieces, c)
		if s.unheld {
			// Allowed before it is judged: the dry runs see it once complete.
			c.v, c.judged = verdict{Decision: hooks.Allow}, true
		} else {
			s.x.held(1)
			c.span = startHeldSpan(ctx)
			nameHeldSpan(c.span, c.call.Name, c.call.ID)
		}
	} else if c = s.open[p.Key]; c == nil {
		// A client adds it to whatever sits at that place.
		return s.fail("invalid_tool_call", "the upstream sent a piece of a tool call it never started", errStrayDelta)
	}
	switch p.Part {
	case providers.PieceEnd:
		if p.ID != "" && p.ID != c.call.ID || p.Name != "" && p.Name != c.call.Name {
			return s.fail("invalid_tool_call", "the upstream finished a tool call under another name or id than it began it with", errCallRenamed)
		}
		if p.Args != nil {
			c.endArgs = clone(p.Args)
		}
	case providers.PieceArgs:
		if c.complete {
			err := fmt.Errorf("tool call %s (%s): arguments after its end: %w", c.call.ID, c.call.Name, providers.ErrCallAlreadyComplete)
			return s.fail("invalid_tool_call", "the upstream sent a tool call hookgate cannot hold: "+err.Error(), err)
		}
		c.args = append(c.args, p.Args...)
		if limit := maxOr(limits.MaxArgumentsBytes, providers.DefaultMaxToolArguments); len(c.args) > limit {
			err := fmt.Errorf("tool call %s (%s): arguments reach %d bytes, limit %d: %w", c.call.ID, c.call.Name, len(c.args), limit, providers.ErrArgumentsTooLarge)
			return s.fail("invalid_tool_call", "the upstream sent a tool call hookgate cannot hold: "+err.Error(), err)
		}
	}
	if err := s.queuePiece(raw, payload, c); err != nil {
		return err
	}
	if wholeAtEnd {
		// The frame opens the call's slot, as its start would have.
		fr := s.queue[len(s.queue)-1]
		fr.f.Slot.Opens = fr.f.Slot.Set
	}
	if p.Part == providers.PieceEnd {
		s.complete(ctx, c)
	}
	return s.flush(ctx)
}

// queuePiece queues a copy of a frame of call c, decoded on its own
// bytes. Behind dry runs only, with nothing held before it, the next flush
// writes it at once.
func (s *codecStream) queuePiece(raw, payload []byte, c *codecCall) error {
	fr, err := s.ownFrame(raw, payload)
	if err != nil {
		return err
	}
	fr.piece = c
	s.queue = append(s.queue, fr)
	return nil
}

// complete hands a call whose pieces are all in to pre_tool_use on its own
// goroutine (or, unheld, to the dry runs on the side). Its arguments are
// the fragments joined, or the start's when none came.
func (s *codecStream) complete(ctx context.Context, c *codecCall) {
	if c.complete || c.abandoned {
		return
	}
	c.complete = true
	args, agree := c.arguments()
	c.call.Args = args
	ev := s.x.callEvent(&c.call)
	switch {
	case !agree && !s.unheld:
		// A client may read either: it could run what nobody judged.
		c.v, c.judged = verdict{Decision: hooks.Block, HookID: hookgateBlocker, Reason: "the upstream sent conflicting arguments for this call"}, true
	case s.unheld:
		s.x.observeUnheld(ctx, ev, args, s.x.c.loop.clock)
	case !s.x.c.loop.has(hooks.PreToolUse):
		c.v, c.judged = verdict{Decision: hooks.Allow, Arguments: args}, true
	default:
		s.judging++
		engine := s.x.c.loop.opts.Engine
		go func() {
			c.v = judgeToolCall(heldContext(ctx, c.span), engine, ev, args)
			s.judged <- c
		}()
	}
}

// arguments returns a complete call's arguments: the fragments joined,
// else the start's, else the end's; agree is false when its end repeats
// other arguments than the fragments (or the start) gave.
func (c *streamedCall) arguments() (args []byte, agree bool) {
	args = c.args
	if len(bytes.TrimSpace(args)) == 0 {
		args = c.startArgs
	}
	if c.endArgs == nil {
		return args, true
	}
	if len(bytes.TrimSpace(args)) == 0 {
		return c.endArgs, true
	}
	return args, bytes.Equal(args, c.endArgs)
}

// completeOpen judges the calls the upstream left open at the end of its
// answer.
func (s *codecStream) completeOpen(ctx context.Context) {
	for _, c := range s.pieces {
		s.complete(ctx, c)
	}
}

// abandonOpen marks the calls not complete at the upstream's in-band
// error: their frames are never written.
func (s *codecStream) abandonOpen() {
	for _, c := range s.pieces {
		if !c.complete {
			c.abandoned = true
		}
	}
}

// abandonPieces forgets, once the stream is over, the calls whose
// decision never reached the client.
func (s *codecStream) abandonPieces() {
	for _, c := range s.pieces {
		if !c.decided && !s.unheld {
			s.x.held(-1) // never written: truncated, failed or abandoned
			abandonHeldSpan(c.span)
			c.decided = true
		}
	}
}

// emitPiece writes a judged frame of a streamed call. The call's first
// frame to go out applies its decision: counted, stamped, its note added
// when blocked; a rewritten call's first frame becomes the codec's
// encoding of the whole call, and its other frames go with it.
func (s *codecStream) emitPiece(fr *codecFrame) error {
	c := fr.piece
	if c.abandoned {
		return nil
	}
	if !c.decided {
		c.decided = true
		c.kept = true
		if !s.unheld {
			s.x.held(-1)
			endHeldSpan(c.span, &c.v)
			edits, kept := s.x.decide([]providers.CodecCall{c.call}, []verdict{c.v}, &s.added)
			c.kept, c.rewritten = kept > 0, kept > 0 && len(edits) > 0
		}
		if c.kept {
			s.survived++
		}
		if c.rewritten {
			return s.emitRewritten(fr)
		}
	}
	if !c.kept || c.rewritten {
		if fr.f.Slot.Opens && fr.f.Slot.Set {
			s.closeSlot(fr.f.Slot.Index)
		}
		return nil // blocked: its note goes in its place; rewritten: it went out whole
	}
	if fr.f.Slot.Set {
		return s.emitSlotted(fr.raw, fr.payload, &fr.f)
	}
	return s.putRaw(fr.raw, fr.payload)
}

// emitRewritten writes a rewritten call, whole, in place of its first
// frame.
func (s *codecStream) emitRewritten(fr *codecFrame) error {
	pc, ok := s.codec.(providers.PieceCodec)
	if !ok {
		return s.fail("hookgate_error", "hookgate cannot re-encode a tool call of this format", errNoPieceCodec)
	}
	slot := fr.f.Slot.Index
	if fr.f.Slot.Set {
		if err := s.releaseTail(); err != nil {
			return err
		}
		slot = s.openSlot(fr.f.Slot.Index)
	}
	call := fr.piece.call
	call.Args = fr.piece.v.Arguments
	payloads, err := pc.EncodeCall(slot, call)
	if err != nil {
		return s.fail("hookgate_error", "hookgate could not re-encode a tool call", err)
	}
	for _, p := range payloads {
		if err := s.putFrame(p); err != nil {
			return err
		}
	}
	return nil
}

// emitSlotted writes a frame that names a slot: as it came when the slot
// keeps its number, else renumbered by the codec. A frame that opens its
// slot gives it the next number; one of a removed call's slot is dropped.
func (s *codecStream) emitSlotted(raw, payload []byte, f *providers.CodecFrame) error {
	out := f.Slot.Index
	if f.Slot.Opens {
		// Another slot follows a held text slot: that one was not the
		// answer's last text, and its closing frame goes out.
		if err := s.releaseTail(); err != nil {
			return err
		}
		out = s.openSlot(f.Slot.Index)
	} else if n, ok := s.slots[f.Slot.Index]; ok {
		out = n
	}
	switch {
	case out < 0:
		return nil
	case out == f.Slot.Index:
		s.holdTextEnd(f, out, payload)
		return s.putRaw(raw, payload)
	}
	pc, ok := s.codec.(providers.PieceCodec)
	if !ok {
		return s.fail("hookgate_error", "hookgate cannot renumber a frame of this format", errNoPieceCodec)
	}
	edited, err := pc.Renumber(payload, f, out)
	if err != nil {
		return s.fail("hookgate_error", "hookgate could not renumber a frame", err)
	}
	s.holdTextEnd(f, out, edited)
	return s.putFrame(edited)
}

// openSlot gives an upstream slot the client's next number.
func (s *codecStream) openSlot(up int) int {
	if s.slots == nil {
		s.slots = map[int]int{}
	}
	n := s.nextSlot
	s.nextSlot++
	s.slots[up] = n
	return n
}

// closeSlot marks an upstream slot as a removed call's: the frames that
// name it are dropped, and it takes no number.
func (s *codecStream) closeSlot(up int) {
	if s.slots == nil {
		s.slots = map[int]int{}
	}
	s.slots[up] = -1
}

// errNoPieceCodec reports a codec that names slots or streams calls in
// pieces without the PieceCodec encodings their decisions need.
var errNoPieceCodec = errors.New("the format's codec cannot encode a streamed call's decision")
