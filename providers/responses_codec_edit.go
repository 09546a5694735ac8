package providers

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
)

// ResponsesCodec's encodings of hookgate's decisions: the terminal
// snapshot patched, a rewritten call re-encoded whole, a moved item
// renumbered; the end's text joined to the answer's last text part, or a
// message item of its own (responses_codec_text.go).

// EditFrame applies the decisions to a terminal event's snapshot: a
// removed call's item taken out of its output, a rewritten (or differently
// repeated) one given the input judged, and text added where the stream
// put it: to the part the closing event f.TextJoined ended, else as one
// message item (the one TextSlot streamed, by its id). Other frames carry
// no whole calls and take no text.
func (responsesCodec) EditFrame(payload []byte, f *CodecFrame, edits []CallEdit, text string) ([]byte, error) {
	st, ok := f.State.(*responsesFrameState)
	if !ok {
		return nil, fmt.Errorf("responses edit: frame not decoded by ResponsesCodec: %w", ErrNotFound)
	}
	if st.snapshot == nil {
		if len(edits) > 0 || text != "" {
			return nil, fmt.Errorf("responses edit: a %s event holds no answer to edit: %w", st.ev.Type.Text(), ErrNotFound)
		}
		return payload, nil
	}
	if text != "" && f.TextJoined != nil {
		joined, err := joinSnapshotText(payload, st.snapshot, f.TextJoined, text)
		if err != nil {
			return nil, err
		}
		payload, text = joined, ""
	}
	return frameEdits{
		api:   "responses",
		calls: len(st.positions),
		place: func(call int) int { return call },
		setArgs: func(out []byte, call int, args []byte) ([]byte, error) {
			in, err := wireCallInput(st.kinds[call], args)
			if err != nil {
				return nil, err
			}
			return SetResponsesOutputInput(out, EventOutput, st.positions[call], st.kinds[call], in)
		},
		remove: func(out []byte, calls []int) ([]byte, error) {
			pos := make([]int, len(calls))
			for i, c := range calls {
				pos[i] = st.positions[c]
			}
			return RemoveResponsesOutputItems(out, EventOutput, pos...)
		},
		appendText: func(out []byte, text string) ([]byte, error) {
			return AppendResponsesOutputItem(out, EventOutput, MessageItem(noteItemID(text), text))
		},
	}.apply(payload, edits, text)
}

// noteItemID is the id of the message item that carries text hookgate
// adds: stable, the same in the stream's events and in the snapshot.
func noteItemID(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "msg_hookgate_" + hex.EncodeToString(sum[:8])
}

// EncodeCall returns the events of a call item carrying call.Args whole at
// output_index slot: the item added with an empty input, one delta with
// the whole input (a custom tool call's input events), the input's .done
// event, the item done with the input. The item keeps its id and kind
// (call.Ref).
func (responsesCodec) EncodeCall(slot int, call CodecCall) ([][]byte, error) {
	kind, itemID := parseCallRef(call.Ref)
	in, err := wireCallInput(kind, call.Args)
	if err != nil {
		return nil, err
	}
	typ := "function_call"
	inputDone := "response.function_call_arguments.done"
	if kind == CustomToolCall {
		typ, inputDone = "custom_tool_call", "response.custom_tool_call_input.done"
	}
	idx := strconv.Itoa(slot)
	item := func(status, input string) []byte {
		b := append([]byte(`{"id":`), appendQuoted(nil, itemID)...)
		b = append(b, `,"type":"`+typ+`","status":"`+status+`","`+kind.Member()+`":`...)
		b = appendQuoted(b, input)
		b = append(b, `,"call_id":`...)
		b = appendQuoted(b, call.ID)
		b = append(b, `,"name":`...)
		b = appendQuoted(b, call.Name)
		return append(b, '}')
	}
	ofItem := func(typ string) []byte {
		b := appendQuoted([]byte(`{"type":`), typ)
		b = append(b, `,"item_id":`...)
		b = appendQuoted(b, itemID)
		return append(b, `,"output_index":`+idx...)
	}
	added := append(append([]byte(`{"type":"response.output_item.added","output_index":`+idx+`,"item":`), item("in_progress", "")...), '}')
	delta := append(appendQuoted(append(ofItem(kind.DeltaType()), `,"delta":`...), in), '}')
	done := append(appendQuoted(append(ofItem(inputDone), `,"`+kind.Member()+`":`...), in), '}')
	itemDone := append(append([]byte(`{"type":"response.output_item.done","output_index":`+idx+`,"item":`), item("completed", in)...), '}')
	return [][]byte{added, delta, done, itemDone}, nil
}

// Renumber sets the event's output_index to slot.
func (responsesCodec) Renumber(payload []byte, _ *CodecFrame, slot int) ([]byte, error) {
	return SetEventOutputIndex(payload, slot)
}

// NewStream reads the stream's SSE events as OpenAI's SDKs do.
func (responsesCodec) NewStream(_ CodecRequest, maxFrame int) CodecStream {
	return &responsesCodecStream{p: NewRelaySSEParser(maxFrame)}
}
