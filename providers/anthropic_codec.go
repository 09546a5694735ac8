package providers

import (
	"fmt"
	"strconv"
)

// MessagesCodec reads Anthropic Messages streams for the format-neutral
// interceptor's stream machine. Frames are the stream's events: a
// tool_use block is a call streamed in pieces (content_block_start, its
// input_json_delta fragments, content_block_stop), keyed and slotted by
// the block's index; a text block's text_delta is answer text, and its
// content_block_stop closes a text slot (FrameSlot.ClosesText), which the
// notes join when it is the answer's last; message_delta ends the answer
// and message_stop completes the stream (CodecFrame.Completes); an
// "event: error" is the upstream's error. A delta means what its block's
// start said, so the stream decodes its own frames (StreamDecoder), and
// refuses, as it splits them, the events whose reading depends on what
// came before (a second message_start, a start whose input a client reads
// apart from its fragments, an event: name that is not its type; see
// anthropic_calls.go).
//
// A non-streamed Message is not read by this codec: interceptors.Messages
// reads the request and plain responses itself and streams through it.
var MessagesCodec TextSlotCodec = messagesCodec{}

type messagesCodec struct{}

// messagesFrameState is MessagesCodec's reading of a frame, for EditFrame,
// set on the frames that need one (a message_delta, a call's fragment).
type messagesFrameState struct {
	// toolUseStop reports a message_delta whose stop_reason is tool_use.
	toolUseStop bool
	args        []byte // a fragment, unescaped (CallPiece.Args)
}

func (messagesCodec) Provider() string { return "anthropic" }

func (messagesCodec) ParseRequest(_, _ string, body []byte) (CodecRequest, error) {
	r, err := ParseMessagesRequest(body)
	if err != nil {
		return nil, err
	}
	return MessagesCodecRequest(r), nil
}

func (messagesCodec) ErrorBody(status int, code, message string) []byte {
	return AnthropicErrorShape(status, "", code, message)
}

// DecodeFrame reads one stream event with no stream before it: a block
// event is read as the blocks its index names were never started (a
// delta is a piece of a call no start opened, which the interceptor
// refuses). Streams decode through NewStream's StreamDecoder.
func (messagesCodec) DecodeFrame(payload []byte, f *CodecFrame) error {
	var ev MessagesEvent
	return decodeMessagesFrame(&ev, false, payload, f, nil, "")
}

// NewStream reads one SSE stream of events.
func (messagesCodec) NewStream(_ CodecRequest, maxFrame int) CodecStream {
	return &messagesCodecStream{parser: NewRelaySSEParser(maxFrame)}
}

// EditFrame edits an event: Messages frames carry no whole call and the
// notes go into text slots (AppendSlotText, TextSlot), so the one edit is
// the message_delta of an answer whose every call was removed, whose
// stop_reason tool_use becomes end_turn.
func (messagesCodec) EditFrame(payload []byte, f *CodecFrame, edits []CallEdit, text string) ([]byte, error) {
	if len(edits) > 0 || text != "" {
		return nil, fmt.Errorf("messages edit: an event carries no whole call and no text is added to one: %w", ErrNotFound)
	}
	if st, ok := f.State.(*messagesFrameState); ok && st != nil && f.CallsRemoved && st.toolUseStop {
		return SetMessagesStopReason(payload, "end_turn")
	}
	return append([]byte(nil), payload...), nil
}

// EncodeCall is a rewritten tool_use block: a start with input {}, one
// input_json_delta carrying the whole input, and the stop. Encoded from
// hookgate's reading, not patched into the upstream's start, so that both
// SDKs read the new input from its one fragment.
func (messagesCodec) EncodeCall(slot int, call CodecCall) ([][]byte, error) {
	args := call.Args
	if len(args) == 0 {
		args = []byte("{}")
	}
	return [][]byte{
		messagesToolUseStart(slot, call.ID, call.Name),
		messagesInputJSONDelta(slot, args),
		messagesBlockStop(slot),
	}, nil
}

// Renumber sets the event's "index".
func (messagesCodec) Renumber(payload []byte, _ *CodecFrame, slot int) ([]byte, error) {
	return SetMessagesEventIndex(payload, slot)
}

