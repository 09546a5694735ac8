package interceptors

import (
	"bytes"
	"context"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/fixtures"
)

// BenchmarkMessagesRelay relays a recorded Anthropic stream (thinking, a
// tool_use held and judged) with no hooks, and with an allowing
// pre_tool_use hook that holds the call.
func BenchmarkMessagesRelay(b *testing.B) {
	var body []byte
	for _, f := range fixtures.List(b, fixtures.APIAnthropic, fixtures.KindSSE) {
		if f.Name == "messages-thinking-then-tool-use.sse" {
			body = f.Read(b)
		}
	}
	if body == nil {
		b.Fatal("fixture messages-thinking-then-tool-use.sse not found")
	}
	for _, c := range []struct {
		name string
		doc  string
	}{{"no hooks", ""}, {"allowing hook", msgAllowTools}} {
		b.Run(c.name, func(b *testing.B) {
			var opts Options
			if c.doc != "" {
				opts.Engine = msgBenchEngine(b, c.doc)
			}
			ex, err := NewMessages(opts).Begin(context.Background(), &Request{Route: "/v1/messages", Body: []byte(messagesRequest)})
			if err != nil {
				b.Fatal(err)
			}
			var out bufferSink
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				out.Reset()
				if err := ex.RelayStream(context.Background(), bytes.NewReader(body), &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// msgBenchEngine compiles hook entries written in YAML for a benchmark.
func msgBenchEngine(b *testing.B, doc string) *hooks.Engine {
	b.Helper()
	var specs []hooks.Spec
	if err := yaml.Unmarshal([]byte(doc), &specs); err != nil {
		b.Fatal(err)
	}
	for i := range specs {
		specs[i].Trusted = true
	}
	e, err := hooks.Compile(specs, hooks.Deps{}, hooks.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}
