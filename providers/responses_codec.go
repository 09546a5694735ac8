package providers

import (
	"fmt"
	"strconv"
)

// ResponsesCodec reads OpenAI's Responses API streams for the
// format-neutral interceptor (interceptors.NewCodec), as a PieceCodec.
// Frames are the stream's events:
//
//   - a call item (function_call, custom_tool_call) streams in pieces,
//     keyed by its output_index: output_item.added starts it (its id is
//     call_id; an input sent with it is the start's arguments), the
//     function_call_arguments.delta events are its fragments, the
//     .done event and a custom tool call's input deltas belong to it
//     (PieceOther), and output_item.done ends it, with the input its item
//     repeats as the end's arguments;
//   - every event that names an output_index names that slot; an
//     output_item.added opens it;
//   - output_text.delta carries the answer's text;
//   - response.completed, .incomplete and .failed end the answer. Their
//     response snapshot repeats the whole output: its calls are the
//     frame's Calls, with Repeats set, keyed as the streamed ones, so
//     that the machine applies the streamed calls' decisions to them;
//   - an error event is the upstream's own error.
//
// A custom tool call's input is text, not JSON: hooks see it as
// {"input": text} (the shape the Responses interceptor gives them), and a
// rewrite's "input" string is what goes back on the wire.
//
// It is a TextRepeatCodec (responses_codec_text.go): the notes and
// pre_response's text join the last output_text part of the answer's last
// message item, and every event that repeats that part's text, and the
// terminal snapshot, end with them. The Responses interceptor streams
// through it (interceptors/responses_codec.go). Where it differs from the
// Responses-only machine it replaced (CHANGELOG): a call's hook event and
// audit key are the machine's (its call_id, else a digest of the request
// and the call), not the response id and ordinal; an item a client runs
// that no hook judges is refused even without pre_tool_use hooks; a
// rewritten call goes out as hookgate's encoding of the whole item; and a
// stream numbered with gaps reaches the client numbered contiguously.
var ResponsesCodec TextRepeatCodec = responsesCodec{}

type responsesCodec struct{}

// responsesFrameState is ResponsesCodec's reading of a frame.
type responsesFrameState struct {
	ev   ResponsesEvent
	call ResponsesCallKind // the call item's kind, for a piece
	// snapshot is the terminal event's response; positions are the
	// output positions of the frame's Calls.
	snapshot  *ResponsesResponse
	positions []int
	kinds     []ResponsesCallKind
}

func (responsesCodec) Provider() string { return "openai" }

func (responsesCodec) ErrorBody(status int, code, message string) []byte {
	return OpenAIErrorShape(status, "upstream_error", code, message)
}

