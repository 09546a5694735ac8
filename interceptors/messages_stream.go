package interceptors

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/tidwall/gjson"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// messagesStream relays one streamed Messages response while hooks watch
// it.
//
// Events go to the client in the order they came. A tool_use block is
// held from its content_block_start to its content_block_stop; then
// pre_tool_use judges it on its own goroutine while the stream goes on.
// Whatever arrives after a held block's start waits behind it, since a
// client takes blocks in index order and nothing may overtake one; text,
// thinking and signatures before it go out at once, untouched.
//
// A judged block goes out as the bytes that came when it is allowed
// unchanged; rewritten, as a start, one input_json_delta carrying the
// whole new input, and a stop, all encoded by hookgate; blocked, not at
// all: its note joins the answer's last text. Indices stay contiguous: a
// block's index is the number of blocks written before it, and an event
// whose block moved is re-encoded.
//
// The content_block_stop of a text block (and whatever follows it) waits
// until the next block is written or the message ends, since only then is
// it known to be the last text: at message_delta the notes and
// pre_response's text go into that block as one more text_delta before its
// stop (answer_join.go), or, when the answer has no text block open, into
// one text block of their own. Text deltas themselves are never delayed.
// message_delta's stop_reason turns from tool_use to end_turn when every
// tool_use was blocked. A stream is complete only with message_stop (or
// the upstream's own error event); anything else ends in an error event.
type messagesStream struct {
	eventRelay
	x  *messagesExchange
	ev providers.MessagesEvent

	queue   []*msgFrame // events waiting behind a held block, in order
	blocks  []*msgBlock // the message's blocks, in start order
	judged  chan *msgBlock
	judging int
	nextOut int // the index the next block written gets

	toolUses, blocked, survived int
	final                       bool // message_delta found a final answer; stop fires at message_stop

	messageID string
	text      []byte // the text the client was shown: upstream text and notes
	added     answerAdditions
	// tail is the text block whose content_block_stop waits (nil when
	// none), tailOut what was to be written from that stop on.
	tail     *msgBlock
	tailOut  []byte
	settled  bool // the notes and pre_response's text have gone out
	started  bool // message_start was seen
	terminal bool // message_stop, or the upstream's error event, was seen
	unheld   bool // tool blocks go out as they come (unheld_calls.go)
}

// msgKind is what an event does to the message.
type msgKind uint8

const (
	msgOther msgKind = iota
	msgBlockStart
	msgBlockDelta
	msgBlockStop
	msgDelta
	msgStop
	msgError // the upstream's error event
)

// msgFrame is an event on its way to the client.
type msgFrame struct {
	raw   []byte
	data  []byte
	kind  msgKind
	block *msgBlock // the content block it belongs to; nil for message-level events
}

// msgBlock is one content block of the message.
type msgBlock struct {
	up, out    int // the upstream's index, and the client's (-1 until written)
	tool       bool
	text       bool // a text block
	spoke      bool // a text block some text_delta gave text
	id, name   string
	startInput []byte // content_block_start's input ({} in streams)
	input      []byte // the input_json_delta fragments, decoded and joined
	stopped    bool   // its content_block_stop came
	complete   bool   // handed to pre_tool_use
	resolved   bool   // judged
	abandoned  bool   // the upstream failed before it stopped: never written
	emitted    bool
	v          verdict
	span       trace.Span // nil when not traced (held_span.go)
}

func newMessagesStream(x *messagesExchange, client Sink) *messagesStream {
	return &messagesStream{
		x:          x,
		eventRelay: newEventRelay(client, x.m.loop.opts.MaxEventBytes, x.m.loop.opts.MaxStreamBytes, &x.work),
		judged:     make(chan *msgBlock, 16),
		unheld:     x.callsUnheld(),
	}
}

// run relays the stream until it has ended and every held block is out,
// the client has gone, or ctx is done.
func (s *messagesStream) run(ctx context.Context, upstream io.Reader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reads := startUpstreamReads(ctx, upstream)
	heartbeat := time.NewTicker(s.x.m.loop.opts.Heartbeat)
	defer heartbeat.Stop()
	err := serveHeld(ctx, s, s.judged, &s.judging, func(c *msgBlock) { c.resolved = true }, reads, heartbeat.C)
	// Stop the hooks still running and wait for them, so no goroutine
	// outlives the stream.
	cancel()
	for ; s.judging > 0; s.judging-- {
		<-s.judged
	}
	for _, b := range s.blocks {
		if b.tool && !b.emitted {
			s.x.held(-1) // never written: truncated, failed or abandoned
			abandonHeldSpan(b.span)
		}
	}
	return err
}

