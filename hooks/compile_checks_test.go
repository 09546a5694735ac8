package hooks

import (
	"strings"
	"testing"
	"time"
)

// Each entry check, called on its own: what it reports, and what it records
// on the hook it is building. The Compile tests cover the checks together;
// this pins each concern, including the ones only their happy path reaches
// there (an id's alphabet, timeout_ms above MaxTimeout, what a valid key
// sets on the hook).
func TestEntryChecksOneConcernEach(t *testing.T) {
	opts := &Options{CELCostLimit: DefaultCELCostLimit}
	cases := []struct {
		name  string
		check entryCheck
		spec  Spec
		want  string // substring of the only error; "" for none
		hook  func(*hook) bool
	}{
		{name: "id ok", check: checkID, spec: Spec{ID: "team/a@b:c.d-1"}},
		{name: "id empty", check: checkID, spec: Spec{}, want: "id: required"},
		{name: "id alphabet", check: checkID, spec: Spec{ID: "a b"}, want: `id "a b": use letters, digits and _ . : / @ - (at most 128)`},
		{name: "id length", check: checkID, spec: Spec{ID: strings.Repeat("a", 129)}, want: "(at most 128)"},
		{name: "event ok", check: checkEvent, spec: Spec{Event: Stop}},
		{name: "event unknown", check: checkEvent, spec: Spec{Event: "pre_tool"}, want: `event: unknown event "pre_tool" (want one of`},
		{name: "matcher star", check: checkMatcher, spec: Spec{Event: PreToolUse, Matcher: "*"}, hook: func(h *hook) bool { return h.matcher == nil }},
		{name: "matcher star beside classes", check: checkMatcher, spec: Spec{Event: PreToolUse, Matcher: "*", Classes: []string{"shell"}},
			hook: func(h *hook) bool { return h.matcher != nil && h.matcher.MatchString("anything") }},
		{name: "matcher regexp", check: checkMatcher, spec: Spec{Event: PreToolUse, Matcher: "^exec$"},
			hook: func(h *hook) bool { return h.matcher.MatchString("exec") && !h.matcher.MatchString("exec2") }},
		{name: "matcher bad regexp", check: checkMatcher, spec: Spec{Event: PreToolUse, Matcher: "("}, want: "matcher: error parsing regexp"},
		{name: "matcher without tool", check: checkMatcher, spec: Spec{Event: Stop, Matcher: "x"}, want: "matcher: only pre_tool_use and post_tool_use have a tool name to match (event stop)"},
		{name: "classes dedup", check: checkClasses, spec: Spec{Event: PreToolUse, Classes: []string{"shell", "shell"}},
			hook: func(h *hook) bool { return len(h.classes) == 1 && h.classes[0] == "shell" }},
		{name: "classes unknown", check: checkClasses, spec: Spec{Event: PreToolUse, Classes: []string{"Shell"}}, want: `classes[0]: unknown tool class "Shell"`},
		{name: "classes without tool", check: checkClasses, spec: Spec{Event: Stop, Classes: []string{"shell"}}, want: "classes: only pre_tool_use and post_tool_use have a tool to classify (event stop)"},
		{name: "condition none", check: checkCondition, spec: Spec{}, hook: func(h *hook) bool { return h.cond == nil }},
		{name: "condition", check: checkCondition, spec: Spec{IfExpr: "toolName == 'exec'"}, hook: func(h *hook) bool { return h.cond != nil }},
		{name: "condition not bool", check: checkCondition, spec: Spec{IfExpr: "toolName + 'x'"}, want: "if_expr: must be a bool expression"},
		{name: "timeout default", check: checkTimeout, spec: Spec{}, hook: func(h *hook) bool { return h.timeout == 0 }},
		{name: "timeout set", check: checkTimeout, spec: Spec{TimeoutMS: 250}, hook: func(h *hook) bool { return h.timeout == 250*time.Millisecond }},
		{name: "timeout negative", check: checkTimeout, spec: Spec{TimeoutMS: -1}, want: "timeout_ms: -1 is negative"},
		{name: "timeout too long", check: checkTimeout, spec: Spec{TimeoutMS: int(MaxTimeout/time.Millisecond) + 1}, want: "timeout_ms: 3600001 exceeds 1h0m0s"},
		{name: "on_timeout allow", check: checkOnTimeout, spec: Spec{Event: PreToolUse, OnTimeout: "allow"}, hook: func(h *hook) bool { return h.failOpen }},
		{name: "on_timeout block", check: checkOnTimeout, spec: Spec{Event: PreToolUse}, hook: func(h *hook) bool { return !h.failOpen }},
		{name: "on_timeout skip", check: checkOnTimeout, spec: Spec{Event: SessionStart, OnTimeout: "skip"}, hook: func(h *hook) bool { return h.failOpen }},
		{name: "on_timeout skip on blocking", check: checkOnTimeout, spec: Spec{Event: PreToolUse, OnTimeout: "skip"}, want: `on_timeout: "skip" for blocking event pre_tool_use: want block (default) or allow`},
		{name: "on_timeout block on contributing", check: checkOnTimeout, spec: Spec{Event: SessionStart, OnTimeout: "block"}, want: `want fail (default) or skip`},
		{name: "scope global trusted", check: checkScope, spec: Spec{Trusted: true, Scope: "global"}, hook: func(h *hook) bool { return h.scopeTenant == "" && h.scopeAgent == "" }},
		{name: "scope tenant", check: checkScope, spec: Spec{Scope: "tenant:acme"}, hook: func(h *hook) bool { return h.scopeTenant == "acme" }},
		{name: "scope agent", check: checkScope, spec: Spec{Scope: "agent:bot"}, hook: func(h *hook) bool { return h.scopeAgent == "bot" }},
		{name: "scope untrusted global", check: checkScope, spec: Spec{}, want: "scope: an untrusted (tenant) hook must be scoped to its tenant or an agent, not global"},
		{name: "scope malformed", check: checkScope, spec: Spec{Trusted: true, Scope: "tenant:"}, want: `scope: "tenant:": want global, tenant:<id> or agent:<id>`},
		{name: "mutation input field", check: checkMutation, spec: Spec{Event: PreToolUse, AllowMutation: []string{"toolInput.command"}},
			hook: func(h *hook) bool { return len(h.mutation.inputPaths) == 1 && !h.mutation.inputAll }},
		{name: "mutation result on pre", check: checkMutation, spec: Spec{Event: PreToolUse, AllowMutation: []string{"toolResult"}}, want: `allow_mutation "toolResult": only post_tool_use hooks may rewrite the tool result`},
		{name: "mode send", check: checkMode, spec: Spec{Event: PreResponse, Mode: "send"}, hook: func(h *hook) bool { return h.mode == Send }},
		{name: "mode on other event", check: checkMode, spec: Spec{Event: PreToolUse, Mode: "append"}, want: "mode: only pre_response hooks have a mode (event pre_tool_use)"},
		{name: "on_block retry", check: checkOnBlock, spec: Spec{Event: PreToolUse, OnBlock: "retry"}, hook: func(h *hook) bool { return h.onBlock == "retry" }},
		{name: "on_block unknown", check: checkOnBlock, spec: Spec{Event: PreToolUse, OnBlock: "drop"}, want: `on_block: "drop": want respond or retry`},
		{name: "breaker on script", check: checkBreakerKeys, spec: Spec{Breaker: &BreakerSpec{}, Handler: HandlerSpec{Type: "script"}},
			want: `breaker: only http and prompt hooks have a circuit breaker (handler type "script")`},
		{name: "dry_run", check: checkDryRun, spec: Spec{Event: PreToolUse, DryRun: true}, hook: func(h *hook) bool { return h.dryRun }},
		{name: "dry_run observing", check: checkDryRun, spec: Spec{Event: PostToolUse, DryRun: true}, want: "dry_run: only blocking and contributing hooks can run dry"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := &hook{}
			errs := c.check(&c.spec, h, opts)
			switch {
			case c.want == "" && len(errs) > 0:
				t.Fatalf("errors %v, want none", errs)
			case c.want != "" && len(errs) != 1:
				t.Fatalf("errors %v, want one containing %q", errs, c.want)
			case c.want != "" && !strings.Contains(errs[0].Error(), c.want):
				t.Fatalf("error %q, want it to contain %q", errs[0], c.want)
			}
			if c.hook != nil && !c.hook(h) {
				t.Errorf("hook after the check: %+v", h)
			}
		})
	}
}
