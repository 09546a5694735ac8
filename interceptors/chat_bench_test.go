package interceptors

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/providers"
)

// discardSink is a client that takes everything and allocates nothing.
type discardSink struct{ n int64 }

func (d *discardSink) Write(p []byte) (int, error) { d.n += int64(len(p)); return len(p), nil }
func (d *discardSink) Flush() error                { return nil }

// eventReader hands out one SSE event per Read, as a paced upstream does,
// without allocating. Rewind starts it over.
type eventReader struct {
	events [][]byte
	i      int
	// each, when set, is called before event i is handed out.
	each func(i int)
}

func (r *eventReader) Read(p []byte) (int, error) {
	if r.i >= len(r.events) {
		return 0, io.EOF
	}
	if r.each != nil {
		r.each(r.i)
	}
	n := copy(p, r.events[r.i])
	r.i++
	return n, nil
}

func (r *eventReader) Rewind() { r.i = 0 }

// textStream is a chat stream of a role chunk, n text deltas, a finish,
// usage and [DONE], as separate events.
func textStream(n int) [][]byte {
	spec := mockupstream.StreamSpec{TextDeltas: n, Usage: true}
	return mockupstream.Chunks(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})
}

// toolStream is textStream with tools tool calls, each in frags argument
// fragments, after the text.
func toolStream(n, tools, frags int) [][]byte {
	spec := mockupstream.StreamSpec{TextDeltas: n, ToolCalls: tools, ArgFragments: frags, Usage: true}
	return mockupstream.Chunks(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})
}

// compileHooks compiles hook entries written in YAML, as trusted.
func compileHooks(tb testing.TB, doc string) *hooks.Engine {
	tb.Helper()
	if strings.TrimSpace(doc) == "" {
		return nil
	}
	var specs []hooks.Spec
	if err := yaml.Unmarshal([]byte(doc), &specs); err != nil {
		tb.Fatal(err)
	}
	for i := range specs {
		specs[i].Trusted = true
	}
	e, err := hooks.Compile(specs, hooks.Deps{}, hooks.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// allowScripts is n allowing script hooks on pre_tool_use.
func allowScripts(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "- id: allow-%d\n  event: pre_tool_use\n  priority: %d\n  handler: {type: script, source: 'function handle(e) { return {decision: \"allow\"}; }'}\n", i, i)
	}
	return b.String()
}

const benchStreamRequest = `{"model":"gpt-4o","stream":true,"messages":[{"role":"system","content":"You are a coding agent."},{"role":"user","content":"List the files."}],"tools":[{"type":"function","function":{"name":"exec","parameters":{"type":"object","properties":{"command":{"type":"string"}}}}}]}`

// relayOnce runs one stream through a fresh exchange of c.
func relayOnce(tb testing.TB, c *Chat, r *eventReader, sink Sink) {
	ex, err := c.Begin(context.Background(), &Request{Route: "/v1/chat/completions", Body: []byte(benchStreamRequest)})
	if err != nil {
		tb.Fatal(err)
	}
	r.Rewind()
	if err := ex.RelayStream(context.Background(), r, sink); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkRelayStream relays a whole stream per op through the chat
// interceptor (request read, exchange, SSE parse, relay), one event per
// read; ns/chunk is the cost of one event.
func BenchmarkRelayStream(b *testing.B) {
	for _, c := range []struct {
		name   string
		hooks  string
		events [][]byte
	}{
		{"no-hooks/text-200", "", textStream(200)},
		{"no-hooks/tools-2x4", "", toolStream(8, 2, 4)},
		{"script1/text-200", allowScripts(1), textStream(200)},
		{"script1/tools-2x4", allowScripts(1), toolStream(8, 2, 4)},
		{"script10/tools-2x4", allowScripts(10), toolStream(8, 2, 4)},
	} {
		b.Run(c.name, func(b *testing.B) {
			chat := NewChat(Options{Engine: compileHooks(b, c.hooks)})
			r := &eventReader{events: c.events}
			var sink discardSink
			size := 0
			for _, e := range c.events {
				size += len(e)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				relayOnce(b, chat, r, &sink)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(c.events)), "ns/chunk")
		})
	}
}

