package providers

// StreamDecoder is a CodecStream whose frames mean what the frames before
// them said (an Anthropic content_block_delta is a tool call's argument
// fragment or answer text as its block's start said): the interceptor
// decodes every frame Next returned through it, instead of through
// Codec.DecodeFrame. Next keeps the stream's state, so decoding the frame
// Next returned last, any number of times, reads the same.
type StreamDecoder interface {
	DecodeFrame(payload []byte, f *CodecFrame) error
}

// TextSlotCodec is a PieceCodec whose answer text sits in slots of its own
// (Anthropic's text blocks), which frames close (FrameSlot.ClosesText).
// The notes and pre_response's text join the answer's last text slot when
// the frame that closed it is still held at the answer's end, or go out
// as a slot of their own; EditFrame then gets no text.
type TextSlotCodec interface {
	PieceCodec
	// AppendSlotText returns the payloads that add text at the end of the
	// text slot slot, not yet closed.
	AppendSlotText(slot int, text string) [][]byte
	// TextSlot returns the payloads of a whole slot, numbered slot, that
	// carries text.
	TextSlot(slot int, text string) [][]byte
}

// StreamRefusal is an error of CodecStream.Next that names the code and
// message of the error frame the client gets, where the stream's framing
// has its own (an SSE line form clients read differently, an event over
// the size limit).
type StreamRefusal struct {
	Code, Message string
	Err           error
}

func (e *StreamRefusal) Error() string { return e.Err.Error() }
func (e *StreamRefusal) Unwrap() error { return e.Err }