// DecodeFrame reads one event payload (ResponsesEvent.Decode is its gate).
// An empty payload (an SSE event without data, a comment) and "[DONE]"
// carry nothing. A snapshot that lists output before the end, an item a
// client runs that no hook could judge (RunsUnjudged) and a call item in
// an event that neither adds nor finishes an item are refused: a client
// builds on them apart from the machine; so is a terminal event whose
// output lists such an item. (The codec refuses them whatever the hooks:
// it does not know whether pre_tool_use is configured.)
func (responsesCodec) DecodeFrame(payload []byte, f *CodecFrame) error {
	st, _ := f.State.(*responsesFrameState)
	if st == nil {
		st = &responsesFrameState{}
	}
	*f = CodecFrame{Calls: f.Calls[:0], Text: f.Text[:0], State: st, Meaningful: true}
	st.call, st.snapshot, st.positions, st.kinds = NotACall, nil, st.positions[:0], st.kinds[:0]
	ev := &st.ev
	ev.Reset()
	if len(payload) == 0 || string(payload) == "[DONE]" {
		return nil
	}
	if err := ev.Decode(payload); err != nil {
		return err
	}
	if !ev.Kind.HasResponse() {
		if err := CheckResponsesSnapshot(ev.Response); err != nil {
			return err
		}
	}
	if ev.Item.Raw != nil {
		if ev.Item.RunsUnjudged() {
			return fmt.Errorf("responses event: an item the agent runs (%s) that no hook judges: %w", ev.Item.Type.Text(), ErrInvalidJSON)
		}
		if ev.Kind != RespItemAdded && ev.Kind != RespItemDone && ev.Item.CallKind() != NotACall {
			return fmt.Errorf("responses event: a call item in a %s event: %w", ev.Type.Text(), ErrInvalidJSON)
		}
	}
	if ev.HasOutputIndex {
		f.Slot = FrameSlot{Set: true, Index: ev.OutputIndex, ClosesText: closesText(ev)}
	}
	key := strconv.Itoa(ev.OutputIndex)
	switch ev.Kind {
	case RespItemAdded, RespItemDone:
		f.Slot.Opens = ev.Kind == RespItemAdded && ev.HasOutputIndex
		kind := ev.Item.CallKind()
		if kind == NotACall {
			return nil
		}
		if !ev.HasOutputIndex {
			return fmt.Errorf("responses event: a call item without output_index: %w", ErrUnjudgedCall)
		}
		st.call = kind
		f.Piece = CallPiece{Part: PieceEnd, Key: key, ID: ev.Item.CallID.Text(), Name: ev.Item.Name.Text(), Ref: callRef(kind, ev.Item.ID.Text())}
		if in := ev.Item.CallInput(); in.Present() {
			f.Piece.Args = codecCallArgs(kind, itemInputText(in))
		}
		if ev.Kind == RespItemAdded {
			f.Piece = CallPiece{Part: PieceStart, Key: key, ID: ev.Item.CallID.Text(), Name: ev.Item.Name.Text(), Ref: callRef(kind, ev.Item.ID.Text())}
			if in := ev.Item.CallInput(); in.NonEmpty() {
				f.Piece.Args = codecCallArgs(kind, itemInputText(in))
			}
		}
	case RespArgsDelta, RespArgsDone:
		if !ev.HasOutputIndex {
			return fmt.Errorf("responses event: call input without output_index: %w", ErrUnjudgedCall)
		}
		f.Piece = CallPiece{Part: PieceOther, Key: key}
		// A custom tool call's fragments are text, not its arguments'
		// JSON: its end's item gives the whole input.
		if ev.Kind == RespArgsDelta && !ev.Type.Equal(CustomToolCall.DeltaType()) {
			f.Piece = CallPiece{Part: PieceArgs, Key: key, Args: ev.Delta.AppendText(nil)}
		}
	case RespTextDelta:
		f.Text = ev.Delta.AppendText(f.Text)
	case RespCompleted, RespIncomplete, RespFailed:
		f.Ends = true
		snap, err := ReadResponsesOutput(payload, EventOutput)
		if err != nil {
			return err
		}
		for _, it := range snap.Output {
			if ResponsesClientRunItem([]byte(it.Type)) {
				return fmt.Errorf("responses event: the final output asks the agent to run a %s item that no hook judges: %w", it.Type, ErrInvalidJSON)
			}
		}
		st.snapshot = snap
		f.Repeats = true
		if u := memberOf(ev.Response.Raw, "usage"); u.Set() {
			f.Usage = u.Raw
		}
		for _, it := range snap.Calls() {
			f.Calls = append(f.Calls, CodecCall{ID: it.CallID, Name: it.Name, Args: codecCallArgs(it.Kind, []byte(it.Input)), Key: strconv.Itoa(it.Pos), Ref: callRef(it.Kind, it.ID)})
			st.positions = append(st.positions, it.Pos)
			st.kinds = append(st.kinds, it.Kind)
		}
	case RespError:
		f.Error, f.Ends = true, true
	}
	return nil
}

// itemInputText is a call input member's text: the string, or the JSON
// text of another value (an object sent where the string belongs).
func itemInputText(f Field) []byte {
	if f.IsString() {
		return f.AppendText(nil)
	}
	if f.Set() {
		return append([]byte(nil), f.Raw...)
	}
	return []byte{}
}

// codecCallArgs is a call's input as hooks see it: a function call's
// arguments as sent, a custom tool call's text as {"input": text}.
func codecCallArgs(kind ResponsesCallKind, input []byte) []byte {
	if kind != CustomToolCall {
		return input
	}
	b := appendQuoted([]byte(`{"input":`), input)
	return append(b, '}')
}

// wireCallInput is the input a call's arguments go out as: a function
// call's as they are, a custom tool call's "input" string.
func wireCallInput(kind ResponsesCallKind, args []byte) (string, error) {
	if kind != CustomToolCall {
		return string(args), nil
	}
	in := memberOf(args, "input")
	if !in.IsString() {
		return "", fmt.Errorf("responses custom tool call: input of a rewrite is not a string: %w", ErrInvalidJSON)
	}
	return in.Text(), nil
}

// callRef is a streamed call's CallPiece.Ref: its kind's letter and its
// item id ("f:fc_1", "c:ctc_1").
func callRef(kind ResponsesCallKind, itemID string) string {
	if kind == CustomToolCall {
		return "c:" + itemID
	}
	return "f:" + itemID
}

// parseCallRef reads a callRef back.
func parseCallRef(ref string) (ResponsesCallKind, string) {
	if len(ref) >= 2 && ref[0] == 'c' && ref[1] == ':' {
		return CustomToolCall, ref[2:]
	}
	if len(ref) >= 2 && ref[1] == ':' {
		return FunctionCall, ref[2:]
	}
	return FunctionCall, ""
}

// ResponsesCallKindOfRef is the kind of the call a CodecCall.Ref of
// ResponsesCodec names (a streamed call's, or a snapshot's).
func ResponsesCallKindOfRef(ref string) ResponsesCallKind {
	kind, _ := parseCallRef(ref)
	return kind
}
