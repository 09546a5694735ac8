package interceptors

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// chatStream relays one streamed chat completion while hooks watch it.
//
// Text and everything else that is not a tool call goes to the client the
// moment it arrives. Tool-call deltas are held per call until the call is
// complete (its response finished, or its arguments already form a JSON
// value and another call has started); then pre_tool_use judges it, on its
// own goroutine, while the stream goes on. Calls are emitted in their
// original order: as the bytes that came when nothing about them changed,
// otherwise as one synthesised delta per call, re-indexed contiguously,
// with a note in place of each blocked call. The finish, and whatever
// follows it, waits behind the held calls.
type chatStream struct {
	eventRelay
	x     *chatExchange
	chunk providers.ChatChunk

	choices []*choiceState
	calls   []*heldCall // every call of the response, in start order
	next    int         // the first call not yet emitted
	queue   []*queuedFrame
	judged  chan *heldCall
	judging int

	template   []byte // the first chunk's payload, to encode notes and appended text
	responseID string

	keepText bool // the answer's text is needed: pre_response, stop, retries
	unheld   bool // tool calls go out as they come (unheld_calls.go)
	terminal bool // [DONE], a finish, or an in-band error was seen
	errored  bool // an in-band error was passed on: later events are not
	done     bool // [DONE] was seen: any later data event ends the stream

	retry retryState
}

// choiceState is one choice of the response.
type choiceState struct {
	index    int
	asm      *providers.ToolCallAssembler
	calls    []*heldCall // by ordinal
	finished bool
	blocked  int
	survived int
	shifted  bool // a call of this choice was blocked: later ones are re-indexed
	// unwatched: an unheld call of this choice could not be assembled; its
	// calls go on unseen by the dry-run hooks.
	unwatched bool
	// spoke and endsLine track what the client was shown (text and notes)
	// whether or not the text itself is kept, so that a block note starts
	// on a line of its own.
	spoke, endsLine bool
	text            []byte // what the client was shown: upstream text and notes
	said            []byte // the upstream's text alone
	notes           []string
	blockedCalls    []*heldCall
}

// heldFrame is an SSE event that carried tool-call deltas.
type heldFrame struct {
	raw     []byte // the event's bytes; nil when it cannot go out as it came
	data    []byte // its payload, a template for re-encoding
	calls   []*heldCall
	finish  []int // choices whose finish_reason it carries
	emitted bool
}

// heldCall is one tool call being held.
type heldCall struct {
	choice   *choiceState
	ordinal  int
	id, name string
	args     []byte
	template []byte
	frames   []*heldFrame
	complete bool
	resolved bool
	emitted  bool
	raw      int8 // 0 undecided, 1 emit the frames as they came, -1 synthesise
	v        verdict
	span     trace.Span // nil when not traced (held_span.go)
}

// queuedFrame is an event that must follow the held calls: a finish, what
// comes after it (usage, [DONE]) and in-band errors.
type queuedFrame struct {
	raw    []byte
	data   []byte
	finish []int
}

func newChatStream(x *chatExchange, client Sink, reqBody []byte) *chatStream {
	return &chatStream{
		x:          x,
		eventRelay: newEventRelay(client, x.chat.opts.MaxEventBytes, x.chat.opts.MaxStreamBytes, &x.work),
		judged:     make(chan *heldCall, 16),
		retry:      retryState{reqBody: reqBody},
		keepText: x.retryPossible() || x.chat.has(hooks.PreResponse) || x.chat.has(hooks.Stop) ||
			x.chat.has(hooks.SubagentStop),
		unheld: x.callsUnheld(),
	}
}

// readResult is one read from the upstream, handed from the reader.
type readResult struct {
	buf *[]byte
	n   int
	err error
}

// run relays the stream. Reading happens on its own goroutine so that
// judgements that finish while the upstream is silent are emitted at once,
// and heartbeats go out while a call is held.
func (s *chatStream) run(ctx context.Context, upstream io.Reader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The reader may be blocked in Read; the proxy closes the upstream body
	// after run returns, which releases it.
	reads := startUpstreamReads(ctx, upstream)

	heartbeat := time.NewTicker(s.x.chat.opts.Heartbeat)
	defer heartbeat.Stop()
	err := serveHeld(ctx, s, s.judged, &s.judging, func(c *heldCall) { c.resolved = true }, reads, heartbeat.C)
	s.cancelJudging(cancel)
	for _, c := range s.calls {
		if !c.emitted {
			s.x.held(-1) // never emitted: truncated, failed or retried
			abandonHeldSpan(c.span)
		}
	}
	return err
}

