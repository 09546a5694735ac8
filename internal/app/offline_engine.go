package app

import (
	"fmt"
	"log/slog"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
)

// OfflineDeps stand in for the store, the channels and the approval gate
// when a configuration's hooks are compiled without serving it (`hookgate
// test`). Every field must be set: nothing here reaches a person, a
// channel or a database unless the caller's stand-in does.
type OfflineDeps struct {
	Approver  hooks.Approver
	ReadOnly  hooks.ReadOnlyState
	Messenger hooks.Messenger
	ToolCalls hooks.ToolCallRecorder
	Recorder  hooks.Recorder
	// EnforceDryRun compiles dry_run hooks as enforced, so that a policy
	// test says what a rule does once it is switched on, whatever its
	// dry_run says now.
	EnforceDryRun bool
}

// CompileHooks compiles cfg's hooks, the operator's and every tenant's
// hooks file, through the path `serve` compiles them (the built-in
// catalogue, prompt hooks' judges from cfg.Upstreams), with d in place of
// the store and channels. Unlike serve, a tenant whose hooks file cannot
// be loaded is an error: a caller testing the policy must see every hook.
// Close the Engine when done.
func CompileHooks(cfg *config.Config, log *slog.Logger, d OfflineDeps) (*hooks.Engine, error) {
	all := append([]hooks.Spec(nil), cfg.Hooks...)
	for i := range cfg.Tenants {
		specs, err := config.LoadTenantHooks(&cfg.Tenants[i], cfg.BaseDir)
		if err != nil {
			return nil, fmt.Errorf("tenant %s: %w", cfg.Tenants[i].ID, err)
		}
		all = append(all, specs...)
	}
	if d.EnforceDryRun {
		for i := range all {
			all[i].DryRun = false
		}
	}
	sv := &services{recorder: d.Recorder, approver: d.Approver, toolCalls: d.ToolCalls, messenger: d.Messenger, readOnly: d.ReadOnly}
	return buildEngine(cfg, all, log, sv)
}
