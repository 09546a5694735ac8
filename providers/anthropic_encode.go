package providers

import (
	"fmt"
	"strconv"
)

// Encoders for synthesised Messages stream events. Anthropic names every
// event twice, in the "event:" line and in the payload's "type"; the SDKs
// dispatch on the first, so each event is framed with both.

// AppendMessagesEvent appends "event: <name>\ndata: <payload>\n\n". A
// payload spanning lines becomes one data line per line (see AppendSSEData).
func AppendMessagesEvent(dst []byte, name string, payload []byte) []byte {
	dst = append(dst, "event: "...)
	dst = append(dst, name...)
	dst = append(dst, '\n')
	return AppendSSEData(dst, payload)
}

// AppendMessagesTextBlockEvents appends a whole text content block at the given
// index: content_block_start with an empty text, one text_delta carrying
// text, and content_block_stop.
func AppendMessagesTextBlockEvents(dst []byte, index int, text string) []byte {
	dst = AppendMessagesEvent(dst, ContentBlockStart, messagesTextStart(index))
	dst = AppendMessagesTextDeltaEvent(dst, index, text)
	return AppendMessagesBlockStopEvent(dst, index)
}

// messagesTextStart is the content_block_start payload of an empty text
// block at index.
func messagesTextStart(index int) []byte {
	p := make([]byte, 0, 96)
	p = append(p, `{"type":"content_block_start","index":`...)
	p = strconv.AppendInt(p, int64(index), 10)
	return append(p, `,"content_block":{"type":"text","text":""}}`...)
}

// AppendMessagesTextDeltaEvent appends a content_block_delta whose
// text_delta carries text, for the text block at the given index: how
// hookgate adds its notes to the end of a text block the upstream wrote.
func AppendMessagesTextDeltaEvent(dst []byte, index int, text string) []byte {
	return AppendMessagesEvent(dst, ContentBlockDelta, messagesTextDelta(index, text))
}

// messagesTextDelta is the payload of AppendMessagesTextDeltaEvent.
func messagesTextDelta(index int, text string) []byte {
	p := make([]byte, 0, 80+len(text))
	p = append(p, `{"type":"content_block_delta","index":`...)
	p = strconv.AppendInt(p, int64(index), 10)
	p = append(p, `,"delta":{"type":"text_delta","text":`...)
	p = appendQuoted(p, text)
	return append(p, "}}"...)
}

// AppendMessagesBlockStopEvent appends a content_block_stop for the index.
func AppendMessagesBlockStopEvent(dst []byte, index int) []byte {
	return AppendMessagesEvent(dst, ContentBlockStop, messagesBlockStop(index))
}

// messagesBlockStop is the payload of AppendMessagesBlockStopEvent.
func messagesBlockStop(index int) []byte {
	p := append(make([]byte, 0, 48), `{"type":"content_block_stop","index":`...)
	p = strconv.AppendInt(p, int64(index), 10)
	return append(p, '}')
}

// messagesToolUseStart is the payload of a content_block_start of a
// tool_use block at the given index, with an empty input ({}): the input
// follows as input_json_delta, which every SDK then reads alone.
func messagesToolUseStart(index int, id, name string) []byte {
	p := make([]byte, 0, 112+len(id)+len(name))
	p = append(p, `{"type":"content_block_start","index":`...)
	p = strconv.AppendInt(p, int64(index), 10)
	p = append(p, `,"content_block":{"type":"tool_use","id":`...)
	p = appendQuoted(p, id)
	p = append(p, `,"name":`...)
	p = appendQuoted(p, name)
	return append(p, `,"input":{}}}`...)
}

// messagesInputJSONDelta is the payload of a content_block_delta whose
// input_json_delta carries input, a tool_use block's whole input, as one
// fragment.
func messagesInputJSONDelta(index int, input []byte) []byte {
	p := make([]byte, 0, 80+len(input))
	p = append(p, `{"type":"content_block_delta","index":`...)
	p = strconv.AppendInt(p, int64(index), 10)
	p = append(p, `,"delta":{"type":"input_json_delta","partial_json":`...)
	p = appendQuoted(p, input)
	return append(p, "}}"...)
}

// SetMessagesEventIndex returns a copy of an event payload whose "index"
// is index: a block that moved because hookgate changed the blocks before
// it. The rest of the payload keeps its bytes.
func SetMessagesEventIndex(data []byte, index int) ([]byte, error) {
	if _, err := parseBody(data, "set event index"); err != nil {
		return nil, err
	}
	out, err := setRaw(data, "index", strconv.AppendInt(nil, int64(index), 10))
	if err != nil {
		return nil, fmt.Errorf("set event index: %w", err)
	}
	return detach(out, data), nil
}

// SetMessagesStopReason returns a copy of a message_delta payload whose
// delta.stop_reason is reason (null when reason is ""): "end_turn" once
// every tool_use of the message was blocked.
func SetMessagesStopReason(data []byte, reason string) ([]byte, error) {
	if _, err := parseBody(data, "set stop_reason"); err != nil {
		return nil, err
	}
	out, err := setRaw(data, "delta.stop_reason", appendJSONOrNull(nil, reason))
	if err != nil {
		return nil, fmt.Errorf("set stop_reason: %w", err)
	}
	return detach(out, data), nil
}
