package providers

import (
	"bytes"
	"fmt"
)

// responsesCodecStream is a Responses SSE stream, split as the relay
// parser splits it (NewRelaySSEParser). It keeps the sequence_number of
// the events the client reads contiguous: an event keeps its bytes while
// its number follows the last one written; once hookgate has dropped or
// added an event, every later one is given the number after the last one
// written (and an event hookgate wrote, one).
type responsesCodecStream struct {
	p        *SSEParser
	numbered bool  // the upstream numbers its events
	started  bool  // an event with a number was written
	ended    bool  // the response's last event (completed, incomplete, failed) was read
	last     int64 // the number of the last event written
	typ      [64]byte
	// read is the payload Next returned last, readSeq its number.
	read    []byte
	readSeq Field
}

func (s *responsesCodecStream) Feed(b []byte) { s.p.Feed(b) }
func (s *responsesCodecStream) End()          { s.p.End() }

// Next returns the next event. An event whose "event:" name is not its
// payload's type is refused (clients dispatch on either), and so is any
// event with data after the response's last one but "[DONE]" (clients
// build on what follows it).
func (s *responsesCodecStream) Next() (raw, payload []byte, ok bool, err error) {
	fr, err := s.p.Next()
	if err != nil || fr == nil {
		return nil, nil, false, err
	}
	if !fr.HasData() {
		return fr.Raw, nil, true, nil
	}
	if fr.Done {
		return fr.Raw, fr.Data, true, nil // every client stops at it
	}
	if s.ended {
		return nil, nil, false, fmt.Errorf("responses stream: an event after the response's last: %w", ErrInvalidJSON)
	}
	typ, seq := typeAndSequence(fr.Data)
	if !EventNameMatches(fr.Event, typ) {
		return nil, nil, false, fmt.Errorf("responses stream: an event named %q whose type differs: %w", fr.Event, ErrInvalidJSON)
	}
	var tmp [32]byte
	// An error event is not the last word: OpenAI follows it with
	// response.failed.
	switch ResponsesEventKindOf(stringValue(typ, tmp[:0])) {
	case RespCompleted, RespIncomplete, RespFailed:
		s.ended = true
	}
	s.read, s.readSeq = fr.Data, seq
	if seq.Present() {
		s.numbered = true
	}
	return fr.Raw, fr.Data, true, nil
}

// typeAndSequence reads an event's "type" and "sequence_number" in one
// pass over its members.
func typeAndSequence(payload []byte) (typ, seq Field) {
	obj, ok := iterObject(payload)
	if !ok {
		return Field{}, Field{}
	}
	for key, v, ok := obj.next(); ok; key, v, ok = obj.next() {
		switch {
		case typ.Raw == nil && keyIs(key, "type"):
			typ = Field{v}
		case seq.Raw == nil && keyIs(key, "sequence_number"):
			seq = Field{v}
		}
	}
	return typ, seq
}

// Truncated reports bytes after the last whole event.
func (s *responsesCodecStream) Truncated() bool {
	return len(bytes.TrimSpace(s.p.Trailing())) > 0
}

func (s *responsesCodecStream) Raw(dst, raw, payload []byte) []byte {
	if !s.numbered {
		return append(dst, raw...)
	}
	n, has := s.sequence(payload)
	if !has {
		return append(dst, raw...)
	}
	if !s.started || n == s.last+1 {
		s.started, s.last = true, n
		return append(dst, raw...)
	}
	s.last++
	if edited, err := SetSequenceNumber(payload, s.last); err == nil {
		payload = edited
	}
	// Named as it came: a stream of bare data lines stays one.
	var event []byte
	if bytes.HasPrefix(raw, []byte("event:")) || bytes.Contains(raw, []byte("\nevent:")) {
		event = stringValue(memberOf(payload, "type"), s.typ[:0])
	}
	return AppendSSEEvent(dst, event, payload)
}

// Frame frames a payload hookgate wrote, named by its type and numbered
// after the last event written when the stream is numbered.
func (s *responsesCodecStream) Frame(dst, payload []byte) []byte {
	if s.numbered {
		n, has := s.sequence(payload)
		switch {
		case has && !s.started:
			s.started, s.last = true, n
		default:
			s.started = true
			s.last++
			if !has || n != s.last {
				if edited, err := SetSequenceNumber(payload, s.last); err == nil {
					payload = edited
				}
			}
		}
	}
	return AppendSSEEvent(dst, stringValue(memberOf(payload, "type"), s.typ[:0]), payload)
}

// sequence reads an event's sequence_number (the one Next read, when
// payload is the frame it returned last).
func (s *responsesCodecStream) sequence(payload []byte) (int64, bool) {
	var f Field
	if len(payload) > 0 && len(s.read) == len(payload) && &s.read[0] == &payload[0] {
		f = s.readSeq
	} else {
		f = memberOf(payload, "sequence_number")
	}
	if !f.Present() {
		return 0, false
	}
	n, err := parseWireIndex(f.Raw)
	return n, err == nil
}

func (s *responsesCodecStream) Close(dst []byte) []byte { return dst }

// ErrorFrame is an error event in the shape OpenAI sends
// (ResponsesErrorEvent), numbered after the last event written.
func (s *responsesCodecStream) ErrorFrame(dst []byte, code, message string) []byte {
	seq := func() (int64, bool) {
		if !s.numbered {
			return 0, false
		}
		s.last++
		return s.last, true
	}
	return append(dst, ResponsesErrorEvent("upstream_error", code, message, seq)...)
}

// Heartbeat is an SSE comment, which every client skips.
func (s *responsesCodecStream) Heartbeat() []byte {
	return AppendSSEComment(nil, "hookgate: holding a tool call for its hooks")
}