// onEnd handles the end of the upstream body: the last events, then either
// the open tool blocks judged (a complete stream) or a truncation error
// (held blocks are never written).
func (s *messagesStream) onEnd(ctx context.Context, readErr error) error {
	complete, err := s.endUpstream(ctx, readErr, s, &s.terminal, "the upstream stream ended before message_stop")
	if complete {
		s.judgeOpen(ctx)
	}
	return err
}

// finish writes what was held once every block has been judged, then the
// bytes of an unterminated last event as they came.
func (s *messagesStream) finish(ctx context.Context) error {
	if err := s.flush(ctx); err != nil {
		return err
	}
	if err := s.releaseTail(); err != nil {
		return err
	}
	return s.writeTail()
}

// onFrame routes one event. An event with data is refused (the stream
// ends with an error event) when it comes after the end of the message,
// cannot be read, names itself twice differently, or puts a tool call
// where a client reads it and hookgate does not hold it (see
// providers/anthropic_calls.go).
func (s *messagesStream) onFrame(ctx context.Context, f *providers.SSEFrame) error {
	if !f.HasData() {
		// Comments and stray blank lines go as they came.
		return s.pass(ctx, f, msgOther, nil)
	}
	if s.terminal {
		if f.Done && f.Event == nil {
			return s.pass(ctx, f, msgOther, nil) // every client stops at it or skips it
		}
		return s.fail("event_after_end", refusedAfterEnd, errEventAfterEnd)
	}
	if string(f.Event) == providers.MessagesError {
		return s.onError(ctx, f)
	}
	if err := s.ev.Decode(f.Data); err != nil {
		if providers.IsAmbiguousKey(err) {
			// A repeated key or a variant spelling of a member: a client may
			// read another event (another call) than hookgate would judge.
			return s.fail("unreadable_event", "the upstream sent an event whose keys clients read differently, so what it carries could not be judged", err)
		}
		return s.fail("unreadable_event", refusedUnreadable, err)
	}
	ev := &s.ev
	if !providers.EventNameMatches(f.Event, ev.Type) {
		return s.fail("unreadable_event", refusedEventName, errEventName)
	}
	switch {
	case ev.Is(providers.MessageStart):
		if s.started {
			return s.fail("unreadable_event", "the upstream started a second message in one stream", errSecondStart)
		}
		s.started = true
		s.x.noteUsageAt(ctx, ev.Message.Raw, "usage")
		if err := providers.CheckMessageStart(ev.Message.Raw); err != nil {
			return s.fail("unreadable_event", "the upstream's message_start already carries content blocks, which clients read as the message's own and hookgate does not judge", err)
		}
		s.messageID = gjsonString(ev.Message.Raw, "id")
	case ev.Is(providers.ContentBlockStart):
		b := &msgBlock{up: ev.Index, out: -1}
		s.blocks = append(s.blocks, b)
		if !ev.Block.Type.Equal("tool_use") {
			b.text = ev.Block.Type.Equal("text")
			return s.pass(ctx, f, msgBlockStart, b)
		}
		if limit := s.maxCalls(); s.toolUses >= limit {
			return s.fail("invalid_tool_call", fmt.Sprintf("the upstream started more than %d tool calls in one message", limit), providers.ErrTooManyToolCalls)
		}
		b.tool, b.id, b.name = true, ev.Block.ID.Text(), ev.Block.Name.Text()
		if ev.Block.Input.Set() {
			if ev.Block.Input.Raw[0] != '{' {
				return s.fail("invalid_tool_call", "the upstream started a tool_use whose input is not an object", errToolStart)
			}
			b.startInput = clone(ev.Block.Input.Raw)
		}
		s.toolUses++
		s.x.held(1)
		if s.unheld {
			// Allowed before it is judged: the dry runs see it once complete.
			b.v, b.resolved = verdict{Decision: hooks.Allow}, true
			return s.pass(ctx, f, msgBlockStart, b)
		}
		b.span = startHeldSpan(ctx)
		nameHeldSpan(b.span, b.name, b.id)
		s.hold(f, msgBlockStart, b)
		return nil
	case ev.Is(providers.ContentBlockDelta):
		b := s.block(ev.Index)
		if b == nil {
			// A client adds it to whatever block sits at that index.
			return s.fail("invalid_tool_call", "the upstream sent a content_block_delta for a block it never started", errStrayDelta)
		}
		if !b.tool {
			if ev.Delta.Type.Equal("text_delta") {
				if !b.spoke && ev.Delta.Text.NonEmpty() {
					b.spoke = true
				}
				if len(s.text) < maxAnswerText {
					s.text = ev.Delta.Text.AppendText(s.text)
					if len(s.text) > maxAnswerText {
						s.text = s.text[:maxAnswerText]
					}
				}
			}
			return s.pass(ctx, f, msgBlockDelta, b)
		}
		if b.complete {
			err := fmt.Errorf("tool_use %s (%s): input after content_block_stop: %w", b.id, b.name, providers.ErrCallAlreadyComplete)
			return s.fail("invalid_tool_call", "the upstream sent a tool call hookgate cannot hold: "+err.Error(), err)
		}
		if ev.Delta.PartialJSON.IsString() {
			if len(ev.Delta.PartialJSON.Raw) > 2 && b.startInput != nil && string(b.startInput) != "{}" {
				// anthropic-sdk-go appends the fragments to such an input,
				// @anthropic-ai/sdk reads the fragments alone.
				return s.fail("invalid_tool_call", "the upstream sent input fragments for a tool_use whose start already carries an input", errToolStart)
			}
			b.input = ev.Delta.PartialJSON.AppendText(b.input)
			if limit := s.maxInput(); len(b.input) > limit {
				err := fmt.Errorf("tool_use %s (%s): input reaches %d bytes, limit %d: %w", b.id, b.name, len(b.input), limit, providers.ErrArgumentsTooLarge)
				return s.fail("invalid_tool_call", "the upstream sent a tool call hookgate cannot hold: "+err.Error(), err)
			}
		}
		if s.unheld {
			return s.pass(ctx, f, msgBlockDelta, b)
		}
		s.hold(f, msgBlockDelta, b)
		return nil
	case ev.Is(providers.ContentBlockStop):
		b := s.block(ev.Index)
		if b == nil || !b.tool {
			if b != nil {
				b.stopped = true
			}
			return s.pass(ctx, f, msgBlockStop, b)
		}
		b.stopped = true
		if s.unheld {
			err := s.pass(ctx, f, msgBlockStop, b)
			s.judge(ctx, b)
			return err
		}
		s.hold(f, msgBlockStop, b)
		s.judge(ctx, b)
		return nil
	case ev.Is(providers.MessageDelta):
		s.x.noteUsageAt(ctx, f.Data, "usage")
		return s.pass(ctx, f, msgDelta, nil)
	case ev.Is(providers.MessageStop):
		s.terminal = true
		s.judgeOpen(ctx)
		return s.pass(ctx, f, msgStop, nil)
	case ev.Is(providers.MessagesError):
		return s.onError(ctx, f)
	}
	return s.pass(ctx, f, msgOther, nil)
}