// cancelJudging stops the hooks still running and waits for them, so no
// goroutine outlives the stream.
func (s *chatStream) cancelJudging(cancel context.CancelFunc) {
	cancel()
	for s.judging > 0 {
		<-s.judged
		s.judging--
	}
}

// holding reports whether a tool call is held.
func (s *chatStream) holding() bool { return s.next < len(s.calls) }

// onEnd handles the end of the upstream body: the last events, then
// either every open call completed for judgement (a complete stream) or a
// truncation error (the held partial calls are never emitted).
func (s *chatStream) onEnd(ctx context.Context, readErr error) error {
	complete, err := s.endUpstream(ctx, readErr, s, &s.terminal, "the upstream stream ended before it finished")
	if complete {
		s.completeAll(ctx)
	}
	return err
}

// finish emits what was held once every call has been judged, then the
// bytes of an unterminated last event as they came.
func (s *chatStream) finish(ctx context.Context) error {
	if err := s.flush(ctx); err != nil {
		return err
	}
	if s.retry.deciding {
		return errRetry
	}
	return s.writeTail()
}

// onFrame routes one SSE event.
func (s *chatStream) onFrame(ctx context.Context, f *providers.SSEFrame) error {
	if s.retry.deciding {
		// A retry was decided: the rest of this answer is not shown; only
		// its usage is kept, to be added to the continuation's.
		if f.HasData() && !f.Done && s.chunk.Decode(f.Data) == nil && s.chunk.HasUsage() {
			s.retry.lastUsage = clone(s.chunk.Usage.Raw)
		}
		return nil
	}
	if s.done && f.HasData() {
		// Nothing follows [DONE]. A client that reads on (or a proxy
		// between) would take a chunk hookgate never judged.
		return s.fail("unreadable_chunk", "the upstream sent an event after [DONE]", errEventAfterDone)
	}
	if !f.HasData() {
		return s.passOrQueue(f.Raw, nil, nil)
	}
	if f.Done {
		s.done = true
		// Some providers never set a finish_reason: [DONE] finishes every
		// choice still open.
		s.terminal = true
		var open []int
		for _, cs := range s.choices {
			if !cs.finished {
				open = append(open, cs.index)
			}
		}
		s.finishChoices(ctx, open)
		return s.passOrQueue(f.Raw, nil, open)
	}
	if string(f.Event) == "error" {
		// The upstream's own error ends the answer: it is passed on, and
		// nothing after it is (a call after an error would reach some
		// clients unjudged).
		if mentionsCall(f.Data) {
			// Some clients ignore the event name and read the data.
			return s.fail("unreadable_chunk", "the upstream sent an error event that also carries a tool call", errErrorWithCall)
		}
		s.terminal, s.errored = true, true
		return s.passOrQueue(f.Raw, nil, nil)
	}
	if s.errored {
		return nil
	}
	if err := s.chunk.Decode(f.Data); err != nil {
		if providers.IsAmbiguousKey(err) || errors.Is(err, providers.ErrUnjudgedCall) ||
			errors.Is(err, providers.ErrBadIndex) || mentionsCall(f.Data) {
			// A chunk hookgate cannot read that an agent may still read
			// (a repeated key: JSON decoders keep the last one), a call in a
			// place or shape hookgate does not judge, or an index clients
			// read differently could carry a call past the hooks: the
			// stream stops here instead.
			return s.fail("unreadable_chunk", "the upstream sent a chunk hookgate cannot read, and it may carry a tool call", err)
		}
		// Other malformed upstream JSON is relayed as it came.
		return s.passOrQueue(f.Raw, nil, nil)
	}
	if s.chunk.HasUsage() {
		if s.x.retryPossible() {
			s.retry.lastUsage = clone(s.chunk.Usage.Raw)
		}
		s.x.noteUsage(ctx, s.chunk.Usage.Raw)
	}
	if s.retry.continuing() {
		cont, err := s.continuationFrame(f)
		if err != nil {
			return s.fail("hookgate_error", "hookgate could not continue the response after a retry", err)
		}
		f = cont
	}
	if s.template == nil && len(s.chunk.Choices) > 0 {
		// Azure's first chunk has no choices and an empty id: the first
		// chunk with a choice is the template.
		s.template = clone(f.Data)
		s.responseID = gjsonString(s.template, "id")
	}
	if s.chunk.HasError() {
		if s.chunk.HasToolCalls() {
			// "error": false beside a call: some clients read the call.
			return s.fail("unreadable_chunk", "the upstream sent an error chunk that also carries a tool call", errErrorWithCall)
		}
		s.terminal, s.errored = true, true
		return s.passOrQueue(f.Raw, nil, nil)
	}
	var finish []int
	for i := range s.chunk.Choices {
		ch := &s.chunk.Choices[i]
		cs := s.choice(ch.Index)
		if ch.HasContent() {
			cs.spoke, cs.endsLine = true, ch.Content.EndsWithNewline()
		}
		if ch.HasContent() && s.keepText {
			text := ch.Content.AppendText(nil)
			cs.text = appendCapped(cs.text, text, maxAnswerText)
			cs.said = appendCapped(cs.said, text, maxAnswerText)
		}
		if ch.Finished() {
			finish = append(finish, ch.Index)
			// Some providers send no [DONE]: a finish ends the stream.
			s.terminal = true
		}
	}
	if !s.chunk.HasToolCalls() {
		if len(finish) == 0 {
			if s.holding() && !carriesContent(&s.chunk) {
				// Nothing a reader waits for: keep it in order behind the
				// held calls, so allowed calls go out exactly as they came.
				s.queue = append(s.queue, &queuedFrame{raw: clone(f.Raw)})
				return nil
			}
			return s.passOrQueue(f.Raw, nil, nil)
		}
		data := clone(f.Data)
		s.finishChoices(ctx, finish)
		return s.passOrQueue(f.Raw, data, finish)
	}
	return s.holdToolFrame(ctx, f, finish)
}

