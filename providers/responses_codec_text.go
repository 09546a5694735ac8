package providers

import (
	"errors"
	"fmt"

	"github.com/tidwall/gjson"
)

// ResponsesCodec as a TextRepeatCodec: the answer's text sits in the
// output_text parts of message items. The three events that end such a
// part (output_text.done, content_part.done, the message item's
// output_item.done) each repeat its text, and the terminal event's
// snapshot repeats it again. The first of them to come closes the slot
// (FrameSlot.ClosesText); the text hookgate adds joins the part as one
// more output_text.delta, and every repetition of the part's text, held
// behind it, ends with the same text, as the snapshot does. When the
// answer's last item is no message with a text part, the text comes as a
// message item of its own, the same in the stream and in the snapshot.

var _ TextRepeatCodec = responsesCodec{}

// closesText reports an event that ends an output_text part of a message
// item: output_text.done, content_part.done of an output_text part, a
// message item's output_item.done whose content ends with one.
func closesText(ev *ResponsesEvent) bool {
	if !ev.HasOutputIndex {
		return false
	}
	switch ev.Kind {
	case RespTextDone:
		return ev.HasContentIndex
	case RespPartDone:
		return ev.HasContentIndex && ev.TextPart()
	case RespItemDone:
		return ev.Item.Type.Equal("message") && lastTextPart(ev.Item.Raw) >= 0
	}
	return false
}

// lastTextPart is the content index of a message item's last part when it
// is output_text, else -1; 0 for an item done with its content empty (as
// some servers send it after streaming its one part): the text hookgate
// adds joins the part streamed.
func lastTextPart(item []byte) int {
	parts := gjson.GetBytes(item, "content").Array()
	if len(parts) == 0 {
		return 0
	}
	if n := len(parts); parts[n-1].Get("type").Str == "output_text" {
		return n - 1
	}
	return -1
}

// textPlace is where a closing event's part sits: the item's id, its
// output_index, the part's content_index.
type textPlace struct {
	item         string
	output, part int
}

// placeOfClosing reads a closing event (closesText) as it goes out.
func placeOfClosing(closing []byte) (textPlace, error) {
	var ev ResponsesEvent
	if err := ev.Decode(closing); err != nil {
		return textPlace{}, err
	}
	if !closesText(&ev) {
		return textPlace{}, fmt.Errorf("responses text: a %s event closes no text part: %w", ev.Type.Text(), ErrNotFound)
	}
	if ev.Kind == RespItemDone {
		return textPlace{item: ev.Item.ID.Text(), output: ev.OutputIndex, part: lastTextPart(ev.Item.Raw)}, nil
	}
	return textPlace{item: ev.ItemID.Text(), output: ev.OutputIndex, part: ev.ContentIndex}, nil
}

// AppendSlotText is one more output_text.delta for the part closing ends,
// without a sequence number (the stream numbers what it writes).
func (responsesCodec) AppendSlotText(_ int, closing []byte, text string) [][]byte {
	p, err := placeOfClosing(closing)
	if err != nil {
		return nil
	}
	return [][]byte{EncodeOutputTextDelta(p.item, p.output, p.part, text, nil).Payload}
}

// TextSlot is a message item of its own carrying text at output_index
// slot (MessageItemEvents), without sequence numbers; the snapshot lists
// the same item (EditFrame).
func (responsesCodec) TextSlot(slot int, text string) [][]byte {
	evs := MessageItemEvents(noteItemID(text), slot, text, nil)
	out := make([][]byte, len(evs))
	for i, ev := range evs {
		out[i] = ev.Payload
	}
	return out
}

// RepeatSlotText adds text to an event that repeats the text of the part
// closing ends: its output_text.done and content_part.done, its item's
// output_item.done. An event that does not repeat the part's text (an
// item done with its content empty, as some servers send) is left as it
// is.
func (responsesCodec) RepeatSlotText(payload, closing []byte, text string) ([]byte, bool, error) {
	p, err := placeOfClosing(closing)
	if err != nil {
		return nil, false, err
	}
	var ev ResponsesEvent
	if err := ev.Decode(payload); err != nil {
		return nil, false, err
	}
	if !ev.HasOutputIndex || ev.OutputIndex != p.output {
		return payload, false, nil
	}
	switch ev.Kind {
	case RespTextDone, RespPartDone:
		if !ev.HasContentIndex || ev.ContentIndex != p.part || ev.Kind == RespPartDone && !ev.TextPart() {
			return payload, false, nil
		}
	case RespItemDone:
		if !ev.Item.Type.Equal("message") || ev.Item.ID.Text() != p.item {
			return payload, false, nil
		}
	default:
		return payload, false, nil
	}
	out, err := AppendToDoneText(payload, ev.Kind, p.part, text)
	if errors.Is(err, ErrNotFound) {
		return payload, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// joinSnapshotText adds text to the part of the snapshot's output that
// the stream's closing event ended: the message item of its id.
func joinSnapshotText(out []byte, snap *ResponsesResponse, closing []byte, text string) ([]byte, error) {
	p, err := placeOfClosing(closing)
	if err != nil {
		return nil, err
	}
	for _, it := range snap.Output {
		if it.Type != "message" || it.ID != p.item {
			continue
		}
		joined, err := AppendToResponsesOutputText(out, EventOutput, it.Pos, p.part, text)
		if errors.Is(err, ErrNotFound) {
			return out, nil // the snapshot does not repeat the part's text
		}
		return joined, err
	}
	return out, nil
}
