package interceptors

import "github.com/hookgate/hookgate/providers"

// The answer's last text slot, for a codec whose answer text sits in slots
// of its own (providers.TextSlotCodec: Anthropic's text blocks). The notes
// of blocked calls and pre_response's text join the answer's last text
// slot when it is the answer's last slot, or go out as a slot of their
// own. Whether a text slot is the last is known only once the next slot
// opens or the answer ends, so the frame that closes a text slot
// (FrameSlot.ClosesText), and everything written after it, waits: until a
// slot opens for the client (then it goes out as it came, the text slot
// was not the last), or until the frame that ends the answer, when the
// text goes into the slot before its closing frame (AppendSlotText).
// Text frames themselves are never delayed. A removed call's slot opens
// nothing for the client, so the text slot before it may still be the
// last.
//
// Such a format's stream may also complete in a frame of its own after
// the one that ends the answer (CodecFrame.Completes): the stream is
// complete only there; nothing may come after it; an answer no frame
// ended before ends there, its notes joined, with no pre_response.

// codecTail is the held closing frame of a text slot: the client's number
// of the slot, whether it carried text, and what waits behind it.
type codecTail struct {
	out   int
	spoke bool
	held  []byte
}

// decode reads a frame through the stream's own decoder when it has one
// (providers.StreamDecoder), else through the codec.
func (s *codecStream) decode(payload []byte, f *providers.CodecFrame) error {
	if d, ok := s.stream.(providers.StreamDecoder); ok {
		return d.DecodeFrame(payload, f)
	}
	return s.codec.DecodeFrame(payload, f)
}

// put writes bytes for the client, or keeps them behind a held text
// slot's closing frame.
func (s *codecStream) put(b []byte) error {
	if s.tail != nil {
		s.tail.held = append(s.tail.held, b...)
		return nil
	}
	_, err := s.client.Write(b)
	return err
}

// holdTextEnd notes a frame of client slot out about to be written: the
// slots that carried text, and, for a frame that closes a text slot, the
// wait that begins with it.
func (s *codecStream) holdTextEnd(f *providers.CodecFrame, out int) {
	if s.textSlots == nil {
		return
	}
	if len(f.Text) > 0 {
		if s.spoken == nil {
			s.spoken = map[int]bool{}
		}
		s.spoken[out] = true
	}
	if f.Slot.ClosesText && s.tail == nil {
		s.tail = &codecTail{out: out, spoke: s.spoken[out]}
	}
}

// releaseTail writes the held closing frame of a text slot, and what
// came after it, as they came.
func (s *codecStream) releaseTail() error {
	if s.tail == nil {
		return nil
	}
	held := s.tail.held
	s.tail = nil
	_, err := s.client.Write(held)
	return err
}

// joinsSpokenText reports whether the answer's added text follows text of
// its own (and so is set apart from it): for text slots, text in the held
// slot it joins; otherwise any answer text.
func (s *codecStream) joinsSpokenText() bool {
	if s.textSlots != nil {
		return s.tail != nil && s.tail.spoke
	}
	return len(s.text) > 0
}

// endText writes, at the frame that ends the answer, completes the stream
// or carries the upstream's error, the answer's added text (when not
// empty) into the held text slot, or as a slot of its own; then what was
// held.
func (s *codecStream) endText(text string) error {
	if text != "" {
		var payloads [][]byte
		if s.tail != nil {
			payloads = s.textSlots.AppendSlotText(s.tail.out, text)
		} else {
			payloads = s.textSlots.TextSlot(s.nextSlot, text)
			s.nextSlot++
		}
		s.out = s.out[:0]
		for _, p := range payloads {
			s.out = s.stream.Frame(s.out, p)
		}
		if _, err := s.client.Write(s.out); err != nil {
			return err
		}
	}
	return s.releaseTail()
}