// AppendSlotText is one more text_delta for the text block at slot.
func (messagesCodec) AppendSlotText(slot int, _ []byte, text string) [][]byte {
	return [][]byte{messagesTextDelta(slot, text)}
}

// TextSlot is a whole text block at slot.
func (messagesCodec) TextSlot(slot int, text string) [][]byte {
	return [][]byte{messagesTextStart(slot), messagesTextDelta(slot, text), messagesBlockStop(slot)}
}

// messagesBlockKind is what a content block is to hookgate.
type messagesBlockKind uint8

const (
	messagesBlockOther messagesBlockKind = iota + 1 // thinking, server_tool_use...: passes
	messagesBlockText
	messagesBlockTool // tool_use: a call
)

// messagesBlocks is what a stream's content_block_starts said, by index:
// the latest start of each.
type messagesBlocks map[int]messagesBlock

type messagesBlock struct {
	kind messagesBlockKind
	// startInput reports a start that carried an input other than {}.
	startInput bool
}

func blockKind(typ Field) messagesBlockKind {
	switch {
	case typ.Equal("tool_use"):
		return messagesBlockTool
	case typ.Equal("text"):
		return messagesBlockText
	}
	return messagesBlockOther
}

// decodeMessagesFrame reads one event's payload into f with ev (which
// holds it already when decoded), its block events by blocks (nil: none
// started) and a tool_use's event id by messageID. f's state is kept for
// reuse, and taken up by the frames that need one.
func decodeMessagesFrame(ev *MessagesEvent, decoded bool, payload []byte, f *CodecFrame, blocks messagesBlocks, messageID string) error {
	kept, _ := f.State.(*messagesFrameState)
	*f = CodecFrame{Text: f.Text[:0], Meaningful: true}
	if kept != nil {
		*kept = messagesFrameState{args: kept.args[:0]}
		f.State = kept
	}
	state := func() *messagesFrameState {
		if kept == nil {
			kept = &messagesFrameState{}
			f.State = kept
		}
		return kept
	}
	if !decoded {
		if err := ev.Decode(payload); err != nil {
			return err
		}
	}
	key := func() string { return strconv.Itoa(ev.Index) }
	switch {
	case ev.Is(MessageStart):
		if u := memberOf(ev.Message.Raw, "usage"); u.Set() {
			f.Usage = u.Raw
		}
	case ev.Is(ContentBlockStart):
		f.Slot = FrameSlot{Set: true, Opens: true, Index: ev.Index}
		if blockKind(ev.Block.Type) != messagesBlockTool {
			return nil
		}
		id := ev.Block.ID.Text()
		f.Piece = CallPiece{Part: PieceStart, Key: key(), ID: id, Name: ev.Block.Name.Text(),
			EventKey: []string{messageID, id, key()}}
		if ev.Block.Input.Set() {
			f.Piece.Args = ev.Block.Input.Raw
		}
	case ev.Is(ContentBlockDelta):
		f.Slot = FrameSlot{Set: true, Index: ev.Index}
		b, started := blocks[ev.Index]
		if !started || b.kind == messagesBlockTool {
			// A piece of its call, whatever the delta; one of a block
			// never started is refused by the interceptor.
			f.Piece = CallPiece{Part: PieceArgs, Key: key()}
			if ev.Delta.PartialJSON.IsString() {
				st := state()
				st.args = ev.Delta.PartialJSON.AppendText(st.args)
				f.Piece.Args = st.args
			}
			return nil
		}
		if ev.Delta.Type.Equal("text_delta") {
			f.Text = ev.Delta.Text.AppendText(f.Text)
		}
	case ev.Is(ContentBlockStop):
		f.Slot = FrameSlot{Set: true, Index: ev.Index}
		switch blocks[ev.Index].kind {
		case messagesBlockTool:
			f.Piece = CallPiece{Part: PieceEnd, Key: key()}
		case messagesBlockText:
			f.Slot.ClosesText = true
		}
	case ev.Is(MessageDelta):
		f.Ends = true
		state().toolUseStop = ev.Delta.StopReason.Equal("tool_use")
		if ev.Usage.Set() {
			f.Usage = ev.Usage.Raw
		}
	case ev.Is(MessageStop):
		f.Completes = true
	case ev.Is(MessagesError):
		f.Error, f.Ends, f.Completes = true, true, true
	}
	return nil
}
