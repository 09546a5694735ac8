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
// of the slot, whether it carried text, the closing frame's payload as it
// goes out, and what waits behind it (the closing frame first), framed
// only when it goes out, so that the frames added before it are numbered
// where a numbered stream puts them (Responses' sequence_number).
type codecTail struct {
	out     int
	spoke   bool
	closing []byte
	held    []tailFrame
}

// tailFrame is a frame held behind a text slot's closing frame: passed as
// it came (stream.Raw), or hookgate's (framed: stream.Frame).
type tailFrame struct {
	raw, payload []byte
	framed       bool
}

// decode reads a frame through the stream's own decoder when it has one
// (providers.StreamDecoder), else through the codec.
func (s *codecStream) decode(payload []byte, f *providers.CodecFrame) error {
	if d, ok := s.stream.(providers.StreamDecoder); ok {
		return d.DecodeFrame(payload, f)
	}
	return s.codec.DecodeFrame(payload, f)
}

// putRaw writes a frame for the client as it came (stream.Raw), or keeps
// it behind a held text slot's closing frame.
func (s *codecStream) putRaw(raw, payload []byte) error {
	if s.tail != nil {
		r, p := cloneFrame(raw, payload)
		s.tail.held = append(s.tail.held, tailFrame{raw: r, payload: p})
		return nil
	}
	s.out = s.stream.Raw(s.out[:0], raw, payload)
	_, err := s.client.Write(s.out)
	return err
}

// putFrame writes a payload hookgate wrote (stream.Frame), or keeps it
// behind a held text slot's closing frame.
func (s *codecStream) putFrame(payload []byte) error {
	if s.tail != nil {
		s.tail.held = append(s.tail.held, tailFrame{payload: clone(payload), framed: true})
		return nil
	}
	s.out = s.stream.Frame(s.out[:0], payload)
	_, err := s.client.Write(s.out)
	return err
}

// writeHeld writes a held frame.
func (s *codecStream) writeHeld(h tailFrame) error {
	if h.framed {
		s.out = s.stream.Frame(s.out[:0], h.payload)
	} else {
		s.out = s.stream.Raw(s.out[:0], h.raw, h.payload)
	}
	_, err := s.client.Write(s.out)
	return err
}

// holdTextEnd notes a frame of client slot out about to be written: the
// slots that carried text, and, for a frame that closes a text slot, the
// wait that begins with it; payload is the frame's as it goes out.
func (s *codecStream) holdTextEnd(f *providers.CodecFrame, out int, payload []byte) {
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
		s.tail = &codecTail{out: out, spoke: s.spoken[out], closing: clone(payload)}
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
	for _, h := range held {
		if err := s.writeHeld(h); err != nil {
			return err
		}
	}
	return nil
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
// held. For a providers.TextRepeatCodec, the held frames that repeat the
// slot's text repeat the added text too. It returns the closing frame of
// the slot the text joined (nil: none).
func (s *codecStream) endText(text string) ([]byte, error) {
	if text == "" {
		return nil, s.releaseTail()
	}
	t := s.tail
	if t == nil {
		for _, p := range s.textSlots.TextSlot(s.nextSlot, text) {
			s.out = s.stream.Frame(s.out[:0], p)
			if _, err := s.client.Write(s.out); err != nil {
				return nil, err
			}
		}
		s.nextSlot++
		return nil, nil
	}
	s.tail = nil
	for _, p := range s.textSlots.AppendSlotText(t.out, t.closing, text) {
		s.out = s.stream.Frame(s.out[:0], p)
		if _, err := s.client.Write(s.out); err != nil {
			return nil, err
		}
	}
	rc, repeats := s.codec.(providers.TextRepeatCodec)
	for _, h := range t.held {
		if repeats && len(h.payload) > 0 {
			joined, ok, err := rc.RepeatSlotText(h.payload, t.closing, text)
			if err != nil {
				return nil, s.fail("hookgate_error", "hookgate could not add its notes to the answer's text", err)
			}
			if ok {
				h = tailFrame{payload: joined, framed: true}
			}
		}
		if err := s.writeHeld(h); err != nil {
			return nil, err
		}
	}
	return t.closing, nil
}
