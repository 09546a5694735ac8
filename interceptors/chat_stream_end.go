package interceptors

import (
	"bytes"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/hookgate/hookgate/providers"
)

// chatStreamEnds reports a frame after which a chat-completions stream may
// end cleanly: [DONE]; a chunk carrying a finish_reason (some providers
// send no [DONE]); or an in-band error (Groq's "event: error", OpenRouter's
// top-level "error"), which ends the stream as the upstream meant it to.
func chatStreamEnds(f *providers.SSEFrame) bool {
	if f.Done {
		return true
	}
	if bytes.Equal(f.Event, []byte("error")) {
		return true
	}
	if len(f.Data) == 0 || f.Data[0] != '{' {
		return false
	}
	if gjson.GetBytes(f.Data, "error").Exists() {
		return true
	}
	ended := false
	gjson.GetBytes(f.Data, "choices").ForEach(func(_, ch gjson.Result) bool {
		if fr := ch.Get("finish_reason"); fr.Type == gjson.String && fr.Str != "" {
			ended = true
			return false
		}
		return true
	})
	return ended
}

// openAIError encodes {"error":{"message","type","code"}}.
func openAIError(typ, code, message string) []byte {
	b := []byte(`{"error":{"message":"","type":"","code":null}}`)
	b, _ = sjson.SetBytes(b, "error.message", message)
	b, _ = sjson.SetBytes(b, "error.type", typ)
	if code != "" {
		b, _ = sjson.SetBytes(b, "error.code", code)
	}
	return b
}
