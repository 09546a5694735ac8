//go:build !race

package interceptors

import (
	"context"
	"runtime"
	"testing"
)

// allocsPerChunk is the steady-state allocations per relayed event: the
// allocations of a long stream minus those of a short one of the same
// shape, divided by the events between them, so that what an exchange
// allocates once (its parser, buffers, session) cancels out.
func allocsPerChunk(t *testing.T, chat *Chat, short, long [][]byte) float64 {
	t.Helper()
	var sink discardSink
	run := func(events [][]byte) float64 {
		r := &eventReader{events: events}
		relayOnce(t, chat, r, &sink) // warm pools and the session
		return testing.AllocsPerRun(50, func() { relayOnce(t, chat, r, &sink) })
	}
	// Background work (the script runtime pool refills itself) is counted
	// too: the least of three tries is the relay's own.
	best := -1.0
	for range 3 {
		a, b := run(short), run(long)
		if per := (b - a) / float64(len(long)-len(short)); best < 0 || per < best {
			best = per
		}
	}
	return best
}

// TestRelayAllocsPerChunk holds the target: relaying a text chunk
// allocates nothing, with no hooks and with a pre_tool_use hook (the
// answer's text is kept only when pre_response, stop or retries need it;
// chunks are read with providers.ChatChunk). The hooked ceiling leaves
// room for what the script runtime pool does in the background meanwhile.
func TestRelayAllocsPerChunk(t *testing.T) {
	for _, c := range []struct {
		name  string
		hooks string
		max   float64
	}{
		{"no hooks", "", 0},
		{"pre_tool_use script hook, text chunks", allowScripts(1), 0.1},
	} {
		t.Run(c.name, func(t *testing.T) {
			chat := NewChat(Options{Engine: compileHooks(t, c.hooks)})
			per := allocsPerChunk(t, chat, textStream(100), textStream(2100))
			t.Logf("%s: %.2f allocations per text chunk (target 0; ceiling here %v)", c.name, per, c.max)
			if per > c.max+0.05 {
				t.Errorf("%.2f allocations per chunk, more than the %v measured when this test was written (target 0)", per, c.max)
			}
		})
	}
}

// heapAfterGC is the live heap after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A stream of 100,000 events relays in flat heap: the live heap sampled
// every 10,000 events does not grow beyond a bound that a stream-sized
// leak would exceed. Tool-call-free text deltas carry 6 bytes each, so
// 100,000 of them are 600 KB of answer text; the hooked path keeps up to
// maxAnswerText of it for pre_response (twice: what the client saw and what
// the upstream said), which is the bound below.
func TestRelayHeapFlatOverLongStream(t *testing.T) {
	if testing.Short() {
		t.Skip("long stream")
	}
	const events = 100_000
	for _, c := range []struct {
		name  string
		hooks string
		bound uint64
	}{
		{"no hooks", "", 256 << 10},
		{"pre_tool_use script hook", allowScripts(1), 2*maxAnswerText + 256<<10},
	} {
		t.Run(c.name, func(t *testing.T) {
			chat := NewChat(Options{Engine: compileHooks(t, c.hooks)})
			stream := textStream(events)
			var samples []uint64
			r := &eventReader{events: stream, each: func(i int) {
				if i%10_000 == 0 {
					samples = append(samples, heapAfterGC())
				}
			}}
			var sink discardSink
			ex, err := chat.Begin(context.Background(), &Request{Route: "/v1/chat/completions", Body: []byte(benchStreamRequest)})
			if err != nil {
				t.Fatal(err)
			}
			if err := ex.RelayStream(context.Background(), r, &sink); err != nil {
				t.Fatal(err)
			}
			first, peak := samples[1], samples[1] // samples[0] precedes the exchange's own buffers
			for _, s := range samples[1:] {
				peak = max(peak, s)
			}
			growth := int64(peak) - int64(first)
			t.Logf("%s: live heap every 10,000 events (KiB): %v; growth %d KiB over %d events", c.name, kib(samples), growth>>10, events)
			if growth > int64(c.bound) {
				t.Errorf("live heap grew by %d KiB over the stream, more than %d KiB", growth>>10, c.bound>>10)
			}
		})
	}
}

func kib(v []uint64) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = x >> 10
	}
	return out
}
