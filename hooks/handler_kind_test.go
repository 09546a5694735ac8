package hooks

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestHandlerKindsAreTheDocumentedOnes pins the registry: the kinds, their
// order in messages, which tenants may use and which have a breaker.
func TestHandlerKindsAreTheDocumentedOnes(t *testing.T) {
	var names, tenants, breakers []string
	for _, k := range handlerKinds {
		names = append(names, k.name)
		if k.tenants {
			tenants = append(tenants, k.name)
		}
		if k.breaker {
			breakers = append(breakers, k.name)
		}
		if k.build == nil || len(k.keys) == 0 {
			t.Errorf("kind %s: no constructor or no keys", k.name)
		}
	}
	for what, pair := range map[string][2][]string{
		"kinds":    {names, {"script", "command", "http", "prompt", "builtin"}},
		"tenants":  {tenants, {"script", "builtin"}},
		"breakers": {breakers, {"http", "prompt"}},
	} {
		if !slices.Equal(pair[0], pair[1]) {
			t.Errorf("%s: %v, want %v", what, pair[0], pair[1])
		}
	}
	if got := kindNames("or", anyKind); got != "script, command, http, prompt or builtin" {
		t.Errorf("kind list in messages: %q", got)
	}
}

// TestANewHandlerKindIsOneRegistration registers a kind from this file
// alone and compiles and runs a hook of it: its keys are accepted, another
// kind's are refused, untrusted hooks and breakers follow its flags.
func TestANewHandlerKindIsOneRegistration(t *testing.T) {
	registerHandlerKind(&handlerKind{
		name: "fixed", rank: 60, keys: []string{"with"},
		build: func(spec *Spec, _ Deps, _ *Builtins) (Handler, []byte, error) {
			reason, _ := spec.Handler.With["reason"].(string)
			return handlerFunc(func(context.Context, *Event) (Result, error) {
				return Result{Decision: Block, Reason: reason}, nil
			}), nil, nil
		},
	})
	t.Cleanup(func() {
		handlerKinds = slices.DeleteFunc(handlerKinds, func(k *handlerKind) bool { return k.name == "fixed" })
	})
	spec := Spec{ID: "fixed-block", Event: PreToolUse, Trusted: true, Handler: HandlerSpec{Type: "fixed", With: map[string]any{"reason": "fixed says no"}}}
	eng, err := Compile([]Spec{spec}, Deps{}, Options{})
	if err != nil {
		t.Fatalf("a hook of a registered kind did not compile: %v", err)
	}
	defer eng.Close()
	out := eng.Dispatch(context.Background(), &Event{Event: PreToolUse, ToolName: "Bash", SessionID: "s"})
	if out.Decision != Block || !strings.Contains(out.Reason, "fixed says no") {
		t.Fatalf("the new kind's handler did not decide: %+v", out)
	}

	wrongKey := spec
	wrongKey.Handler.URL = "http://127.0.0.1:1"
	untrusted := spec
	untrusted.Trusted, untrusted.Scope = false, "tenant:t1"
	withBreaker := spec
	withBreaker.Breaker = &BreakerSpec{}
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{wrongKey, "handler.url: not a key of a fixed handler (its keys: with)"},
		{untrusted, "an untrusted (tenant) hook may use script and builtin handlers only, not fixed"},
		{withBreaker, "breaker: only http and prompt hooks have a circuit breaker"},
		{Spec{ID: "x", Event: PreToolUse, Trusted: true, Handler: HandlerSpec{Type: "nope"}}, "(want script, command, http, prompt, builtin or fixed)"},
	} {
		if _, err := Compile([]Spec{c.spec}, Deps{}, Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error containing %q, got %v", c.want, err)
		}
	}
}
