package providers

import (
	"errors"
	"fmt"
)

// messagesCodecStream is one Messages SSE stream: the relay SSE parser's
// events, and what the events before each said (its blocks, its message).
// Next reads every event once, keeping that state and refusing what only
// it shows to be unsafe; DecodeFrame reads an event by it.
type messagesCodecStream struct {
	parser *SSEParser
	ev     MessagesEvent // Next's reading
	dec    MessagesEvent // DecodeFrame's
	// evData is the payload s.ev holds, decoded (nil: none).
	evData    []byte
	blocks    messagesBlocks
	messageID string
	started   bool // message_start came
	terminal  bool // message_stop, or the upstream's error, came
	// named is the last frame's "event:" name error: the upstream's
	// error, passed on whatever its payload.
	namedError bool
}

// Errors of the events a Messages stream refuses as it reads them. Each
// wraps ErrInvalidJSON: what they carry cannot be judged as clients read it.
var (
	ErrMessagesEventName   = fmt.Errorf("the event: name is not the payload's type: %w", ErrInvalidJSON)
	ErrMessagesSecondStart = fmt.Errorf("a second message_start: %w", ErrInvalidJSON)
	ErrMessagesToolStart   = fmt.Errorf("a tool_use block whose start input a client reads apart from its fragments: %w", ErrInvalidJSON)
)

func (s *messagesCodecStream) Feed(b []byte) { s.parser.Feed(b) }
func (s *messagesCodecStream) End()          { s.parser.End() }

// Next returns the next event. A frame with no data (a comment, a stray
// blank line), and a bare "data: [DONE]" after the end, every client
// skips: its payload is nil.
func (s *messagesCodecStream) Next() (raw, payload []byte, ok bool, err error) {
	f, err := s.parser.Next()
	if err != nil {
		var form *SSELineFormError
		if errors.As(err, &form) {
			return nil, nil, false, &StreamRefusal{Code: "ambiguous_stream", Message: "hookgate refused the upstream stream: " + form.Form, Err: err}
		}
		return nil, nil, false, &StreamRefusal{Code: "event_too_large", Message: "an upstream event exceeded hookgate's limit (limits.max_event_bytes)", Err: err}
	}
	if f == nil {
		return nil, nil, false, nil
	}
	s.namedError, s.evData = false, nil
	if !f.HasData() || s.terminal && f.Done && f.Event == nil {
		return f.Raw, nil, true, nil
	}
	if s.terminal {
		return f.Raw, f.Data, true, nil // refused by the interceptor: nothing comes after the end
	}
	if string(f.Event) == MessagesError {
		s.terminal, s.namedError = true, true
		return f.Raw, f.Data, true, nil
	}
	if err := s.read(f); err != nil {
		return nil, nil, false, err
	}
	return f.Raw, f.Data, true, nil
}

// read keeps what an event tells of the stream, and refuses one a client
// would read otherwise than hookgate. A payload it cannot decode is left
// to DecodeFrame, which fails on it.
func (s *messagesCodecStream) read(f *SSEFrame) error {
	ev := &s.ev
	if ev.Decode(f.Data) != nil {
		return nil
	}
	s.evData = f.Data
	if !EventNameMatches(f.Event, ev.Type) {
		return &StreamRefusal{Code: "unreadable_event", Message: "the upstream sent an event whose event: name is not its type, which clients read as two different events", Err: ErrMessagesEventName}
	}
	switch {
	case ev.Is(MessageStart):
		if s.started {
			return &StreamRefusal{Code: "unreadable_event", Message: "the upstream started a second message in one stream", Err: ErrMessagesSecondStart}
		}
		s.started = true
		if err := CheckMessageStart(ev.Message.Raw); err != nil {
			return &StreamRefusal{Code: "unreadable_event", Message: "the upstream's message_start already carries content blocks, which clients read as the message's own and hookgate does not judge", Err: err}
		}
		s.messageID = memberOf(ev.Message.Raw, "id").Text()
	case ev.Is(ContentBlockStart):
		b := messagesBlock{kind: blockKind(ev.Block.Type)}
		if b.kind == messagesBlockTool && ev.Block.Input.Set() {
			if ev.Block.Input.Raw[0] != '{' {
				return &StreamRefusal{Code: "invalid_tool_call", Message: "the upstream started a tool_use whose input is not an object", Err: ErrMessagesToolStart}
			}
			b.startInput = string(ev.Block.Input.Raw) != "{}"
		}
		if s.blocks == nil {
			s.blocks = messagesBlocks{}
		}
		s.blocks[ev.Index] = b
	case ev.Is(ContentBlockDelta):
		if b := s.blocks[ev.Index]; b.kind == messagesBlockTool && b.startInput &&
			ev.Delta.PartialJSON.IsString() && len(ev.Delta.PartialJSON.Raw) > 2 {
			// anthropic-sdk-go appends the fragments to such an input,
			// @anthropic-ai/sdk reads the fragments alone.
			return &StreamRefusal{Code: "invalid_tool_call", Message: "the upstream sent input fragments for a tool_use whose start already carries an input", Err: ErrMessagesToolStart}
		}
	case ev.Is(MessageStop), ev.Is(MessagesError):
		s.terminal = true
	}
	return nil
}

