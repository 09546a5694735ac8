//go:build !race

package builtin

import (
	"context"
	"testing"

	"github.com/hookgate/hookgate/hooks"
)

// The hot paths allocate nothing: a clean tool input through
// secret_guard, and an allowed call through the in-memory rate_limit.
func TestHotPathsDoNotAllocate(t *testing.T) {
	ctx := context.Background()
	guard := newSecretGuard(t, map[string]any{"kinds": anySlice(SecretKinds())})
	clean := &hooks.Event{Event: hooks.PreToolUse, ToolName: "exec", ToolInput: map[string]any{
		"command": "git commit -am 'rotate the api key and token handling' && git push",
		"env":     map[string]any{"GIT_AUTHOR_NAME": "bot"},
		"argv":    []any{"a", "b", map[string]any{"secret_name": "db-password"}},
	}}
	limiter := newMemoryRateLimit(t, map[string]any{"limit": 1 << 40, "window": "1m", "per_agent": true}, newFakeClock())
	call := &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", Agent: "bot", ToolName: "exec"}
	for name, h := range map[string]struct {
		h  hooks.Handler
		ev *hooks.Event
	}{
		"secret_guard": {guard, clean},
		"rate_limit":   {limiter, call},
	} {
		if _, err := h.h.Handle(ctx, h.ev); err != nil { // warm up
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(200, func() { h.h.Handle(ctx, h.ev) }); n != 0 {
			t.Errorf("%s: %v allocations per call", name, n)
		}
	}
}
