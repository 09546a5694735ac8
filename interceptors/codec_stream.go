package interceptors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// codecStream relays one streamed response of a codec's format while
// hooks watch it, over the codec's neutral frames.
//
// Frames go to the client in the order they came. A frame with calls is
// held until pre_tool_use has judged each of them, concurrently and while
// the stream goes on; so is every frame of a call streamed in pieces,
// from its start to its end, the call judged once complete
// (codec_pieces.go). Every frame after a held one waits behind it. The
// frame that ends the answer waits too, until the calls before it are
// out: only then is it known whether the answer is final, and the notes of
// the blocked calls and pre_response's text join it (EditFrame).
//
// A judged frame goes out as the bytes that came when all its calls are
// allowed unchanged; otherwise re-encoded, blocked calls taken out and
// rewritten ones given their new arguments. A frame left with nothing
// once its calls are out is dropped. A stream is complete only once its
// answer ended (or the upstream sent its own error; for a format whose
// stream completes apart, once its completing frame came, and the codec
// stream reads it as not truncated, codec_text_tail.go); one that stops
// before, or that the codec cannot read, ends with the format's error
// frame, and what was still held is never written.
//
// When every pre_tool_use hook in scope is a dry run, calls are not held:
// their frames go out as they come and each complete call is judged on
// the side (unheld_calls.go).
type codecStream struct {
	x      *codecExchange
	client Sink
	codec  providers.Codec
	stream providers.CodecStream

	queue   []*codecFrame // frames waiting behind a held one, in order
	judged  chan *codecCall
	judging int
	scratch providers.CodecFrame // the frame being read, when not held
	pre     *codecFrame          // the frame being read, decoded on bytes of its own (codec_decode_once.go)
	unheld  bool                 // calls go out as they come (unheld_calls.go)

	// pieces are the calls streamed in pieces, in start order; open, by
	// key, the latest started with each key.
	pieces []*codecCall
	open   map[string]*codecCall
	// slots maps the slots the upstream named to the client's (-1: a
	// removed call's); nextSlot is the number the next slot opened gets.
	slots    map[int]int
	nextSlot int

	calls, survived int
	text            []byte // the answer text the client was shown
	added           answerAdditions
	ended           bool   // a frame that ends the answer was seen
	final           bool   // the answer ended with no call reaching the client
	shown           []byte // what stop reads, once the answer is final
	relayed         int64
	out             []byte // bytes for the client, reused

	// completed: a frame that completes the stream was seen; settled: the
	// notes and pre_response's text went out (codec_text_tail.go).
	completed, settled bool
	// textSlots is the codec when its answer text sits in slots
	// (codec_text_tail.go); tail is the text slot whose closing frame
	// waits, and spoken the client's slots that carried text.
	textSlots providers.TextSlotCodec
	tail      *codecTail
	spoken    map[int]bool
}

// codecFrame is a frame on its way to the client. A held one owns its
// bytes; one passed at once aliases the codec's buffer.
type codecFrame struct {
	raw, payload []byte
	f            providers.CodecFrame
	calls        []*codecCall
	pending      int          // calls not judged yet
	piece        *codecCall   // the streamed call the frame belongs to
	unheld       bool         // its calls went out unjudged (unheld_calls.go)
	repeats      frameRepeats // calls an end frame repeats (codec_repeats.go)
}

// ready reports a frame whose calls are judged: it may go out.
func (fr *codecFrame) ready() bool {
	return fr.pending == 0 && (fr.piece == nil || fr.piece.judged || fr.piece.abandoned)
}

// codecCall is one call of a held frame, or a call streamed in pieces
// (frame nil; codec_pieces.go).
type codecCall struct {
	frame *codecFrame
	i     int
	v     verdict
	span  trace.Span // nil when not traced (held_span.go)
	streamedCall
}

func newCodecStream(x *codecExchange, client Sink) *codecStream {
	s := &codecStream{x: x, client: client, codec: x.c.codec, judged: make(chan *codecCall, 16)}
	s.textSlots, _ = x.c.codec.(providers.TextSlotCodec)
	return s
}

