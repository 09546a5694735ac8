package interceptors

import (
	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/providers"
)

// messagesStreamEnds reports an event after which a Messages stream may
// end cleanly: message_stop, or an in-band error. Anything else before the
// end of the body is a truncation: message_delta alone is not an end. The
// "event:" line names it on every recorded stream; the payload's type is
// read when the line is missing.
func messagesStreamEnds(f *providers.SSEFrame) bool {
	typ := string(f.Event)
	if f.Event == nil && f.HasData() {
		typ = gjson.GetBytes(f.Data, "type").String()
	}
	return typ == providers.MessageStop || typ == providers.MessagesError
}

// messagesFailEvent is the "event: error" that ends a stream hookgate
// cannot finish (truncated upstream, limits), in Anthropic's shape, so
// both Anthropic SDKs raise instead of taking the stream for complete.
func messagesFailEvent(code, message string) []byte {
	return providers.MessagesErrorEvent("api_error", messagesErrorText(code, message))
}
