package builtin

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/hooks"
)

// builtinCanary stands for what a store or channel error says: internal
// detail (a lock, a file, an address) the agent must never read.
const builtinCanary = "database is locked (5) (SQLITE_BUSY) canary-b9e2 /var/lib/hookgate/hookgate.db"

// failingApprover is an approval gate whose store is locked.
type failingApprover struct{}

func (failingApprover) Ask(context.Context, hooks.ApprovalQuestion) (hooks.ApprovalAnswer, error) {
	return hooks.ApprovalAnswer{}, errors.New("approval: store: create confirmation: begin: " + builtinCanary)
}

// failingMessenger is a channel that cannot be reached.
type failingMessenger struct{}

func (failingMessenger) SendMessage(context.Context, string, string) error {
	return errors.New("channel ops: POST https://hooks.example.invalid/T0/B0/secret-path: " + builtinCanary)
}

// TestBuiltinFailureNotesNeverCarryTheError makes the built-ins that reach
// a store, a channel or Redis fail with a canary in their error, through
// the engine: the call is blocked with a note naming only the hook, and the
// execution's error (sealed in the audit) keeps the canary.
func TestBuiltinFailureNotesNeverCarryTheError(t *testing.T) {
	t.Setenv("HG_TEST_REDIS_CANARY", "127.0.0.1:1")
	cases := []struct {
		name   string
		spec   hooks.Spec
		deps   hooks.Deps
		canary string
	}{
		{"approval, store locked", hooks.Spec{Handler: hooks.HandlerSpec{Name: ApprovalName, With: map[string]any{"channel": "ops", "timeout_s": 5}}},
			hooks.Deps{Approver: failingApprover{}}, "canary-b9e2"},
		{"readonly_guard, store down", hooks.Spec{Handler: hooks.HandlerSpec{Name: ReadOnlyGuardName, With: map[string]any{"tools": []any{"exec"}}}},
			hooks.Deps{ReadOnly: &memReadOnly{err: errors.New(builtinCanary)}}, "canary-b9e2"},
		{"notify, channel down", hooks.Spec{Handler: hooks.HandlerSpec{Name: NotifyName, With: map[string]any{"channel": "ops", "text": "call {{.toolName}}"}}},
			hooks.Deps{Messenger: failingMessenger{}}, "canary-b9e2"},
		{"rate_limit, redis down", hooks.Spec{TimeoutMS: 2000, Handler: hooks.HandlerSpec{Name: RateLimitName, With: map[string]any{"limit": 5, "window": "1m", "redis": map[string]any{"addr_env": "HG_TEST_REDIS_CANARY"}}}},
			hooks.Deps{}, "127.0.0.1:1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.ID, spec.Event, spec.Trusted, spec.Handler.Type = "canary-hook", hooks.PreToolUse, true, "builtin"
			e := compileOne(t, spec, tc.deps)
			out := e.Dispatch(context.Background(), &hooks.Event{Event: hooks.PreToolUse, EventID: "ev-1", SessionID: "s-1",
				ToolName: "exec", ToolCallID: "c-1", ToolInput: map[string]any{"command": "ls"}})
			if !out.Blocked() || len(out.Executions) != 1 || out.Executions[0].Decision != hooks.Error {
				t.Fatalf("not failed closed: %+v", out)
			}
			if want := "hook canary-hook failed (fail-closed)"; out.Reason != want {
				t.Errorf("note = %q, want %q", out.Reason, want)
			}
			if strings.Contains(out.Reason, tc.canary) {
				t.Errorf("the canary reached the note: %q", out.Reason)
			}
			if x := out.Executions[0]; x.Cause == nil || !strings.Contains(x.Cause.Error(), tc.canary) {
				t.Errorf("the execution's error lost the detail %q: %v", tc.canary, x.Cause)
			}
		})
	}
}