// run relays the stream until it has ended and every held frame is out,
// the client has gone, or ctx is done. An exchange whose response no hook
// watches is relayed as it comes.
func (s *codecStream) run(ctx context.Context, upstream io.Reader) error {
	opts := &s.x.c.loop.opts
	if !s.x.c.loop.watchesResponse(s.x.hooked) {
		return relayRaw(ctx, upstream, s.client, opts.MaxStreamBytes)
	}
	s.stream = s.codec.NewStream(s.x.view, opts.MaxEventBytes)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reads := startUpstreamReads(ctx, upstream)
	heartbeat := time.NewTicker(opts.Heartbeat)
	defer heartbeat.Stop()
	s.unheld = s.x.callsUnheld()
	err := serveHeld(ctx, s, s.judged, &s.judging, resolveCodecCall, reads, heartbeat.C)
	// Stop the hooks still running and wait for them, so no goroutine
	// outlives the stream.
	cancel()
	for ; s.judging > 0; s.judging-- {
		<-s.judged
	}
	for _, fr := range s.queue {
		if fr.unheld {
			continue
		}
		s.x.held(-len(fr.calls)) // never written: truncated, failed or abandoned
		for _, c := range fr.calls {
			abandonHeldSpan(c.span)
		}
	}
	s.abandonPieces()
	return err
}

// resolveCodecCall marks a call judged.
func resolveCodecCall(c *codecCall) {
	if c.frame != nil {
		c.frame.pending--
		return
	}
	c.judged = true
}

// onRead takes one read of the upstream body.
func (s *codecStream) onRead(ctx context.Context, r readResult) error {
	if r.n == 0 {
		return nil
	}
	start := time.Now()
	defer func() { s.x.work += time.Since(start) }()
	s.relayed += int64(r.n)
	if max := s.x.c.loop.opts.MaxStreamBytes; max > 0 && s.relayed > max {
		return s.fail("stream_too_large", fmt.Sprintf("the upstream stream exceeded hookgate's limit of %d bytes (limits.max_stream_bytes)", max), errStreamTooLarge)
	}
	s.stream.Feed((*r.buf)[:r.n])
	if err := s.drain(ctx); err != nil {
		return err
	}
	return s.client.Flush()
}

// onEnd handles the end of the upstream body: the last frames, then a
// truncation error for a stream whose answer never ended or whose framing
// is unfinished.
func (s *codecStream) onEnd(ctx context.Context, readErr error) error {
	if !errors.Is(readErr, io.EOF) {
		return s.fail("stream_truncated", "the upstream connection failed before the stream finished", fmt.Errorf("%w: %v", ErrTruncated, readErr))
	}
	s.stream.End()
	if err := s.drain(ctx); err != nil {
		return err
	}
	if s.stream.Truncated() {
		return s.fail("stream_truncated", "the upstream stream ended inside a frame", ErrTruncated)
	}
	if !s.ended {
		return s.fail("stream_truncated", "the upstream stream ended before its answer did", ErrTruncated)
	}
	return nil
}

// drain reads every whole frame buffered in the codec.
func (s *codecStream) drain(ctx context.Context) error {
	for {
		raw, payload, ok, err := s.stream.Next()
		if err != nil {
			var refusal *providers.StreamRefusal
			if errors.As(err, &refusal) {
				return s.fail(refusal.Code, refusal.Message, refusal.Err)
			}
			return s.fail("unreadable_event", "hookgate refused the upstream stream: "+err.Error(), err)
		}
		if !ok {
			return nil
		}
		if err := s.onFrame(ctx, raw, payload); err != nil {
			return err
		}
	}
}

// onFrame routes one frame. A frame is refused (the stream ends with the
// error frame) when the codec cannot read it, when it names a call after
// the answer ended, or when it carries more calls or larger arguments
// than hookgate holds.
func (s *codecStream) onFrame(ctx context.Context, raw, payload []byte) error {
	if s.completed && len(payload) > 0 {
		return s.fail("event_after_end", refusedAfterEnd, errEventAfterEnd)
	}
	f := &s.scratch
	s.pre = nil
	if len(s.queue) > 0 {
		// It waits behind a held frame whatever it carries: read once, on
		// the bytes it is queued with.
		s.pre = &codecFrame{}
		s.pre.raw, s.pre.payload = cloneFrame(raw, payload)
		raw, payload, f = s.pre.raw, s.pre.payload, &s.pre.f
	}
	if err := s.decode(payload, f); err != nil {
		if providers.IsAmbiguousKey(err) {
			return s.fail("unreadable_event", "the upstream sent a frame whose keys clients read differently, so what it carries could not be judged", err)
		}
		return s.fail("unreadable_event", refusedUnreadable, err)
	}
	if s.ended && (len(f.Calls) > 0 || len(f.Text) > 0 || f.Piece.Part != providers.PieceNone) {
		return s.fail("event_after_end", refusedAfterEnd, errEventAfterEnd)
	}
	s.keepText(f.Text)
	if len(f.Usage) > 0 {
		s.x.noteUsage(ctx, f.Usage)
	}
	if f.Piece.Part != providers.PieceNone {
		return s.onPiece(ctx, raw, payload, f)
	}
	if f.Error {
		s.abandonOpen() // calls it cut short are never written
	}
	if f.Ends || f.Completes && !s.ended {
		s.ended = true
		s.completeOpen(ctx)
	}
	s.completed = s.completed || f.Completes
	if len(f.Calls) == 0 && !f.Ends && !f.Completes {
		return s.passOrQueue(raw, payload, f)
	}
	return s.hold(ctx, raw, payload)
}

