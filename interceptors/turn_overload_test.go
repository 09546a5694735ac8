package interceptors

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/admission"
)

// overloadPolicies are request-side hooks that would let the request
// through and add to it: a blocking user_prompt_submit hook (over the
// limit it used to answer as a blocked prompt) and a contributing
// session_start hook (it used to fail as hook_failed). want is what their
// contribution leaves in the forwarded body.
var overloadPolicies = []struct{ name, doc, want string }{
	{"user_prompt_submit", `
- id: prompt-guard
  event: user_prompt_submit
  handler: {type: script, source: 'function handle(e) { return {decision: "allow", additionalContext: "Prompt checked."}; }'}
`, "Prompt checked."},
	{"session_start", `
- id: rules
  event: session_start
  handler: {type: script, source: 'function handle(e) { return {decision: "allow", additionalContext: "House rules."}; }'}
`, "House rules."},
}

// overloadFormats are one fresh request of each wire format, each with a
// session of its own.
var overloadFormats = []struct {
	name  string
	begin func(Options) func(context.Context, *Request) (Exchange, error)
	req   Request
}{
	{"chat", func(o Options) func(context.Context, *Request) (Exchange, error) { return NewChat(o).Begin },
		Request{Route: "/v1/chat/completions", Provider: "openai", Body: []byte(`{"model":"m","messages":[{"role":"user","content":"hello from chat"}]}`)}},
	{"messages", func(o Options) func(context.Context, *Request) (Exchange, error) { return NewMessages(o).Begin },
		Request{Route: "/v1/messages", Provider: "anthropic", Body: []byte(`{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hello from messages"}]}`)}},
	{"responses", func(o Options) func(context.Context, *Request) (Exchange, error) { return NewResponses(o).Begin },
		Request{Route: "/v1/responses", Provider: "openai", Body: []byte(`{"model":"m","input":"hello from responses"}`)}},
}

// A request that passed the door check but finds every hook slot taken
// when its request-side hooks run is refused with a 503 hook_limit_reached
// (the proxy adds Retry-After), not answered as a blocked prompt, and
// nothing is forwarded; once a slot is free the same request goes through
// with its hooks' contribution.
func TestRequestSideHooksOverTheLimitAnswer503(t *testing.T) {
	for _, p := range overloadPolicies {
		for _, f := range overloadFormats {
			t.Run(p.name+"/"+f.name, func(t *testing.T) {
				e := engineFor(t, p.doc)
				lim := admission.New("hooks", 1, 0, nil)
				e.LimitExecutions(lim)
				begin := f.begin(Options{Engine: e})
				if !lim.TryAcquire() {
					t.Fatal("the only slot is taken already")
				}

				req := f.req
				ex, err := begin(context.Background(), &req)
				if ex != nil {
					// Forwarded (no reply) or answered (a blocked prompt).
					t.Fatalf("over the limit an exchange came back, error %v, reply %+v", err, ex.Reply())
				}
				var re *RequestError
				if !errors.As(err, &re) {
					t.Fatalf("over the limit: %v; want a *RequestError", err)
				}
				if re.Status != 503 || re.Type != "server_error" || re.Code != "hook_limit_reached" {
					t.Fatalf("over the limit: %d %s %s", re.Status, re.Type, re.Code)
				}
				for _, want := range []string{"limits.max_concurrent_hooks", "retry"} {
					if !strings.Contains(re.Message, want) {
						t.Fatalf("message %q does not say %q", re.Message, want)
					}
				}
				if lim.InUse() != 1 {
					t.Fatalf("%d slots in use after the refusal, want the 1 held by the test", lim.InUse())
				}

				lim.Release()
				ex, err = begin(context.Background(), &req)
				if err != nil {
					t.Fatalf("with a free slot: %v", err)
				}
				if ex.Reply() != nil {
					t.Fatalf("with a free slot the request was answered instead of forwarded: %s", ex.Reply().Body)
				}
				if !strings.Contains(string(ex.Body()), p.want) {
					t.Fatalf("with a free slot the body lacks %q: %s", p.want, ex.Body())
				}
				if lim.InUse() != 0 {
					t.Fatalf("%d slots still held after the hooks ran", lim.InUse())
				}
			})
		}
	}
}

// The refusal is told apart from a hook's own verdict: only an outcome
// whose cause is a *hooks.OverloadError becomes hook_limit_reached.
func TestOverloadedOnlyForAdmissionRefusals(t *testing.T) {
	over := &hooks.OverloadError{Limit: "limits.max_concurrent_hooks", Max: 4}
	cases := []struct {
		name string
		o    hooks.Outcome
		want bool
	}{
		{"allowed", hooks.Outcome{Decision: hooks.Allow}, false},
		{"blocked by the hook", hooks.Outcome{Decision: hooks.Block, HookID: "h", Reason: "no"}, false},
		{"failed", hooks.Outcome{Decision: hooks.Error, HookID: "h", Cause: errors.New("boom")}, false},
		{"blocking hook refused", hooks.Outcome{Decision: hooks.Block, HookID: "h", Cause: over}, true},
		{"contributing hook refused", hooks.Outcome{Decision: hooks.Error, HookID: "h", Cause: over}, true},
		{"refusal wrapped", hooks.Outcome{Decision: hooks.Block, HookID: "h", Cause: errors.Join(errors.New("x"), over)}, true},
	}
	for _, c := range cases {
		err := overloaded(c.o)
		if (err != nil) != c.want {
			t.Fatalf("%s: %v", c.name, err)
		}
		var re *RequestError
		if c.want && (!errors.As(err, &re) || re.Status != 503 || re.Code != "hook_limit_reached" || !strings.Contains(re.Message, "hook h ")) {
			t.Fatalf("%s: %+v", c.name, re)
		}
	}
}
