package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestBreakerFailingInputsOpenNoAllowWindow: the breaker counts a policy server's
// error on one input as the server being down. Under on_timeout: allow an
// agent whose inputs make the server fail (here a 500 on "boom", e.g. a
// parser bug or an oversize body) opens the breaker with five such calls,
// and a destructive call that the (healthy) server blocks must then not be allowed
// without being judged, for the whole cool-down, for every session and
// tenant using the hook. Before the breaker, each call was judged on its
// own and the destructive one was blocked.
func TestBreakerFailingInputsOpenNoAllowWindow(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hits.Add(1)
		switch {
		case strings.Contains(string(b), "boom"):
			http.Error(w, "internal", 500)
		case strings.Contains(string(b), "rm -rf"):
			fmt.Fprint(w, `{"decision":"block","reason":"destructive"}`)
		default:
			fmt.Fprint(w, `{"decision":"allow"}`)
		}
	}))
	defer srv.Close()
	spec := Spec{ID: "policy", Event: PreToolUse, Trusted: true, TimeoutMS: 2000, OnTimeout: "allow",
		Handler: HandlerSpec{Type: "http", URL: srv.URL + "/decide"}}
	e, err := Compile([]Spec{spec}, Deps{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	for i := range DefaultBreakerFailures {
		ev := toolEvent("exec", map[string]any{"command": "boom"})
		ev.SessionID, ev.Tenant = "attacker", "tenant-a"
		e.Dispatch(context.Background(), ev)
		_ = i
	}
	before := hits.Load()
	ev := toolEvent("exec", map[string]any{"command": "rm -rf /"})
	ev.SessionID, ev.Tenant = "victim", "tenant-b"
	start := time.Now()
	out := e.Dispatch(context.Background(), ev)
	t.Logf("destructive call: %s (cause %v) in %v; server hits for it: %d", out.Decision, out.Cause, time.Since(start), hits.Load()-before)
	if out.Decision != Block {
		t.Errorf("destructive call %s without reaching the policy server: five failing inputs of one session opened a fail-open window for all", out.Decision)
	}
	// A server that answers 500 to some inputs is up: the breaker stays
	// closed, and the destructive call was judged by the server itself.
	if n := hits.Load() - before; n != 1 || out.Reason != "destructive" {
		t.Errorf("the destructive call reached the server %d times (reason %q): want it judged there once", n, out.Reason)
	}
}

// TestBreakerOpensOnUnavailabilityOnly: answers that are not verdicts
// (400, 500, junk) count as the server being up; 503s open the breaker.
func TestBreakerOpensOnUnavailabilityOnly(t *testing.T) {
	var status atomic.Int64
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch code := int(status.Load()); code {
		case 0:
			fmt.Fprint(w, `not a verdict`)
		default:
			http.Error(w, "no", code)
		}
	}))
	defer srv.Close()
	spec := Spec{ID: "policy", Event: PreToolUse, Trusted: true, TimeoutMS: 2000,
		Handler: HandlerSpec{Type: "http", URL: srv.URL + "/decide"}, Breaker: &BreakerSpec{Failures: 2, Cooldown: time.Minute}}
	e, err := Compile([]Spec{spec}, Deps{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	for _, code := range []int64{400, 500, 0} {
		status.Store(code)
		for range 5 {
			if out := e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": "ls"})); out.Decision != Block || errors.Is(out.Cause, ErrBreakerOpen) {
				t.Fatalf("status %d: %s (cause %v), want blocked by the failure itself", code, out.Decision, out.Cause)
			}
		}
	}
	if n := hits.Load(); n != 15 {
		t.Fatalf("the server was asked %d times, want all 15: answers opened the breaker", n)
	}
	status.Store(503)
	for range 2 {
		e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": "ls"}))
	}
	out := e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": "ls"}))
	if !errors.Is(out.Cause, ErrBreakerOpen) || out.Decision != Block || hits.Load() != 17 {
		t.Fatalf("after two 503s: %s (cause %v, %d hits), want blocked by the open breaker without asking", out.Decision, out.Cause, hits.Load())
	}
}
