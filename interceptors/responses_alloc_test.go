//go:build !race

package interceptors

import (
	"context"
	"strconv"
	"testing"
)

// responsesTextStream is a Responses answer of n text deltas, one event
// per Read.
func responsesTextStream(n int) [][]byte {
	var evs [][]byte
	seq := 0
	add := func(typ, body string) {
		evs = append(evs, []byte("event: "+typ+"\ndata: {\"type\":\""+typ+"\","+body+",\"sequence_number\":"+strconv.Itoa(seq)+"}\n\n"))
		seq++
	}
	add("response.created", `"response":{"id":"resp_b","status":"in_progress","output":[]}`)
	add("response.output_item.added", `"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"},"output_index":0`)
	add("response.content_part.added", `"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}`)
	for range n {
		add("response.output_text.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":"word ","logprobs":[]`)
	}
	add("response.output_item.done", `"item":{"id":"msg_1","type":"message","status":"completed","content":[],"role":"assistant"},"output_index":0`)
	add("response.completed", `"response":{"id":"resp_b","status":"completed","output":[{"id":"msg_1","type":"message","status":"completed","content":[],"role":"assistant"}]}`)
	return evs
}

// Steady-state relay of Responses text deltas allocates nothing per event,
// with no hooks and with a pre_tool_use hook that has no call to hold.
func TestResponsesRelayAllocsPerEvent(t *testing.T) {
	for _, c := range []struct{ name, hooks string }{{"no hooks", ""}, {"pre_tool_use script hook", allowScripts(1)}} {
		t.Run(c.name, func(t *testing.T) {
			r := NewResponses(Options{Engine: compileHooks(t, c.hooks)})
			var sink discardSink
			run := func(events [][]byte) float64 {
				rd := &eventReader{events: events}
				once := func() {
					ex, err := r.Begin(context.Background(), &Request{Route: "/v1/responses", Body: []byte(`{"model":"m","stream":true,"input":"hi"}`)})
					if err != nil {
						t.Fatal(err)
					}
					rd.Rewind()
					if err := ex.RelayStream(context.Background(), rd, &sink); err != nil {
						t.Fatal(err)
					}
				}
				once()
				return testing.AllocsPerRun(30, once)
			}
			short, long := responsesTextStream(100), responsesTextStream(2100)
			best := -1.0
			for range 3 {
				if per := (run(long) - run(short)) / 2000; best < 0 || per < best {
					best = per
				}
			}
			t.Logf("%s: %.3f allocations per text delta", c.name, best)
			if best > 0.05 {
				t.Errorf("%.3f allocations per text delta, want 0", best)
			}
		})
	}
}