// onError passes the upstream's own error event on, after the blocks
// already complete; blocks it cut short are never written.
func (s *messagesStream) onError(ctx context.Context, f *providers.SSEFrame) error {
	s.terminal = true
	for _, b := range s.blocks {
		if b.tool && !b.complete {
			b.abandoned = true
		}
	}
	return s.pass(ctx, f, msgError, nil)
}

// pass writes an event at once when nothing is held, else queues it.
func (s *messagesStream) pass(ctx context.Context, f *providers.SSEFrame, kind msgKind, b *msgBlock) error {
	if len(s.queue) > 0 {
		s.hold(f, kind, b)
		return nil
	}
	return s.emit(ctx, &msgFrame{raw: f.Raw, data: f.Data, kind: kind, block: b})
}

// hold queues a copy of an event.
func (s *messagesStream) hold(f *providers.SSEFrame, kind msgKind, b *msgBlock) {
	s.queue = append(s.queue, &msgFrame{raw: clone(f.Raw), data: clone(f.Data), kind: kind, block: b})
}

// block returns the latest block started with the upstream index.
func (s *messagesStream) block(index int) *msgBlock {
	for i := len(s.blocks) - 1; i >= 0; i-- {
		if s.blocks[i].up == index {
			return s.blocks[i]
		}
	}
	return nil
}

