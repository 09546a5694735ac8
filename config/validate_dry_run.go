package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/hookgate/hookgate/hooks"
)

// dryRunProblem is what an observing hook with dry_run: true is told:
// dry_run holds back a verdict, and an observing hook has none to hold
// back.
const dryRunProblem = "dry_run applies to blocking and contributing hooks; a %s hook observes already and changes nothing"

// validateDryRun checks dry_run on the operator's hooks (the hook
// compiler checks it again, for every source of entries).
func validateDryRun(c *Config, root *yaml.Node, ps *problems) {
	for i := range c.Hooks {
		h := &c.Hooks[i]
		if h.DryRun && h.Event.Valid() && h.Class() == hooks.Observing {
			ps.add(lineOf(root, "hooks", i, "dry_run"), fmt.Sprintf("hooks[%d].dry_run", i), dryRunProblem, h.Event)
		}
	}
}
