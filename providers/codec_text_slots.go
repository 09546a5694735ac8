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
	// text slot slot, not yet closed: closing is the payload of the frame
	// that closes it (held, not yet written), as it is to go out.
	AppendSlotText(slot int, closing []byte, text string) [][]byte
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

// TextRepeatCodec is a TextSlotCodec whose frames repeat text the client
// read before them: the frames that close a text slot repeat its text
// (Responses' output_text.done, content_part.done and output_item.done),
// and the frame that ends the answer repeats the whole answer (a
// snapshot). The text hookgate adds to the slot is added to every such
// repetition, so that a client reads the same answer wherever it reads
// it; EditFrame gets the text, and CodecFrame.TextJoined says where it
// went.
type TextRepeatCodec interface {
	TextSlotCodec
	// RepeatSlotText returns payload, a frame held with (or being) the
	// closing frame closing of the text slot text joined, with text added
	// where it repeats that slot's text; ok is false when it repeats none
	// (payload is then returned as it is).
	RepeatSlotText(payload, closing []byte, text string) (out []byte, ok bool, err error)
}
