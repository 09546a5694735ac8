package interceptors

import (
	"context"
	"fmt"
	"io"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// responsesStream relays one streamed Responses answer while hooks watch
// it.
//
// Events go to the client the moment they arrive, until a call item
// (function_call, custom_tool_call) begins: that item's events are held
// from output_item.added to output_item.done, and then pre_tool_use judges
// the call on its own goroutine while the stream goes on. Whatever comes
// after a held item waits behind it, in order: the SDKs build the output
// list by appending items as they are announced and address them by
// output_index, so no item may overtake an earlier one. Text before the
// first call is never delayed.
//
// A call allowed unchanged goes out as the bytes that came. A rewritten
// call goes out as its own events with the new input (one delta carrying
// it whole, the .done event and the done item patched). A blocked call
// goes out not at all: the items after it move up one output_index, and
// its note joins the answer's last text (answer_join.go). So the .done
// events of a message item's last output_text part (output_text.done,
// content_part.done, output_item.done, and whatever comes after them)
// wait until the next item begins or the response ends; at the end the
// notes and pre_response's text go into that part as one more
// output_text.delta, and the held .done events repeat the text with them.
// An answer without such a part gets one message item carrying them. The
// terminal event (response.completed, .incomplete, .failed) repeats the
// whole output: it is patched alike, and any call it lists that was never
// streamed is judged before it goes out. Once hookgate has added or
// dropped an event, every later sequence_number is rewritten so the
// numbers stay contiguous.
//
// When every pre_tool_use hook in scope is a dry run (callsUnheld), no
// call is held: see responses_unheld.go.
type responsesStream struct {
	eventRelay
	x  *responsesExchange
	ev providers.ResponsesEvent

	queue   []rsEntry // what waits behind a held call, in order
	calls   []*rsCall // every call of the response, in order
	open    []*rsCall // calls announced and not yet done
	judged  chan *rsCall
	judging int
	unheld  bool // calls go out as they come (responses_unheld.go)

	responseID string
	items      int    // output items announced (the next output_index)
	text       []byte // the answer text the agent was shown
	survived   int
	seq        rsSequence
	added      answerAdditions
	shift      int     // items dropped so far: later output_index values move up by it
	cur        *rsText // the message item the events written last belong to
	tail       *rsTail // the held end of the answer's last text, if any
	terminal   bool    // a terminal event, or an in-band error, was seen
	// ended: the response's last word (completed, incomplete, failed) was
	// seen; an event after it is refused. An error event is not that:
	// OpenAI follows it with response.failed, and clients stop at it.
	ended bool
}

// rsEntry is one place in the queue: an event, a call, or the terminal
// event with the response it carries.
type rsEntry struct {
	frame *rsFrame
	call  *rsCall
	final *providers.ResponsesResponse // set on the terminal event
	kind  providers.ResponsesEventKind
}

// rsFrame is one upstream event, with what re-encoding it needs.
type rsFrame struct {
	raw, data, event []byte
	seq              int64
	hasSeq           bool
	role             rsRole

	// What the frame does to the message items (answer_join.go): its
	// kind, output_index and content_index (-1 when absent), whether it
	// is about a message item (item events) or an output_text part (part
	// events), whether its text delta says something, and a message item's
	// id (its output_item.added only).
	kind       providers.ResponsesEventKind
	outIdx     int
	contentIdx int
	message    bool
	textPart   bool
	spoke      bool
	messageID  string
}

// rsText is a message item as written: its output_index upstream, its id,
// the content index of its latest output_text part (-1 when none, or when
// another kind of part followed it) and whether that part has text.
type rsText struct {
	up, last int
	itemID   string
	spoke    bool
}

// rsTail is the held end of the answer's last text: the message item and
// part, and the events from that part's first .done event on, each with
// the payload it was to be written with (nil: as it came).
type rsTail struct {
	text    rsText
	out     int // the item's output_index as the client sees it
	frames  []*rsFrame
	payload [][]byte
	shift   []int // the items dropped before each frame
}

// rsRole is the part an event plays in a held call.
type rsRole uint8

const (
	roleOther rsRole = iota
	roleAdded
	roleDelta
	roleDone
	roleItemDone
)

func (f *rsFrame) clone() *rsFrame {
	c := *f
	c.raw, c.data = clone(f.raw), clone(f.data)
	if f.event != nil {
		c.event = clone(f.event)
	}
	return &c
}

// rsCall is one call item being held.
type rsCall struct {
	kind        providers.ResponsesCallKind
	ordinal     int
	outputIndex int
	itemID      string
	callID      string
	name        string
	frames      []*rsFrame

	// The input as each source gave it: the added item's followed by the
	// deltas (what accumulators build), the .done event's, the done item's.
	built     []byte
	done      []byte
	hasDone   bool
	item      []byte
	hasItem   bool
	hasDelta  bool
	addedLen  int        // the length of the input the added item carried
	input     []byte     // the input judged, as the upstream sent it
	untracked bool       // listed only by the terminal event's output
	span      trace.Span // nil when not traced (held_span.go)

	complete bool
	resolved bool
	emitted  bool
	v        verdict
	// unwatched: an unheld call hookgate stopped assembling (over a
	// limit, or announced over another); its dry runs do not see it.
	unwatched bool
}

func (c *rsCall) add(f *rsFrame, role rsRole) {
	f.role = role
	c.frames = append(c.frames, f)
}

// rsSequence keeps the sequence numbers the client sees contiguous. Until
// hookgate adds or drops an event every event keeps its number (and its
// bytes); from then on each event gets the number after the last one
// written.
type rsSequence struct {
	numbered bool // the upstream numbers its events
	dirty    bool
	last     int64
}

// place returns the number an upstream event numbered n goes out with,
// and whether it differs from n.
func (q *rsSequence) place(n int64) (int64, bool) {
	if !q.dirty {
		q.last = n
		return n, false
	}
	q.last++
	return q.last, q.last != n
}

// next numbers an event hookgate adds (a providers.Sequencer).
func (q *rsSequence) next() (int64, bool) {
	if !q.numbered {
		return 0, false
	}
	q.dirty = true
	q.last++
	return q.last, true
}

// drop notes an upstream event that does not go out.
func (q *rsSequence) drop() { q.dirty = true }

func newResponsesStream(x *responsesExchange, client Sink) *responsesStream {
	return &responsesStream{
		x:          x,
		eventRelay: newEventRelay(client, x.r.loop.opts.MaxEventBytes, x.r.loop.opts.MaxStreamBytes, &x.work),
		judged:     make(chan *rsCall, 16),
		seq:        rsSequence{last: -1},
		unheld:     x.callsUnheld(),
	}
}

// run relays the stream: upstream reads, finished judgements and
// heartbeats, until the upstream has ended and every held call is out.
func (s *responsesStream) run(ctx context.Context, upstream io.Reader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reads := startUpstreamReads(ctx, upstream)
	heartbeat := time.NewTicker(s.x.r.loop.opts.Heartbeat)
	defer heartbeat.Stop()
	err := serveHeld(ctx, s, s.judged, &s.judging, func(c *rsCall) { c.resolved = true }, reads, heartbeat.C)
	cancel()
	for s.judging > 0 {
		<-s.judged
		s.judging--
	}
	for _, c := range s.calls {
		if !c.emitted {
			s.x.held(-1) // never emitted: truncated or failed
			abandonHeldSpan(c.span)
		}
	}
	return err
}

// holding reports a call that waits for its judgement.
func (s *responsesStream) holding() bool {
	for _, e := range s.queue {
		if e.call != nil && !e.call.resolved {
			return true
		}
	}
	return false
}

// onEnd handles the end of the upstream body: a stream that never reached
// its terminal event is truncated, and the calls it was holding are never
// emitted.
func (s *responsesStream) onEnd(ctx context.Context, readErr error) error {
	_, err := s.endUpstream(ctx, readErr, s, &s.terminal, "the upstream stream ended before it finished")
	return err
}

// finish emits what was held once every call has been judged, then the
// bytes of an unterminated last event as they came.
func (s *responsesStream) finish(ctx context.Context) error {
	if err := s.flush(ctx); err != nil {
		return err
	}
	return s.writeTail()
}

// onFrame routes one SSE event. An event with data is refused (the stream
// ends with an error event) when it comes after the terminal event, cannot
// be read, names itself twice differently, or carries a call where a client
// reads it and hookgate does not hold it (see providers/responses_calls.go).
func (s *responsesStream) onFrame(ctx context.Context, f *providers.SSEFrame) error {
	fr := rsFrame{raw: f.Raw, data: f.Data, event: f.Event, outIdx: -1, contentIdx: -1}
	if !f.HasData() {
		return s.pass(&fr)
	}
	if s.ended {
		if f.Done && f.Event == nil {
			return s.pass(&fr) // every client stops at it
		}
		return s.fail("event_after_end", refusedAfterEnd, errEventAfterEnd)
	}
	if f.Done {
		return s.pass(&fr)
	}
	ev := &s.ev
	if err := ev.Decode(f.Data); err != nil {
		// What hookgate cannot read might be a call a client can: fail closed.
		return s.fail("unreadable_event", refusedUnreadable, err)
	}
	if err := s.check(f); err != nil {
		return err
	}
	if ev.HasSequence {
		s.seq.numbered = true
		fr.seq, fr.hasSeq = ev.Sequence, true
	}
	s.classify(&fr)
	switch ev.Kind {
	case providers.RespCreated:
		s.responseID = ev.ResponseID().Text()
	case providers.RespItemAdded, providers.RespItemDone:
		if ev.Kind == providers.RespItemAdded {
			s.items++
		}
		if ev.HasOutputIndex && ev.OutputIndex >= s.items {
			s.items = ev.OutputIndex + 1
		}
		if kind := ev.Item.CallKind(); kind != providers.NotACall {
			if s.unheld {
				return s.relayCallItem(ctx, &fr, kind)
			}
			return s.onCallItem(ctx, &fr, kind)
		}
	case providers.RespArgsDelta, providers.RespArgsDone:
		if s.unheld {
			return s.relayCallInput(&fr)
		}
		return s.onCallInput(&fr)
	case providers.RespTextDelta:
		if len(s.text) < maxAnswerText {
			s.text = ev.Delta.AppendText(s.text)
		}
	case providers.RespCompleted, providers.RespIncomplete, providers.RespFailed:
		s.terminal, s.ended = true, true
		return s.onTerminal(ctx, &fr)
	case providers.RespError:
		s.terminal = true
	default:
		if c := s.openCall(); c != nil && !s.unheld {
			// Another event of a held item (a provider's own): it goes
			// with the item.
			c.add(fr.clone(), roleOther)
			return nil
		}
	}
	return s.pass(&fr)
}

// classify records what the frame does to the message items.
func (s *responsesStream) classify(fr *rsFrame) {
	ev := &s.ev
	fr.kind = ev.Kind
	if ev.HasOutputIndex {
		fr.outIdx = ev.OutputIndex
	}
	if ev.HasContentIndex {
		fr.contentIdx = ev.ContentIndex
	}
	switch ev.Kind {
	case providers.RespItemAdded, providers.RespItemDone:
		fr.message = ev.Item.Type.Equal("message")
		if fr.message && ev.Kind == providers.RespItemAdded {
			fr.messageID = ev.Item.ID.Text()
		}
	case providers.RespPartAdded, providers.RespPartDone:
		fr.textPart = ev.TextPart()
	case providers.RespTextDelta:
		fr.spoke = ev.Delta.NonEmpty()
	}
}

// check refuses an event that a client reads apart from hookgate: its two
// names differ, it carries a response snapshot with output before the end,
// or an item hookgate does not hold as a call.
func (s *responsesStream) check(f *providers.SSEFrame) error {
	ev := &s.ev
	if !providers.EventNameMatches(f.Event, ev.Type) {
		return s.fail("unreadable_event", refusedEventName, errEventName)
	}
	if !ev.Kind.HasResponse() {
		if err := providers.CheckResponsesSnapshot(ev.Response); err != nil {
			return s.fail("unreadable_event", "the upstream sent a response snapshot that already lists output items before the end, which clients build on and hookgate does not judge", err)
		}
	}
	if ev.Item.Raw == nil {
		return nil
	}
	if ev.Item.RunsUnjudged() && s.x.r.loop.has(hooks.PreToolUse) {
		return s.fail("unsupported_tool_call", "the upstream sent an item the agent would run ("+ev.Item.Type.Text()+") that hookgate cannot judge", errUnjudgedItem)
	}
	if ev.Kind != providers.RespItemAdded && ev.Kind != providers.RespItemDone && ev.Item.CallKind() != providers.NotACall {
		return s.fail("invalid_tool_call", "the upstream sent a call item in an event that does not add or finish an output item", errStrayItem)
	}
	return nil
}

// pass writes an event at once, unless something is held: then it waits
// its turn.
func (s *responsesStream) pass(fr *rsFrame) error {
	if len(s.queue) == 0 {
		return s.emitFrame(fr, nil)
	}
	s.queue = append(s.queue, rsEntry{frame: fr.clone()})
	return nil
}

// openCall returns the held call the current event belongs to, by
// output_index, else by item id.
func (s *responsesStream) openCall() *rsCall {
	ev := &s.ev
	for _, c := range s.open {
		if ev.HasOutputIndex {
			if c.outputIndex == ev.OutputIndex {
				return c
			}
			continue
		}
		if id := ev.ItemID; id.NonEmpty() && id.Equal(c.itemID) {
			return c
		}
		if id := ev.Item.ID; id.NonEmpty() && id.Equal(c.itemID) {
			return c
		}
	}
	return nil
}

func (s *responsesStream) closeOpen(c *rsCall) {
	for i, o := range s.open {
		if o == c {
			s.open = append(s.open[:i], s.open[i+1:]...)
			return
		}
	}
}

// startCall begins holding a call.
func (s *responsesStream) startCall(ctx context.Context, c *rsCall) error {
	if s.unheld {
		s.addUnheld(c)
		return nil
	}
	if limit := s.maxCalls(); len(s.calls) >= limit {
		return s.fail("invalid_tool_call", fmt.Sprintf("the upstream's response makes more than %d tool calls", limit), providers.ErrTooManyToolCalls)
	}
	c.ordinal = len(s.calls)
	s.calls = append(s.calls, c)
	s.queue = append(s.queue, rsEntry{call: c})
	s.x.held(1)
	c.span = startHeldSpan(ctx)
	if c.name != "" {
		nameHeldSpan(c.span, c.name, c.callID)
	}
	return nil
}

func (s *responsesStream) maxCalls() int {
	if n := s.x.r.loop.opts.ToolLimits.MaxCalls; n > 0 {
		return n
	}
	return providers.DefaultMaxToolCalls
}

func (s *responsesStream) maxArguments() int {
	if n := s.x.r.loop.opts.ToolLimits.MaxArgumentsBytes; n > 0 {
		return n
	}
	return providers.DefaultMaxToolArguments
}

// onCallItem handles output_item.added and .done of a call item.
func (s *responsesStream) onCallItem(ctx context.Context, fr *rsFrame, kind providers.ResponsesCallKind) error {
	ev := &s.ev
	c := s.openCall()
	if ev.Kind == providers.RespItemAdded {
		if c != nil {
			return s.fail("invalid_tool_call", "the upstream announced a second item at the output_index of a call it had not finished", providers.ErrCallAlreadyComplete)
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
		if err := s.startCall(ctx, c); err != nil {
			return err
		}
		c.add(fr.clone(), roleAdded)
		s.open = append(s.open, c)
		return nil
	}
	if c == nil {
		// Done without added: the item arrives whole.
		c = &rsCall{kind: kind, outputIndex: s.items - 1}
		if ev.HasOutputIndex {
			c.outputIndex = ev.OutputIndex
		}
		if err := s.startCall(ctx, c); err != nil {
			return err
		}
	}
	s.closeOpen(c)
	if c.kind != kind || c.renamedBy(&ev.Item) {
		return s.fail("invalid_tool_call", "the upstream finished a call item under another type, name or call_id than it began it with", errCallRenamed)
	}
	c.describe(&ev.Item)
	if in := ev.Item.CallInput(); in.Present() {
		c.item, c.hasItem = callText(in), true
	}
	c.add(fr.clone(), roleItemDone)
	s.judge(ctx, c)
	return nil
}

// describe takes the call's identity from an item view, where not known.
func (c *rsCall) describe(it *providers.ResponsesItem) {
	if c.itemID == "" {
		c.itemID = it.ID.Text()
	}
	if c.callID == "" {
		c.callID = it.CallID.Text()
	}
	if c.name == "" {
		c.name = it.Name.Text()
	}
}

// renamedBy reports a done item that names the call otherwise than its
// added item did: a client reading the done item would run a tool nobody
// judged.
func (c *rsCall) renamedBy(it *providers.ResponsesItem) bool {
	if c.name != "" && it.Name.Present() && !it.Name.Equal(c.name) {
		return true
	}
	return c.callID != "" && it.CallID.Present() && !it.CallID.Equal(c.callID)
}

// callText is a call input member's text: the string, or the JSON text of
// another value (an object sent where the string belongs).
func callText(f providers.Field) []byte {
	if f.IsString() {
		return f.AppendText(nil)
	}
	if f.Set() {
		return clone(f.Raw)
	}
	return nil
}

// onCallInput handles the delta and done events of a call's input.
func (s *responsesStream) onCallInput(fr *rsFrame) error {
	ev := &s.ev
	c := s.openCall()
	if c == nil {
		return s.fail("invalid_tool_call", "the upstream sent arguments for a call hookgate was not holding", providers.ErrCallAlreadyComplete)
	}
	if ev.Kind == providers.RespArgsDelta {
		c.built = ev.Delta.AppendText(c.built)
		c.hasDelta = true
		if len(c.built) > s.maxArguments() {
			return s.fail("invalid_tool_call", fmt.Sprintf("the upstream sent a tool call whose arguments exceed %d bytes", s.maxArguments()), providers.ErrArgumentsTooLarge)
		}
		c.add(fr.clone(), roleDelta)
		return nil
	}
	c.done, c.hasDone = callText(ev.Final()), true
	c.add(fr.clone(), roleDone)
	return nil
}

// settle decides the input a complete call is judged on. Every source the
// stream gave must agree: a client may read any of them, so a call whose
// sources differ could be run with an input nobody judged.
func (c *rsCall) settle() bool {
	var got [][]byte
	if c.hasDelta || c.addedLen > 0 {
		// An empty input in the added item, with no delta after it, is
		// only a placeholder the .done event fills (LM Studio).
		got = append(got, c.built)
	}
	if c.hasDone {
		got = append(got, c.done)
	}
	if c.hasItem {
		got = append(got, c.item)
	}
	if len(got) == 0 {
		return true
	}
	c.input = got[len(got)-1]
	for _, g := range got {
		if string(g) != string(c.input) {
			return false
		}
	}
	return true
}

// judge starts pre_tool_use for a complete call, on its own goroutine.
func (s *responsesStream) judge(ctx context.Context, c *rsCall) {
	if c.complete {
		return
	}
	c.complete = true
	if s.unheld {
		s.observe(ctx, c)
		return
	}
	switch {
	case !c.settle():
		c.v = verdict{Decision: hooks.Block, HookID: hookgateBlocker, Reason: "the upstream sent conflicting arguments for this call"}
		c.resolved = true
	case !s.x.r.loop.has(hooks.PreToolUse):
		c.v = verdict{Decision: hooks.Allow, Arguments: c.input}
		c.resolved = true
	default:
		ev := s.x.callEvent(s.responseID, c.callID, c.name, c.ordinal)
		input := c.input
		nameHeldSpan(c.span, c.name, c.callID)
		s.judging++
		go func() {
			c.v = s.x.judgeCall(heldContext(ctx, c.span), ev, c.kind, input)
			s.judged <- c
		}()
	}
}

// onTerminal takes the response's last word: calls still open are
// complete now, calls only its output lists are judged, and it waits
// behind everything held.
func (s *responsesStream) onTerminal(ctx context.Context, fr *rsFrame) error {
	s.x.noteUsageAt(ctx, fr.data, "response.usage")
	final, err := providers.ReadResponsesOutput(fr.data, providers.EventOutput)
	if err != nil {
		return s.fail("unreadable_event", "the upstream's final event could not be read, so the calls it lists could not be judged", err)
	}
	if s.responseID == "" {
		s.responseID = final.ID
	}
	if err := s.x.refuseUnjudged(final); err != nil {
		return s.fail("unsupported_tool_call", err.Error(), errUnjudgedItem)
	}
	for len(s.open) > 0 {
		c := s.open[0]
		s.open = s.open[1:]
		s.judge(ctx, c)
	}
	for _, it := range final.Calls() {
		if c := s.callOf(it); c != nil {
			if !s.unheld && (c.kind != it.Kind || c.name != it.Name || c.callID != it.CallID) {
				// A client runs what the final output says: the tool
				// judged must be the tool named there.
				return s.fail("invalid_tool_call", "the upstream's final output names a call otherwise than its stream did", errCallRenamed)
			}
			continue
		}
		c := &rsCall{kind: it.Kind, outputIndex: it.Pos, itemID: it.ID, callID: it.CallID, name: it.Name,
			item: []byte(it.Input), hasItem: true, untracked: true}
		if err := s.startCall(ctx, c); err != nil {
			return err
		}
		s.judge(ctx, c)
	}
	s.queue = append(s.queue, rsEntry{frame: fr.clone(), final: final, kind: s.ev.Kind})
	return nil
}

// callOf finds the held call an output item of the terminal event is: by
// item id, else by call id, else (an upstream that names neither) by
// position.
func (s *responsesStream) callOf(it providers.ResponsesOutputItem) *rsCall {
	for _, c := range s.calls {
		if it.ID != "" && c.itemID == it.ID {
			return c
		}
	}
	for _, c := range s.calls {
		if it.ID == "" && it.CallID != "" && c.callID == it.CallID {
			return c
		}
	}
	for _, c := range s.calls {
		if it.ID == "" && it.CallID == "" && c.itemID == "" && c.callID == "" && c.outputIndex == it.Pos && c.kind == it.Kind {
			return c
		}
	}
	return nil
}

// fail ends the stream with an error event naming the cause.
func (s *responsesStream) fail(code, message string, cause error) error {
	if err := s.write(providers.ResponsesErrorEvent("upstream_error", code, message, s.seq.next)); err != nil {
		return err
	}
	if err := s.client.Flush(); err != nil {
		return err
	}
	return cause
}

func (s *responsesStream) onRead(ctx context.Context, r readResult) error { return s.feed(ctx, r, s) }
