package interceptors_test

import (
	"context"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/providers"
)

// TestExchangeCapabilities holds what the proxy finds, by a type
// assertion on the Exchange that Begin returns, of every format's
// exchange, hooked or not: its hook and work times (Timer), its model and
// usage for the spans (Describer), its truncation record
// (TruncationRecorder), and per format its resend (chat), its plain
// passthrough and its own stream media type (the codec formats).
func TestExchangeCapabilities(t *testing.T) {
	var specs []hooks.Spec
	if err := yaml.Unmarshal([]byte(`
- id: deny-rm
  event: pre_tool_use
  matcher: "^exec$"
  if_expr: "has(toolInput.command) && toolInput.command.startsWith('rm ')"
  handler:
    type: script
    source: 'function handle(e) { return { decision: "block", reason: "no" }; }'
`), &specs); err != nil {
		t.Fatal(err)
	}
	specs[0].Trusted = true
	engine, err := hooks.Compile(specs, hooks.Deps{}, hooks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close() })

	type want struct{ resender, plain, streamReader bool }
	for _, f := range []struct {
		name  string
		build func(interceptors.Options) interceptors.Interceptor
		req   interceptors.Request
		want  want
	}{
		{"chat", func(o interceptors.Options) interceptors.Interceptor { return interceptors.NewChat(o) },
			interceptors.Request{Route: "/v1/chat/completions", Provider: "openai", Body: []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)},
			want{resender: true, plain: true}},
		{"messages", func(o interceptors.Options) interceptors.Interceptor { return interceptors.NewMessages(o) },
			interceptors.Request{Route: "/v1/messages", Provider: "anthropic", Body: []byte(`{"model":"m","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)},
			want{plain: true}},
		{"responses", func(o interceptors.Options) interceptors.Interceptor { return interceptors.NewResponses(o) },
			interceptors.Request{Route: "/v1/responses", Provider: "openai", Body: []byte(`{"model":"m","stream":true,"input":"hi"}`)},
			want{plain: true}},
		{"ollama", func(o interceptors.Options) interceptors.Interceptor {
			return interceptors.NewCodec(o, providers.OllamaCodec)
		},
			interceptors.Request{Route: "/api/chat", Provider: "ollama", Body: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)},
			want{streamReader: true}},
	} {
		for _, hooked := range []bool{false, true} {
			name := f.name + "/unhooked"
			opts := interceptors.Options{}
			if hooked {
				name = f.name + "/hooked"
				opts.Engine = engine
			}
			t.Run(name, func(t *testing.T) {
				req := f.req
				ex, err := f.build(opts).Begin(context.Background(), &req)
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := ex.(interceptors.Timer); !ok {
					t.Error("no Timer: the proxy cannot take the hooks' time out of its overhead")
				}
				if _, ok := ex.(interceptors.TruncationRecorder); !ok {
					t.Error("no TruncationRecorder: a truncated stream goes unaudited")
				}
				d, ok := ex.(interceptors.Describer)
				switch {
				case !ok:
					t.Error("no Describer: the spans lose the model")
				case hooked && d.Model() != "m":
					t.Errorf("Describer.Model() = %q, want the request's model", d.Model())
				}
				if _, ok := ex.(interceptors.Resender); ok != f.want.resender {
					t.Errorf("Resender found: %v, want %v", ok, f.want.resender)
				}
				p, ok := ex.(interceptors.PlainPassthrough)
				switch {
				case ok != f.want.plain:
					t.Errorf("PlainPassthrough found: %v, want %v", ok, f.want.plain)
				case ok && !hooked && !p.PassesPlainThrough():
					t.Error("an unhooked exchange does not pass its plain response through")
				case ok && hooked && p.PassesPlainThrough():
					t.Error("an exchange under pre_tool_use passes its plain response through unread")
				}
				sr, ok := ex.(interceptors.StreamReader)
				switch {
				case ok != f.want.streamReader:
					t.Errorf("StreamReader found: %v, want %v", ok, f.want.streamReader)
				case ok && hooked && !sr.StreamsResponse():
					// Ollama streams NDJSON unless the request says
					// "stream": false.
					t.Error("a streamed Ollama request is not reported as streamed")
				}
			})
		}
	}
}
