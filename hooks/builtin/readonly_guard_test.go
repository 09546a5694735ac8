package builtin

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/hookgate/hookgate/hooks"
)

// memReadOnly is an in-memory hooks.ReadOnlyState: the switches the admin
// API would throw, by tenant ("" for the organisation).
type memReadOnly struct {
	mu    sync.Mutex
	m     map[string]bool
	err   error
	asked []string
}

var _ hooks.ReadOnlyState = (*memReadOnly)(nil)

func (s *memReadOnly) ReadOnly(_ context.Context, tenant string) (bool, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, tenant)
	if s.err != nil {
		return false, false, s.err
	}
	v, ok := s.m[tenant]
	return v, ok, nil
}

func newReadOnly(t *testing.T, with map[string]any, state hooks.ReadOnlyState) hooks.Handler {
	t.Helper()
	h, err := NewReadOnlyGuard(hooks.BuiltinConfig{HookID: "ro", Event: hooks.PreToolUse, With: with, Deps: hooks.Deps{ReadOnly: state}})
	if err != nil {
		t.Fatalf("NewReadOnlyGuard: %v", err)
	}
	return h
}

func TestReadOnlyResolution(t *testing.T) {
	const (
		blocked = true
		allowed = false
	)
	for _, tc := range []struct {
		name     string
		def      bool
		switches map[string]bool // nil: no state at all
		tenant   string
		want     bool
		who      string
	}{
		{"no state, default off", false, nil, "acme", allowed, ""},
		{"no state, default on", true, nil, "acme", blocked, `tenant "acme" is read-only (configuration)`},
		{"no state, no tenant", true, nil, "", blocked, "the organisation is read-only (configuration)"},
		{"nothing switched, default off", false, map[string]bool{}, "acme", allowed, ""},
		{"nothing switched, default on", true, map[string]bool{}, "acme", blocked, `tenant "acme" is read-only (configuration)`},
		{"tenant switched on", false, map[string]bool{"acme": true}, "acme", blocked, `tenant "acme" is read-only (switched at run time)`},
		{"tenant switched off wins over default", true, map[string]bool{"acme": false}, "acme", allowed, ""},
		{"another tenant switched", false, map[string]bool{"other": true}, "acme", allowed, ""},
		{"organisation on", false, map[string]bool{"": true}, "acme", blocked, "the organisation is read-only (switched at run time)"},
		{"organisation on beats tenant off", false, map[string]bool{"": true, "acme": false}, "acme", blocked, "the organisation is read-only (switched at run time)"},
		{"organisation off leaves tenant on", false, map[string]bool{"": false, "acme": true}, "acme", blocked, `tenant "acme" is read-only (switched at run time)`},
		{"organisation off leaves default on", true, map[string]bool{"": false}, "acme", blocked, `tenant "acme" is read-only (configuration)`},
		{"no tenant: organisation off wins over default", true, map[string]bool{"": false}, "", allowed, ""},
		{"no tenant: organisation on", false, map[string]bool{"": true}, "", blocked, "the organisation is read-only (switched at run time)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var state hooks.ReadOnlyState
			if tc.switches != nil {
				state = &memReadOnly{m: tc.switches}
			}
			h := newReadOnly(t, map[string]any{"tools": []any{"write_file"}, "read_only": tc.def}, state)
			res, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: tc.tenant, ToolName: "write_file"})
			if err != nil {
				t.Fatal(err)
			}
			if (res.Decision == hooks.Block) != tc.want {
				t.Fatalf("%s %q", res.Decision, res.Reason)
			}
			if tc.want && res.Reason != `read-only: tool "write_file" writes, and `+tc.who {
				t.Fatalf("reason %q", res.Reason)
			}
		})
	}
}

func TestReadOnlyWhichTools(t *testing.T) {
	state := &memReadOnly{m: map[string]bool{"": true}}
	h := newReadOnly(t, map[string]any{"tools": []any{"deploy"}, "pattern": "^(write|delete)_"}, state)
	for tool, blocked := range map[string]bool{
		"deploy": true, "write_file": true, "delete_row": true,
		"read_file": false, "deployment_status": false, "rewrite_file": false,
	} {
		res, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: tool})
		if err != nil {
			t.Fatal(err)
		}
		if (res.Decision == hooks.Block) != blocked {
			t.Errorf("%s: %s", tool, res.Decision)
		}
	}
	// Tools that do not write never reach the state.
	state.asked = nil
	h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: "read_file"})
	if len(state.asked) != 0 {
		t.Fatalf("state asked for a reading tool: %v", state.asked)
	}
}

func TestReadOnlyStateErrorFailsClosed(t *testing.T) {
	state := &memReadOnly{err: errors.New("store down")}
	h := newReadOnly(t, map[string]any{"tools": []any{"deploy"}}, state)
	if _, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: "deploy"}); err == nil || !strings.Contains(err.Error(), "store down") {
		t.Fatalf("err = %v", err)
	}
	// Through the engine, the error blocks.
	e := compileOne(t, hooks.Spec{
		ID: "ro", Event: hooks.PreToolUse, Trusted: true,
		Handler: hooks.HandlerSpec{Type: "builtin", Name: ReadOnlyGuardName, With: map[string]any{"tools": []any{"deploy"}}},
	}, hooks.Deps{ReadOnly: state})
	out := e.Dispatch(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: "deploy"})
	if !out.Blocked() || !errors.Is(out.Cause, state.err) {
		t.Fatalf("%+v", out)
	}
}

// TestReadOnlySwitchAtRunTime flips the switch between calls of one
// compiled engine: no reload needed.
func TestReadOnlySwitchAtRunTime(t *testing.T) {
	state := &memReadOnly{m: map[string]bool{}}
	e := compileOne(t, hooks.Spec{
		ID: "ro", Event: hooks.PreToolUse, Trusted: true,
		Handler: hooks.HandlerSpec{Type: "builtin", Name: ReadOnlyGuardName, With: map[string]any{"pattern": "^write"}},
	}, hooks.Deps{ReadOnly: state})
	ev := &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: "write_file"}
	set := func(v bool) {
		state.mu.Lock()
		state.m["acme"] = v
		state.mu.Unlock()
	}
	for i, step := range []struct {
		set     func()
		blocked bool
	}{
		{func() {}, false},
		{func() { set(true) }, true},
		{func() { set(false) }, false},
	} {
		step.set()
		if out := e.Dispatch(context.Background(), ev); out.Blocked() != step.blocked {
			t.Fatalf("step %d: %+v", i, out)
		}
	}
}

func TestReadOnlyParams(t *testing.T) {
	for name, with := range map[string]map[string]any{
		"nothing":      {"read_only": true},
		"bad pattern":  {"pattern": "("},
		"empty tool":   {"tools": []any{""}},
		"unknown key":  {"tools": []any{"x"}, "readonly": true},
		"wrong type":   {"tools": []any{"x"}, "read_only": "yes"},
		"tools string": {"tools": "x"},
	} {
		if _, err := NewReadOnlyGuard(hooks.BuiltinConfig{Event: hooks.PreToolUse, With: with}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := NewReadOnlyGuard(hooks.BuiltinConfig{Event: hooks.UserPromptSubmit, With: map[string]any{"tools": []any{"x"}}}); err == nil {
		t.Error("accepted on user_prompt_submit")
	}
}
