package interceptors

import (
	"bytes"
	"context"
	"testing"

	"github.com/hookgate/hookgate/internal/fixtures"
	"github.com/hookgate/hookgate/providers"
)

// BenchmarkResponsesRelay relays a recorded Responses stream (reasoning,
// a function call held and judged) through the Responses interceptor
// (which streams through the codec machine, with the chain's link) and
// through the bare codec machine over providers.ResponsesCodec, with an
// allowing and a blocking pre_tool_use hook.
func BenchmarkResponsesRelay(b *testing.B) {
	var body []byte
	for _, f := range fixtures.List(b, fixtures.APIResponses, fixtures.KindSSE) {
		if f.Name == "responses-gpt5mini-function-call.sse" {
			body = f.Read(b)
		}
	}
	if body == nil {
		b.Fatal("fixture responses-gpt5mini-function-call.sse not found")
	}
	for _, m := range []struct {
		name  string
		begin func(Options) (Exchange, error)
	}{
		{"responses machine", func(o Options) (Exchange, error) {
			return NewResponses(o).Begin(context.Background(), &Request{Route: "/v1/responses", Provider: "openai", Body: []byte(streamRequest)})
		}},
		{"codec machine", func(o Options) (Exchange, error) {
			return NewCodec(o, providers.ResponsesCodec).Begin(context.Background(), &Request{Route: "/v1/responses", Provider: "openai", Body: []byte(streamRequest)})
		}},
	} {
		for _, h := range []struct{ name, doc string }{{"allowing hook", allowAllHook}, {"blocking hook", blockAllHook}} {
			b.Run(m.name+"/"+h.name, func(b *testing.B) {
				ex, err := m.begin(Options{Engine: msgBenchEngine(b, h.doc)})
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
}