func (s *messagesStream) maxCalls() int {
	if n := s.x.m.loop.opts.ToolLimits.MaxCalls; n > 0 {
		return n
	}
	return providers.DefaultMaxToolCalls
}

func (s *messagesStream) maxInput() int {
	if n := s.x.m.loop.opts.ToolLimits.MaxArgumentsBytes; n > 0 {
		return n
	}
	return providers.DefaultMaxToolArguments
}

// judgeOpen judges the tool blocks the upstream ended without stopping.
func (s *messagesStream) judgeOpen(ctx context.Context) {
	for _, b := range s.blocks {
		if b.tool && !b.complete && !b.abandoned {
			s.judge(ctx, b)
		}
	}
}

// judge starts pre_tool_use for a complete tool block on its own
// goroutine. The input is the fragments joined, or the start's input when
// none came.
func (s *messagesStream) judge(ctx context.Context, b *msgBlock) {
	if b.complete {
		return
	}
	b.complete = true
	args := b.input
	if len(bytes.TrimSpace(args)) == 0 {
		args = b.startInput
	}
	ev := s.x.id.event(hooks.PreToolUse, s.messageID, b.id, strconv.Itoa(b.up))
	ev.ToolName, ev.ToolCallID = b.name, b.id
	if s.unheld {
		observeCall(ctx, s.x.engine, ev, args)
		return
	}
	s.judging++
	engine := s.x.m.loop.opts.Engine
	go func() {
		b.v = judgeToolCall(heldContext(ctx, b.span), engine, ev, args)
		s.judged <- b
	}()
}

// flush writes, in order, every queued event whose turn has come: up to
// the first tool block not yet judged.
func (s *messagesStream) flush(ctx context.Context) error {
	for len(s.queue) > 0 {
		f := s.queue[0]
		if b := f.block; b != nil && b.tool && !b.resolved && !b.abandoned {
			return nil
		}
		s.queue[0] = nil
		s.queue = s.queue[1:]
		if err := s.emit(ctx, f); err != nil {
			return err
		}
	}
	return nil
}

// emit writes one event as the client must see it. f is not kept.
func (s *messagesStream) emit(ctx context.Context, f *msgFrame) error {
	b := f.block
	if b != nil && b.abandoned {
		return nil
	}
	switch f.kind {
	case msgBlockStart:
		if b.tool {
			b.emitted = true
			s.x.held(-1)
			endHeldSpan(b.span, &b.v)
			s.x.countToolCall(b.name, b.v.Decision)
			if b.v.Decision == hooks.Block {
				// Not written: its note joins the answer's last text.
				s.blocked++
				s.added.note(blockNote(s.x.m.loop.opts.BlockTemplate, b.name, b.v.HookID, b.v.Reason))
				return nil
			}
			s.x.m.loop.clock.issued(s.x.id.session, b.id)
		}
		// Another block follows the held text block: that one was not the
		// last, and its stop goes out as it came.
		if err := s.releaseTail(); err != nil {
			return err
		}
		b.out = s.nextOut
		s.nextOut++
		if b.tool {
			s.survived++
			if b.v.Decision == hooks.Rewrite {
				// Encoded from hookgate's reading, not patched into the
				// upstream's start: its input is {} and the whole new input
				// is one fragment.
				out := providers.AppendMessagesToolUseStart(nil, b.out, b.id, b.name)
				return s.write(providers.AppendMessagesInputJSONDelta(out, b.out, b.v.Arguments))
			}
		}
	case msgBlockDelta, msgBlockStop:
		if b != nil && b.tool {
			switch b.v.Decision {
			case hooks.Block:
				return nil // the note's text block went out in its place
			case hooks.Rewrite:
				if f.kind == msgBlockDelta {
					return nil // the whole new input went out with the start
				}
				return s.write(providers.AppendMessagesBlockStopEvent(nil, b.out))
			}
		}
		if f.kind == msgBlockStop && b != nil && b.text && s.tail == nil {
			// Perhaps the answer's last text: its stop waits.
			s.tail = b
		}
	case msgDelta:
		return s.emitMessageDelta(ctx, f)
	case msgError:
		if err := s.releaseTail(); err != nil {
			return err
		}
		return s.write(f.raw)
	case msgStop:
		if !s.settled {
			// A message that never sent message_delta: the notes still
			// go out, pre_response does not run.
			if err := s.settle(ctx, false); err != nil {
				return err
			}
		}
		if err := s.releaseTail(); err != nil {
			return err
		}
		if err := s.write(f.raw); err != nil {
			return err
		}
		if s.final {
			s.final = false
			s.x.m.loop.answered(ctx, s.x.id, string(s.text))
		}
		return nil
	}
	return s.writeEvent(f)
}

