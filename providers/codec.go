package providers

// Codec reads and writes one wire format for hookgate's format-neutral
// interceptor (interceptors.NewCodec): the request as a Turn and its
// edits, the response as frames of neutral parts (text, whole tool calls,
// pieces of a call streamed over several frames, the end of the answer,
// the upstream's error) and the encodings of hookgate's decisions. A
// format whose calls stream in pieces implements PieceCodec as well. A format whose Format.Codec is set is read through
// it; the interceptors know nothing else of the format.
//
// A codec is the format's canonical-form gate as well: whatever a client
// of the format could read as a tool call, its decoding reports as a call
// or refuses (ErrDuplicateKey, ErrKeySpelling, ErrInvalidJSON), so that
// no call reaches a client unjudged.
type Codec interface {
	// Provider is the provider hook events name ("gemini").
	Provider() string
	// ParseRequest reads a request body sent to path (normalised) with
	// the raw query. It fails for a body the format's hooks cannot read.
	ParseRequest(path, query string, body []byte) (CodecRequest, error)
	// DecodeFrame reads one frame's payload (a streamed frame, or a whole
	// non-streamed response body) into f, reusing f's storage.
	DecodeFrame(payload []byte, f *CodecFrame) error
	// EditFrame encodes hookgate's decisions on a decoded frame: the calls
	// of f named by edits removed or given new arguments, and text (when
	// not empty) appended to the answer it carries. It returns a new
	// payload; everything it does not edit keeps its bytes.
	EditFrame(payload []byte, f *CodecFrame, edits []CallEdit, text string) ([]byte, error)
	// NewStream returns the reader and writer of one streamed response.
	NewStream(req CodecRequest, maxFrame int) CodecStream
	// ErrorBody renders an error hookgate answers in the format's shape.
	ErrorBody(status int, code, message string) []byte
}

// CodecRequest is one request as a codec read it.
type CodecRequest interface {
	// Model, User and System identify the request (model name, end-user
	// id, the agent's system text); FirstUserText is the first prompt.
	Model() string
	User() string
	System() string
	FirstUserText() string
	// Streamed reports a request for a streamed response.
	Streamed() bool
	// Structured reports a request for an answer in a structured form (a
	// JSON object, a schema): data a program parses, to which no text can
	// be added without breaking it.
	Structured() bool
	// Turn is the request's agent-loop turn.
	Turn() *Turn
	// ReplaceToolResult, AppendToMessage and InjectSystem edit the body
	// (see Turn): each returns a new body and keeps the rest of it.
	ReplaceToolResult(body []byte, callID, content string) ([]byte, error)
	AppendToMessage(body []byte, pos int, text string) ([]byte, error)
	InjectSystem(body []byte, text string, afterAgentSystem bool) ([]byte, error)
	// Answer is a complete response, in the request's mode (streamed or
	// not), whose final answer is text: hookgate's answer to a request it
	// does not forward.
	Answer(text string) (contentType string, body []byte)
}

// CodecStream splits one streamed response into frames and frames what
// hookgate writes to the client.
type CodecStream interface {
	// Feed adds bytes read from the upstream; End says there are no more.
	Feed(b []byte)
	End()
	// Next returns the next whole frame: raw is its bytes as they came,
	// payload the JSON it carries. ok is false when more bytes are needed
	// (or, after End, when none are left). An error ends the stream: the
	// bytes cannot be read as the format's frames.
	Next() (raw, payload []byte, ok bool, err error)
	// Truncated reports, after End, bytes that make no whole frame, or a
	// stream whose framing never closed (a JSON array without its ']').
	Truncated() bool
	// Raw is what the client gets for a frame passed on untouched: raw
	// itself, or the payload framed again where the framing is hookgate's
	// (an array stream's separators).
	Raw(dst, raw, payload []byte) []byte
	// Frame appends a payload hookgate wrote, framed for the client.
	Frame(dst, payload []byte) []byte
	// Close appends what ends the client's stream after its last frame
	// (an array stream's ']'); nothing for most formats.
	Close(dst []byte) []byte
	// ErrorFrame appends the in-band error that ends a failed stream,
	// with whatever Close would append: nothing is written after it.
	ErrorFrame(dst []byte, code, message string) []byte
	// Heartbeat is what tells the client a call is being held, or nil
	// when no client of the format reads such a thing safely.
	Heartbeat() []byte
}

// CodecFrame is one decoded frame: what the neutral interceptor needs of
// it. Fields alias the decoded payload and are valid while it is.
type CodecFrame struct {
	// Calls are the whole tool calls it carries, in order.
	Calls []CodecCall
	// Text is the answer text it carries (thoughts excluded).
	Text []byte
	// Ends reports the frame that ends the answer (a finish reason, a
	// done flag): after it, no call may come.
	Ends bool
	// Error reports the upstream's own in-band error: it ends the stream
	// and goes to the client as it came.
	Error bool
	// Meaningful reports that the frame still says something once its
	// calls are removed; a frame that carried only calls may be dropped.
	Meaningful bool
	// Piece is the piece of a call streamed over several frames that the
	// frame carries (Part PieceNone: none). Such a frame belongs to its
	// call: it is held with it, and goes out as the call's decision says
	// (as it came, re-encoded by PieceCodec.EncodeCall, or not at all).
	Piece CallPiece
	// Slot is the place in the answer the frame names (a content block's
	// index), when Slot.Set: the machine numbers the slots the client
	// reads contiguously, and has PieceCodec.Renumber re-encode a frame
	// whose slot moved because one before it was removed.
	Slot FrameSlot
	// Completes reports, for a format whose stream completes in a frame
	// of its own after the one that ends the answer (Anthropic's
	// message_stop after message_delta), the frame that completes it:
	// after it no frame may come, and an answer no frame ended before it
	// ends there (its notes join it, pre_response does not run).
	Completes bool
	// Usage is the usage object the frame reports (token counts), or nil.
	Usage []byte
	// CallsRemoved is set by the interceptor, not the codec, on the frame
	// that ends the answer before EditFrame: the answer had calls and none
	// of them reached the client (a stop reason naming tool calls becomes
	// the end of the turn).
	CallsRemoved bool
	// TextJoined is set by the interceptor, not the codec, on the frame
	// that ends the answer of a TextRepeatCodec before EditFrame gets the
	// text hookgate added: the closing frame of the text slot the text
	// joined, as it went out; nil when the text went out as a slot of its
	// own (TextSlot).
	TextJoined []byte
	// Repeats reports an end frame whose Calls repeat the answer's calls
	// (a snapshot of the whole answer): a call streamed in pieces before
	// it, by ID, else by Key, is not judged again but takes that call's decision
	// (removed when blocked or never written, given the arguments it went
	// out with otherwise); a call no piece streamed is judged as a whole
	// call of the frame.
	Repeats bool
	// State is the codec's own reading of the frame, for EditFrame.
	State any
}

