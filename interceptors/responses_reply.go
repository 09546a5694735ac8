package interceptors

import (
	"time"

	"github.com/hookgate/hookgate/providers"
)

// blockedReply answers a refused request with a normal, completed
// response whose message says why (streamed when the agent asked for a
// stream), so an unmodified agent shows the reason instead of crashing on
// an error.
func (x *responsesExchange) blockedReply(text string) *Reply {
	id := "resp_hookgate_" + randomHex(12)
	now := time.Now().Unix()
	if x.view.Stream {
		return &Reply{Status: 200, ContentType: "text/event-stream", Body: providers.SynthesizeResponseStream(id, x.view.Model, now, text)}
	}
	return &Reply{Status: 200, ContentType: "application/json", Body: providers.SynthesizeResponse(id, x.view.Model, now, text)}
}