// writeEvent writes an event as it came, or re-encoded with its block's
// new index when the block moved.
func (s *messagesStream) writeEvent(f *msgFrame) error {
	b := f.block
	if b == nil || b.out < 0 || b.out == b.up {
		return s.put(f.raw)
	}
	data, err := providers.SetMessagesEventIndex(f.data, b.out)
	if err != nil {
		return s.fail("hookgate_error", "hookgate could not renumber a content block", err)
	}
	return s.put(providers.FrameMessagesEvent(providers.ContentBlockDelta, data))
}

// put writes an event, or keeps a copy of it behind the held stop of the
// last text block.
func (s *messagesStream) put(b []byte) error {
	if s.tail != nil {
		s.tailOut = append(s.tailOut, b...)
		return nil
	}
	return s.write(b)
}

// releaseTail writes the held stop of a text block, and what came after
// it, as they came: the block was not the answer's last text.
func (s *messagesStream) releaseTail() error {
	if s.tail == nil {
		return nil
	}
	s.tail = nil
	out := s.tailOut
	s.tailOut = nil
	return s.write(out)
}

// settle ends the answer's text: the notes of the blocked calls, and
// pre_response's text when disclaim (for a final answer, or every answer
// under pre_response_on_tool_calls), join the held last text block as one
// more text_delta before its stop, or, when no text block is held, go out
// as one text block of their own.
func (s *messagesStream) settle(ctx context.Context, disclaim bool) error {
	s.settled = true
	shown, disclaimer, err := s.x.m.loop.settleAnswer(ctx, &s.x.exchangeState, &s.added, s.text, s.final, disclaim)
	if err != nil {
		return s.fail("hook_failed", err.Error(), errHookFailed)
	}
	s.text = shown
	tail := s.tail
	text := s.added.joined(disclaimer, tail != nil && tail.spoke)
	if text == "" {
		return s.releaseTail()
	}
	if disclaimer != "" {
		if len(s.text) > 0 {
			s.text = appendCapped(s.text, []byte("\n\n"), maxAnswerText)
		}
		s.text = appendCapped(s.text, []byte(disclaimer), maxAnswerText)
	}
	if tail == nil {
		out := providers.AppendMessagesTextBlockEvents(nil, s.nextOut, text)
		s.nextOut++
		return s.write(out)
	}
	if err := s.write(providers.AppendMessagesTextDeltaEvent(nil, tail.out, text)); err != nil {
		return err
	}
	return s.releaseTail()
}

// emitMessageDelta writes the message's closing delta once every block is
// out: first the answer's end (settle), then the delta itself, with
// stop_reason end_turn when every tool_use was blocked.
func (s *messagesStream) emitMessageDelta(ctx context.Context, f *msgFrame) error {
	s.final = s.survived == 0
	if !s.settled {
		if err := s.settle(ctx, true); err != nil {
			return err
		}
	}
	if err := s.releaseTail(); err != nil {
		return err
	}
	if s.toolUses == 0 || s.blocked < s.toolUses || gjson.GetBytes(f.data, "delta.stop_reason").String() != "tool_use" {
		return s.write(f.raw)
	}
	data, err := providers.SetMessagesStopReason(f.data, "end_turn")
	if err != nil {
		return s.fail("hookgate_error", "hookgate could not rewrite stop_reason", err)
	}
	return s.write(providers.FrameMessagesEvent(providers.MessageDelta, data))
}

// fail ends the stream with an Anthropic error event naming the cause.
func (s *messagesStream) fail(code, message string, cause error) error {
	if err := s.write(messagesFailEvent(code, message)); err != nil {
		return err
	}
	if err := s.client.Flush(); err != nil {
		return err
	}
	return cause
}

func (s *messagesStream) onRead(ctx context.Context, r readResult) error { return s.feed(ctx, r, s) }

// holding reports a tool block still held from the client.
func (s *messagesStream) holding() bool { return len(s.queue) > 0 }