// holdToolFrame holds an event carrying tool-call deltas. Text it also
// carries goes out at once, re-encoded without the tool calls; such a frame
// can then no longer be emitted as it came. Other members (role, reasoning,
// provider extras) stay with the held event.
func (s *chatStream) holdToolFrame(ctx context.Context, f *providers.SSEFrame, finish []int) error {
	if s.unheld {
		return s.relayToolFrame(ctx, f, finish)
	}
	hf := &heldFrame{raw: clone(f.Raw), data: clone(f.Data), finish: finish}
	for i := range s.chunk.Choices {
		ch := &s.chunk.Choices[i]
		if len(ch.ToolCalls) > 0 && ch.HasContent() && len(finish) == 0 {
			rest, meaningful, err := providers.StripToolCalls(hf.data)
			if err == nil && meaningful {
				if err := s.write(providers.FrameSSEData(rest)); err != nil {
					return err
				}
				hf.raw = nil
			}
			break
		}
	}
	for i := range s.chunk.Choices {
		ch := &s.chunk.Choices[i]
		if len(ch.ToolCalls) == 0 {
			continue
		}
		cs := s.choice(ch.Index)
		completed, err := cs.asm.Add(f.Seq, ch.ToolCalls)
		if err != nil {
			return s.fail("invalid_tool_call", "the upstream sent a tool call hookgate cannot hold: "+err.Error(), err)
		}
		for ord := len(cs.calls); ord < cs.asm.Len(); ord++ {
			c := &heldCall{choice: cs, ordinal: ord, template: hf.data, span: startHeldSpan(ctx)}
			cs.calls = append(cs.calls, c)
			s.calls = append(s.calls, c)
			s.x.held(1)
		}
		for _, c := range cs.calls {
			fr := cs.asm.Call(c.ordinal).Frames
			if len(fr) > 0 && fr[len(fr)-1] == f.Seq && !containsFrame(c.frames, hf) {
				c.frames = append(c.frames, hf)
				hf.calls = append(hf.calls, c)
			}
		}
		for _, ord := range completed {
			s.judge(ctx, cs.calls[ord])
		}
	}
	if len(finish) > 0 {
		s.finishChoices(ctx, finish)
	}
	return nil
}

