package policytest

import "testing"

// A dry_run hook is tested as it will act once switched on: its block and
// its approval question are the case's outcome, not would-decisions.
func TestDryRunHooksAreTestedAsEnforced(t *testing.T) {
	cfg := loadPolicy(t)
	for i := range cfg.Hooks {
		if id := cfg.Hooks[i].ID; id == "no-rm" || id == "ask-ops" {
			cfg.Hooks[i].DryRun = true
		}
	}
	f := parse(t, `cases:
  - {name: rm, tool: Bash, input: {command: "rm -rf /"}, expect: block}
  - {name: transfer, tool: transfer, input: {amount: 5}, approval: reject, expect: block}
`)
	rep, err := Run(cfg, []*File{f})
	if err != nil {
		t.Fatal(err)
	}
	wantPass(t, rep, "rm")
	wantPass(t, rep, "transfer")
}
