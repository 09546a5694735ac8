package hooks

import "testing"

func TestEnforcesAnyFailsClosed(t *testing.T) {
	fixed := map[string]any{"result": map[string]any{"decision": "allow"}}
	dry := func(id string) Spec {
		s := engSpec(id, PreToolUse, "fixed", fixed)
		s.DryRun = true
		return s
	}
	enforcing := func(id string, mod func(*Spec)) Spec {
		s := engSpec(id, PreToolUse, "fixed", fixed)
		mod(&s)
		return s
	}
	cases := []struct {
		name   string
		specs  []Spec
		tenant string
		want   bool
	}{
		{"no pre_tool_use hook", []Spec{engSpec("stop", Stop, "fixed", fixed)}, "", false},
		{"only dry runs", []Spec{dry("a"), dry("b")}, "", false},
		{"a dry run and an enforcing hook", []Spec{dry("a"), enforcing("b", func(*Spec) {})}, "", true},
		{"an enforcing hook whose matcher is for another tool", []Spec{dry("a"), enforcing("b", func(s *Spec) { s.Matcher = "^nothing-calls-this$" })}, "", true},
		{"an enforcing hook whose condition is false", []Spec{dry("a"), enforcing("b", func(s *Spec) { s.IfExpr = "false" })}, "", true},
		{"a tenant's enforcing hook, that tenant", []Spec{dry("a"), enforcing("b", func(s *Spec) { s.Scope = "tenant:acme" })}, "acme", true},
		{"a tenant's enforcing hook, another tenant", []Spec{dry("a"), enforcing("b", func(s *Spec) { s.Scope = "tenant:acme" })}, "globex", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := engCompile(t, newEngRegistry(t), tc.specs, Options{})
			ev := &Event{Event: PreToolUse, Tenant: tc.tenant}
			if got := e.EnforcesAny(ev); got != tc.want {
				t.Fatalf("EnforcesAny = %v, want %v", got, tc.want)
			}
		})
	}
}
