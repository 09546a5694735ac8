package interceptors

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/hookgate/hookgate/providers"
)

// blockedReply answers a refused request with a normal completion whose
// content says why (streamed when the agent asked for a stream), so an
// unmodified agent shows the reason instead of crashing on an error.
func (x *chatExchange) blockedReply(text string) *Reply {
	id := "chatcmpl-hookgate-" + randomHex(12)
	now := time.Now().Unix()
	if x.view.Stream {
		return &Reply{Status: 200, ContentType: "text/event-stream", Body: providers.SynthesizeStream(id, x.view.Model, now, text)}
	}
	return &Reply{Status: 200, ContentType: "application/json", Body: providers.SynthesizeCompletion(id, x.view.Model, now, text)}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
