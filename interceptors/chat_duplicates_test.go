package interceptors

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hookgate/hookgate/hooks"
)

// A chunk that repeats a key is read by agents (the last value wins) but
// not by hookgate: it must never carry a call past the hooks.
func TestDuplicateKeyChunkStopsTheStream(t *testing.T) {
	e := engineFor(t, `
- id: block-all
  event: pre_tool_use
  handler: {type: script, source: 'function handle(e) { return {decision: "block", reason: "no"}; }'}
`)
	stream := chunkLine(`{"content":"hi "}`, "null") +
		`data: {"id":"c1","choices":[],"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}}]},"finish_reason":"tool_calls"}]}` + "\n\n" +
		"data: [DONE]\n\n"
	c := NewChat(Options{Engine: e})
	ex, _ := c.Begin(context.Background(), &Request{Body: []byte(`{"model":"m","stream":true,"messages":[]}`)})
	var out bufferSink
	err := ex.RelayStream(context.Background(), strings.NewReader(stream), &out)
	if err == nil || strings.Contains(out.String(), "rm -rf") || !strings.Contains(out.String(), "unreadable_chunk") {
		t.Fatalf("err %v; the client got:\n%s", err, out.String())
	}
}

// recordingHandler counts the events it sees by tool call id.
type recordingHandler struct{ n atomic.Int64 }

func (r *recordingHandler) Handle(context.Context, *hooks.Event) (hooks.Result, error) {
	r.n.Add(1)
	return hooks.Result{Decision: hooks.Allow}, nil
}

// Some upstreams reuse call ids across turns (call_0 again): each result
// still fires post_tool_use once, and resends fire nothing more.
func TestReusedCallIDsFireOncePerResult(t *testing.T) {
	rec := &recordingHandler{}
	reg := hooks.NewBuiltins()
	reg.Register("count", hooks.BuiltinFactoryFunc(func(hooks.BuiltinConfig) (hooks.Handler, error) { return rec, nil }))
	e, err := hooks.Compile([]hooks.Spec{{ID: "count", Event: hooks.PostToolUse, Trusted: true, Handler: hooks.HandlerSpec{Type: "builtin", Name: "count"}}},
		hooks.Deps{}, hooks.Options{Builtins: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	c := NewChat(Options{Engine: e})
	turn1 := `{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_0","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_0","content":"one"}`
	turn2 := turn1 + `,{"role":"assistant","content":null,"tool_calls":[{"id":"call_0","type":"function","function":{"name":"g","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_0","content":"two"}`
	for _, history := range []string{turn1, turn2, turn2} {
		req := &Request{Body: []byte(`{"model":"m","messages":[` + history + `]}`), Header: func(name string) string {
			if name == "X-Session-Id" {
				return "s-reuse"
			}
			return ""
		}}
		c.opts.SessionHeader = "X-Session-Id"
		if _, err := c.Begin(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	e.Close() // observers run on the pool: wait for them
	if got := rec.n.Load(); got != 2 {
		t.Fatalf("post_tool_use fired %d times for two results (one id reused), want 2", got)
	}
}