// BenchmarkSessionContextRewrite is the per-request cost of session
// context: a request of a known session gets the context its session_start
// hook contributed injected as a system message (the hook itself fired
// once, before the timer).
func BenchmarkSessionContextRewrite(b *testing.B) {
	e := compileHooks(b, `
- id: house-rules
  event: session_start
  handler: {type: script, source: 'function handle(e) { return {decision: "allow", additionalContext: "You work for Example Corp. Production is read-only this week."}; }'}
`)
	chat := NewChat(Options{Engine: e})
	req := &Request{Route: "/v1/chat/completions", Body: []byte(benchStreamRequest)}
	ex, err := chat.Begin(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	if !strings.Contains(string(ex.Body()), "Example Corp") {
		b.Fatalf("context not injected: %s", ex.Body())
	}
	b.SetBytes(int64(len(req.Body)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := chat.Begin(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInjectSystemMessage is the body edit alone.
func BenchmarkInjectSystemMessage(b *testing.B) {
	body := []byte(benchStreamRequest)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for range b.N {
		if _, err := providers.InjectSystemMessage(body, "You work for Example Corp. Production is read-only this week.", providers.SystemFirst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJudgeToolCall is pre_tool_use dispatch for one completed call:
// building the event from the assembled arguments and running the chain.
func BenchmarkJudgeToolCall(b *testing.B) {
	args := []byte(`{"command":"ls -la /srv/app/part-0 && cat /srv/app/part-0/README.md","cwd":"/home/agent/project","timeout_ms":30000}`)
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("script%d", n), func(b *testing.B) {
			e := compileHooks(b, allowScripts(n))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				ev := &hooks.Event{Event: hooks.PreToolUse, SessionID: "s", ToolName: "exec", ToolCallID: "call_0"}
				v := judgeToolCall(context.Background(), e, ev, args)
				if v.Decision != hooks.Allow {
					b.Fatalf("decision %s", v.Decision)
				}
			}
		})
	}
}

// timingSink notes when the first write carrying a finish_reason arrives.
type timingSink struct {
	discardSink
	finishedAt time.Time
}

var finishKey = []byte(`"finish_reason":"`)

func (s *timingSink) Write(p []byte) (int, error) {
	if s.finishedAt.IsZero() && bytes.Contains(p, finishKey) {
		s.finishedAt = time.Now()
	}
	return s.discardSink.Write(p)
}

// BenchmarkHeldCallRelease is the delay a held tool call adds inside the
// interceptor: from the moment the upstream's chunk that completes the call
// (the finish) is read, to the moment the client is written the call with
// its finish. The upstream is paced (interval between events) so that the
// relay waits in Read as it does on a socket. Reported as release-p50-us
// and release-p99-us; without hooks it is the relay's own time.
func BenchmarkHeldCallRelease(b *testing.B) {
	events := toolStream(2, 1, 3)
	finishAt := -1
	for i, e := range events {
		if bytes.Contains(e, finishKey) {
			finishAt = i
		}
	}
	for _, c := range []struct{ name, hooks string }{
		{"no-hooks", ""},
		{"script1", allowScripts(1)},
		{"script10", allowScripts(10)},
	} {
		b.Run(c.name, func(b *testing.B) {
			chat := NewChat(Options{Engine: compileHooks(b, c.hooks)})
			var delays []float64
			b.ResetTimer()
			for range b.N {
				var readAt time.Time
				r := &eventReader{events: events, each: func(i int) {
					time.Sleep(200 * time.Microsecond)
					if i == finishAt {
						readAt = time.Now()
					}
				}}
				sink := &timingSink{}
				relayOnce(b, chat, r, sink)
				delays = append(delays, float64(sink.finishedAt.Sub(readAt).Microseconds()))
			}
			slices.Sort(delays)
			b.ReportMetric(delays[len(delays)/2], "release-p50-us")
			b.ReportMetric(delays[min(len(delays)-1, len(delays)*99/100)], "release-p99-us")
		})
	}
}
