package interceptors

import (
	"bytes"

	"github.com/hookgate/hookgate/providers"
)

// chatEnds tells when a chat-completions stream may end cleanly. It keeps
// one chunk view, so watching a stream's end allocates nothing per chunk.
type chatEnds struct {
	chunk providers.ChatChunk
}

// ends reports a frame after which the stream may end: [DONE]; a chunk
// carrying a finish_reason (some providers send no [DONE]); or an in-band
// error (Groq's "event: error", OpenRouter's top-level "error"), which ends
// the stream as the upstream meant it to.
func (e *chatEnds) ends(f *providers.SSEFrame) bool {
	if f.Done || bytes.Equal(f.Event, []byte("error")) {
		return true
	}
	if len(f.Data) == 0 || f.Data[0] != '{' || e.chunk.Decode(f.Data) != nil {
		return false
	}
	if e.chunk.HasError() {
		return true
	}
	for i := range e.chunk.Choices {
		if e.chunk.Choices[i].Finished() {
			return true
		}
	}
	return false
}

// openAIError encodes {"error":{"message","type","code"}}.
func openAIError(typ, code, message string) []byte {
	return providers.ErrorBody(message, typ, code)
}