// PiecePart is what a frame does to a call streamed in pieces.
type PiecePart uint8

const (
	PieceNone  PiecePart = iota
	PieceStart           // the call starts: ID, Name, and Args when sent whole with the start
	PieceArgs            // Args is the next fragment of the call's arguments, decoded
	PieceEnd             // the call is complete
	// PieceOther belongs to the call and carries nothing of it the
	// machine reads (a signature): it is held and decided with the call.
	PieceOther
)

// CallPiece is one piece of a call streamed over several frames.
type CallPiece struct {
	Part PiecePart
	// Key tells the call apart from the others of the response (the
	// format's index); a start with a key already seen begins a new call,
	// and so does an end that names the call (Name set) at a key with no
	// call open: the whole call, sent done without a start.
	Key string
	// ID and Name are the call's, on its start; on its end, when set,
	// they must be the start's.
	ID, Name string
	// Args is, on a start, the arguments object sent with it (nil: none);
	// on PieceArgs, the fragment; on an end, the whole arguments it
	// repeats (nil: none). The fragments joined are the call's
	// arguments; when they are empty (or blank), the start's are, else
	// the end's. An end that repeats other arguments than the fragments
	// (or the start) gave blocks the call: a client may read either.
	Args []byte
	// EventKey is, on a start, what the call's event id derives from when
	// the format names it (CodecCall.EventKey).
	EventKey []string
	// Ref is, on a start, the codec's own reference to the call (an item
	// id and kind) that EncodeCall gets back in CodecCall.Ref.
	Ref string
}

// FrameSlot is the place in the answer a frame names.
type FrameSlot struct {
	Set bool
	// Opens reports the frame that opens the slot (a block's start): it
	// takes the next number the client has not read yet, or, when it
	// belongs to a removed call, none, and the frames that name the slot
	// after it follow.
	Opens bool
	// ClosesText reports the frame that closes a slot of answer text (a
	// text block's stop), for a TextSlotCodec: it waits, with what follows
	// it, until the next slot opens or the answer ends, since only then is
	// it known to close the answer's last text, which the notes join.
	ClosesText bool
	Index      int
}

// PieceCodec is a Codec whose calls stream in pieces (CodecFrame.Piece)
// and whose frames name slots (CodecFrame.Slot).
type PieceCodec interface {
	Codec
	// EncodeCall returns the payloads that carry call whole, in slot,
	// with call.Args as its arguments: what a rewritten call's frames
	// become.
	EncodeCall(slot int, call CodecCall) ([][]byte, error)
	// Renumber returns the payload of f with the slot it names set to
	// slot; the rest keeps its bytes.
	Renumber(payload []byte, f *CodecFrame, slot int) ([]byte, error)
}

// CodecCall is one whole tool call of a frame.
type CodecCall struct {
	// ID is the call's id as sent ("" when the format's call has none).
	ID   string
	Name string
	// Args is the arguments object as sent ("" or nothing: no arguments).
	Args []byte
	// Key tells the call apart within the response, for audit keys, when
	// it has no id (its position).
	Key string
	// EventKey, when set, is what the call's pre_tool_use event id derives
	// from (the message's id, the call's, its place), instead of ID.
	EventKey []string
	// Ref is the codec's own reference to a call streamed in pieces
	// (CallPiece.Ref), for EncodeCall.
	Ref string
}

// CallEdit is hookgate's decision on one call of a frame: removed, or
// given Args.
type CallEdit struct {
	Call   int // the call's index in CodecFrame.Calls
	Remove bool
	Args   []byte
}

// Turn is one request of an agent loop read out of any wire format: what
// the request-side events need of it. Positions are those of the format's
// own message list, so that the request's edits find them again.
type Turn struct {
	// HasAssistant reports an assistant message in the history: the
	// session has begun.
	HasAssistant bool
	// Users are the user messages (position and text), in order; the last
	// one is the newest prompt.
	Users []TurnMessage
	// Results are the tool results the agent sends back, in order.
	Results []TurnResult
	// Calls are the tool calls of the history, by id.
	Calls map[string]TurnCall
}

// TurnMessage is a user message of a Turn.
type TurnMessage struct {
	Pos  int
	Text string
}

// TurnResult is a tool result of a Turn, by the id of the call it answers.
type TurnResult struct {
	CallID  string
	Content string
}

// TurnCall is a tool call of a Turn's history.
type TurnCall struct {
	Name      string
	Arguments string
}