// passOrQueue writes an event at once (text is never delayed by a held
// call), unless it finishes a choice or the response has finished while
// calls are held: then it waits its turn behind them.
func (s *chatStream) passOrQueue(raw, data []byte, finish []int) error {
	if len(finish) == 0 && len(s.queue) == 0 && !s.terminalPending() {
		return s.write(raw)
	}
	s.queue = append(s.queue, &queuedFrame{raw: clone(raw), data: data, finish: finish})
	return nil
}

var errErrorWithCall = errors.New("an error chunk carries a tool call")

var errEventAfterDone = errors.New("an event after [DONE]")

// mentionsCall reports data that names a tool call in any letter case.
func mentionsCall(data []byte) bool {
	lower := bytes.ToLower(data)
	return bytes.Contains(lower, []byte("tool_calls")) || bytes.Contains(lower, []byte("function_call"))
}

// carriesContent reports a chunk with text or another meaningful delta
// member (reasoning, refusal), which goes to the client at once.
func carriesContent(c *providers.ChatChunk) bool {
	for i := range c.Choices {
		if c.Choices[i].HasContent() || c.Choices[i].Other {
			return true
		}
	}
	return false
}

// terminalPending reports that the response has finished while calls are
// still held, so everything after must wait its turn.
func (s *chatStream) terminalPending() bool {
	if !s.holding() {
		return false
	}
	for _, cs := range s.choices {
		if cs.finished {
			return true
		}
	}
	return s.terminal
}

func (s *chatStream) choice(index int) *choiceState {
	for _, cs := range s.choices {
		if cs.index == index {
			return cs
		}
	}
	cs := &choiceState{index: index, asm: providers.NewToolCallAssembler(s.x.chat.opts.ToolLimits)}
	s.choices = append(s.choices, cs)
	return cs
}

// finishChoices completes every call of the finished choices.
func (s *chatStream) finishChoices(ctx context.Context, finish []int) {
	for _, idx := range finish {
		cs := s.choice(idx)
		if cs.finished {
			continue
		}
		cs.finished = true
		if cs.unwatched {
			continue
		}
		for _, ord := range cs.asm.Finish() {
			s.judge(ctx, cs.calls[ord])
		}
	}
}

// completeAll completes every call still open ([DONE], or the end of a
// stream whose provider never sets finish_reason).
func (s *chatStream) completeAll(ctx context.Context) {
	for _, cs := range s.choices {
		if !cs.asm.Finished() && !cs.unwatched {
			for _, ord := range cs.asm.Finish() {
				s.judge(ctx, cs.calls[ord])
			}
		}
	}
}

// judge starts pre_tool_use for a completed call on its own goroutine.
func (s *chatStream) judge(ctx context.Context, c *heldCall) {
	if c.complete {
		return
	}
	c.complete = true
	tc := c.choice.asm.Call(c.ordinal)
	c.id, c.name = tc.ID, tc.Name
	c.args = clone(tc.NormalizedArguments())
	ev := s.x.id.event(hooks.PreToolUse, s.responseID, c.id, strconv.Itoa(c.choice.index)+"/"+strconv.Itoa(c.ordinal))
	ev.ToolName, ev.ToolCallID = c.name, c.id
	if s.unheld {
		c.emitted = true
		c.choice.survived++
		s.x.observeUnheld(ctx, ev, c.args, s.x.chat.clock)
		return
	}
	nameHeldSpan(c.span, c.name, c.id)
	s.judging++
	engine := s.x.chat.opts.Engine
	go func() {
		c.v = judgeToolCall(heldContext(ctx, c.span), engine, ev, c.args)
		s.judged <- c
	}()
}

// fail ends the stream with an error event naming the cause.
func (s *chatStream) fail(code, message string, cause error) error {
	if err := s.write(providers.FrameSSEData(openAIError("upstream_error", code, message))); err != nil {
		return err
	}
	if err := s.client.Flush(); err != nil {
		return err
	}
	return cause
}

// maxAnswerText caps the answer text kept for pre_response and stop.
const maxAnswerText = 1 << 20

func appendCapped(dst, add []byte, limit int) []byte {
	if room := limit - len(dst); room < len(add) {
		add = add[:max(room, 0)]
	}
	return append(dst, add...)
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

func (s *chatStream) onRead(ctx context.Context, r readResult) error { return s.feed(ctx, r, s) }