// DecodeFrame reads an event Next returned by what came before it.
func (s *messagesCodecStream) DecodeFrame(payload []byte, f *CodecFrame) error {
	if payload == nil {
		st := f.State
		*f = CodecFrame{Text: f.Text[:0], State: st}
		return nil
	}
	if s.namedError {
		st := f.State
		*f = CodecFrame{Text: f.Text[:0], State: st, Error: true, Ends: true, Completes: true, Meaningful: true}
		return nil
	}
	if len(payload) > 0 && len(payload) == len(s.evData) && &payload[0] == &s.evData[0] {
		// The payload Next read: its reading is s.ev's.
		return decodeMessagesFrame(&s.ev, true, payload, f, s.blocks, s.messageID)
	}
	return decodeMessagesFrame(&s.dec, false, payload, f, s.blocks, s.messageID)
}

// Truncated reports, after End, a stream that never completed (no
// message_stop, no error) or whose last event has no blank line after it.
func (s *messagesCodecStream) Truncated() bool {
	return !s.terminal || len(s.parser.Trailing()) > 0
}

func (s *messagesCodecStream) Raw(dst, raw, _ []byte) []byte { return append(dst, raw...) }

// Frame is the event named after its payload's type, as Anthropic frames
// its events.
func (s *messagesCodecStream) Frame(dst, payload []byte) []byte {
	name := MessagesPing
	if t := memberOf(payload, "type"); t.IsString() {
		name = t.Text()
	}
	return AppendMessagesEvent(dst, name, payload)
}

func (s *messagesCodecStream) Close(dst []byte) []byte { return dst }

// ErrorFrame is an "event: error" in Anthropic's shape, its message led
// by hookgate's code, so that both SDKs raise instead of taking the stream
// for complete.
func (s *messagesCodecStream) ErrorFrame(dst []byte, code, message string) []byte {
	return append(dst, MessagesStreamError(code, message)...)
}

// MessagesStreamError is the "event: error" that ends a Messages stream
// hookgate cannot finish (truncated upstream, limits, a refused event), in
// Anthropic's shape, its message led by hookgate's code.
func MessagesStreamError(code, message string) []byte {
	if code != "" {
		message = code + ": " + message
	}
	return MessagesErrorEvent("api_error", message)
}

// MessagesStreamEnds reports an event after which a Messages stream may
// end cleanly: message_stop, or an in-band error. Anything else before the
// end of the body is a truncation: message_delta alone is not an end. The
// "event:" line names it on every recorded stream; the payload's type is
// read when the line is missing. (For a stream no hook watches.)
func MessagesStreamEnds(f *SSEFrame) bool {
	typ := string(f.Event)
	if f.Event == nil && f.HasData() {
		typ = memberOf(f.Data, "type").Text()
	}
	return typ == MessageStop || typ == MessagesError
}

// Heartbeat is an SSE comment, which both SDKs skip.
func (s *messagesCodecStream) Heartbeat() []byte { return messagesHeartbeat }

var messagesHeartbeat = AppendSSEComment(nil, "hookgate: holding a tool call for its hooks")