// passOrQueue writes a frame that holds nothing at once, or queues a copy
// of it behind a held one.
func (s *codecStream) passOrQueue(raw, payload []byte, f *providers.CodecFrame) error {
	if len(s.queue) == 0 {
		return s.emitPassing(raw, payload, f)
	}
	if fr := s.takePre(); fr != nil {
		fr.f.Meaningful = true
		s.queue = append(s.queue, fr)
		return nil
	}
	fr := &codecFrame{f: providers.CodecFrame{Meaningful: true}}
	fr.raw, fr.payload = cloneFrame(raw, payload)
	if f.Slot.Set {
		// Its slot may move before it goes out: keep its reading.
		if err := s.decode(fr.payload, &fr.f); err != nil {
			return s.fail("unreadable_event", refusedUnreadable, err)
		}
	}
	s.queue = append(s.queue, fr)
	return nil
}

// emitPassing writes a frame that holds no call: as it came, or with its
// slot renumbered.
func (s *codecStream) emitPassing(raw, payload []byte, f *providers.CodecFrame) error {
	if f.Slot.Set {
		return s.emitSlotted(raw, payload, f)
	}
	return s.putRaw(raw, payload)
}

// hold queues a frame that carries calls or ends the answer, on bytes of
// its own, and starts judging its calls.
func (s *codecStream) hold(ctx context.Context, raw, payload []byte) error {
	fr, err := s.ownFrame(raw, payload)
	if err != nil {
		return err
	}
	if fr.f.Repeats {
		if err := s.takeRepeats(fr); err != nil {
			return err
		}
	}
	limits := &s.x.c.loop.opts.ToolLimits
	if s.calls+len(fr.f.Calls) > maxOr(limits.MaxCalls, providers.DefaultMaxToolCalls) {
		return s.fail("invalid_tool_call", fmt.Sprintf("the upstream sent more than %d tool calls in one answer", maxOr(limits.MaxCalls, providers.DefaultMaxToolCalls)), providers.ErrTooManyToolCalls)
	}
	for i := range fr.f.Calls {
		if n, limit := len(fr.f.Calls[i].Args), maxOr(limits.MaxArgumentsBytes, providers.DefaultMaxToolArguments); n > limit {
			err := fmt.Errorf("tool call %s: arguments of %d bytes, limit %d: %w", fr.f.Calls[i].Name, n, limit, providers.ErrArgumentsTooLarge)
			return s.fail("invalid_tool_call", "the upstream sent a tool call hookgate cannot hold: "+err.Error(), err)
		}
	}
	s.calls += len(fr.f.Calls)
	s.queue = append(s.queue, fr)
	if s.unheld {
		return s.relayUnheld(ctx, fr)
	}
	s.x.held(len(fr.f.Calls))
	for i := range fr.f.Calls {
		c := &codecCall{frame: fr, i: i, span: startHeldSpan(ctx)}
		nameHeldSpan(c.span, fr.f.Calls[i].Name, fr.f.Calls[i].ID)
		fr.calls = append(fr.calls, c)
		if !s.x.c.loop.has(hooks.PreToolUse) {
			c.v = verdict{Decision: hooks.Allow, Arguments: fr.f.Calls[i].Args}
			continue
		}
		fr.pending++
		s.judging++
		ev := s.x.callEvent(&fr.f.Calls[i])
		args := fr.f.Calls[i].Args
		go func() {
			c.v = judgeToolCall(heldContext(ctx, c.span), s.x.c.loop.opts.Engine, ev, args)
			s.judged <- c
		}()
	}
	return s.flush(ctx)
}

