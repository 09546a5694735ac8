//go:build !race

package interceptors

import (
	"context"
	"strings"
	"testing"
)

// Relaying a text delta of a Messages stream allocates nothing once the
// relay is warm, whether hooks watch the stream or not: the cost of a
// stream does not grow with its length.
func TestMessagesTextDeltasAllocateNothing(t *testing.T) {
	stream := func(deltas int) string {
		events := []string{evStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`}
		for range deltas {
			events = append(events, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word "}}`)
		}
		return msgSSE(append(events, `{"type":"content_block_stop","index":0}`, evEndTurn, evMsgStop)...)
	}
	for name, opts := range map[string]Options{"no hooks": {}, "watched": {Engine: engineFor(t, msgAllowTools)}} {
		ex, err := NewMessages(opts).Begin(context.Background(), &Request{Route: "/v1/messages", Body: []byte(messagesRequest)})
		if err != nil {
			t.Fatal(err)
		}
		run := func(body string) func() {
			return func() {
				var out bufferSink
				if err := ex.RelayStream(context.Background(), strings.NewReader(body), &out); err != nil {
					t.Fatal(err)
				}
			}
		}
		short, long := stream(10), stream(1010)
		perDelta := (testing.AllocsPerRun(20, run(long)) - testing.AllocsPerRun(20, run(short))) / 1000
		if perDelta > 0.05 {
			t.Errorf("%s: %.3f allocations per text delta, want none", name, perDelta)
		}
	}
}
