package interceptors

// A frame read while another waits held is queued whatever it carries, so
// onFrame copies it and decodes it once, on the copy it is queued with
// (codecStream.pre), instead of decoding it where it lies and again on its
// copy. Only a frame that begins a hold (a call's first piece, the end of
// the answer) with nothing held before it is decoded twice.

// takePre returns the frame being read when it was decoded on bytes of its
// own, once.
func (s *codecStream) takePre() *codecFrame {
	fr := s.pre
	s.pre = nil
	return fr
}

// ownFrame returns the frame being read on bytes of its own, decoded on
// them.
func (s *codecStream) ownFrame(raw, payload []byte) (*codecFrame, error) {
	if fr := s.takePre(); fr != nil {
		return fr, nil
	}
	fr := &codecFrame{}
	fr.raw, fr.payload = cloneFrame(raw, payload)
	if err := s.decode(fr.payload, &fr.f); err != nil {
		return nil, s.fail("unreadable_event", refusedUnreadable, err)
	}
	return fr, nil
}