// flush writes the frames at the head of the queue whose calls are all
// judged.
func (s *codecStream) flush(ctx context.Context) error {
	for len(s.queue) > 0 && s.queue[0].ready() {
		fr := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		var err error
		switch {
		case fr.piece != nil:
			err = s.emitPiece(fr)
		case fr.f.Slot.Set:
			err = s.emitSlotted(fr.raw, fr.payload, &fr.f)
		default:
			err = s.emit(ctx, fr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// emit writes one judged frame: as it came, or re-encoded with the
// decisions on its calls and, at the end of the answer, the notes and
// pre_response's text.
func (s *codecStream) emit(ctx context.Context, fr *codecFrame) error {
	var edits []providers.CallEdit
	kept := len(fr.f.Calls) // unheld: every call went out
	if !fr.unheld {
		edits, kept = s.x.decide(fr.f.Calls, verdictsOf(fr.calls), &s.added)
		edits = s.repeatEdits(fr, edits)
		s.x.held(-len(fr.calls))
		for _, c := range fr.calls {
			endHeldSpan(c.span, &c.v)
		}
	}
	s.survived += kept
	text := ""
	// quiet: a stream completed with no frame ending its answer before:
	// the notes go out, pre_response does not run.
	quiet := fr.f.Completes && !fr.f.Ends && !fr.f.Error && !s.settled
	if fr.f.Ends && !fr.f.Error || quiet {
		s.settled = true
		final := s.survived == 0 && !quiet
		shown, disclaimer, err := s.x.c.loop.settleAnswer(ctx, &s.x.exchangeState, &s.added, s.text, final, s.x.mayDisclaim() && !quiet)
		if err != nil {
			return s.fail("hook_failed", err.Error(), errHookFailed)
		}
		text = s.added.joined(disclaimer, s.joinsSpokenText())
		s.added = answerAdditions{}
		if final {
			s.final, s.shown = true, shown
		}
		fr.f.CallsRemoved = s.calls > 0 && s.survived == 0
	}
	if s.textSlots != nil && (fr.f.Ends || fr.f.Completes || fr.f.Error) {
		// The text goes into the answer's last text slot, or one of its
		// own; a frame that repeats the answer repeats it there.
		joined, err := s.endText(text)
		if err != nil {
			return err
		}
		if _, repeats := s.codec.(providers.TextRepeatCodec); repeats && text != "" {
			fr.f.TextJoined = joined
		} else {
			text = ""
		}
	}
	ends := fr.f.Ends || fr.f.Completes
	if len(edits) == 0 && text == "" && !fr.f.CallsRemoved {
		s.x.ending(ends, fr.payload)
		return s.putRaw(fr.raw, fr.payload)
	}
	if kept == 0 && text == "" && !fr.f.Meaningful {
		return nil // nothing but blocked calls: nothing to write
	}
	payload, err := s.codec.EditFrame(fr.payload, &fr.f, edits, text)
	if err != nil {
		return s.fail("hookgate_error", "hookgate could not re-encode a frame", err)
	}
	s.x.ending(ends, payload)
	return s.putFrame(payload)
}

// finish ends the stream once the upstream is done and every frame is
// out: the format's closing bytes, then stop for a final answer.
func (s *codecStream) finish(ctx context.Context) error {
	if err := s.flush(ctx); err != nil {
		return err
	}
	if err := s.releaseTail(); err != nil {
		return err
	}
	s.out = s.stream.Close(s.out[:0])
	if _, err := s.client.Write(s.out); err != nil {
		return err
	}
	if err := s.client.Flush(); err != nil {
		return err
	}
	if s.final {
		s.x.c.loop.answered(ctx, s.x.id, string(s.shown))
	}
	return nil
}

func (s *codecStream) holding() bool { return len(s.queue) > 0 && !s.queue[0].ready() }

// heartbeat tells the client a call is held, where the format has a way.
func (s *codecStream) heartbeat() error {
	hb := s.stream.Heartbeat()
	if hb == nil {
		return nil
	}
	if _, err := s.client.Write(hb); err != nil {
		return err
	}
	return s.client.Flush()
}

func (s *codecStream) flushClient() error { return s.client.Flush() }

// fail tells the client, in-band, why the stream stops, and returns
// cause. Nothing is written after it.
func (s *codecStream) fail(code, message string, cause error) error {
	s.out = s.stream.ErrorFrame(s.out[:0], code, message)
	if _, err := s.client.Write(s.out); err != nil {
		return err
	}
	if err := s.client.Flush(); err != nil {
		return err
	}
	return cause
}

// keepText adds answer text to what the client was shown, up to the cap.
func (s *codecStream) keepText(t []byte) {
	if len(t) > 0 && len(s.text) < maxAnswerText {
		s.text = appendCapped(s.text, t, maxAnswerText)
	}
}

func verdictsOf(calls []*codecCall) []verdict {
	out := make([]verdict, len(calls))
	for i, c := range calls {
		out[i] = c.v
	}
	return out
}

func maxOr(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}
