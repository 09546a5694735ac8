package app

import (
	"log/slog"
	"strings"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/hooks/builtin"
)

// buildEngine compiles the configured hooks with the built-in catalogue.
// Prompt hooks reach the upstreams as judges: "" (the default) is the
// first upstream.
func buildEngine(cfg *config.Config, specs []hooks.Spec, log *slog.Logger, sv *services) (*hooks.Engine, error) {
	reg := hooks.NewBuiltins()
	if err := builtin.Register(reg); err != nil {
		return nil, err
	}
	judges := map[string]hooks.JudgeEndpoint{}
	for i, u := range cfg.Upstreams {
		ep := hooks.JudgeEndpoint{BaseURL: strings.TrimSuffix(u.BaseURL, "/") + "/v1", APIKey: u.APIKey}
		judges[u.Name] = ep
		if i == 0 {
			judges[""] = ep
		}
	}
	deps := hooks.Deps{
		BaseDir: cfg.BaseDir, Judges: judges, Logger: log,
		Approver: sv.approver, ToolCalls: sv.toolCalls, Messenger: sv.messenger, ReadOnly: sv.readOnly,
		ScriptMaxMemory: int64(cfg.Limits.ScriptMaxMemory),
	}
	e, err := hooks.Compile(specs, deps, hooks.Options{Recorder: sv.recorder, Builtins: reg, Terminals: sv.terminals})
	if err != nil {
		return nil, err
	}
	if sv.hookSlots != nil {
		e.LimitExecutions(sv.hookSlots)
	}
	return e, nil
}
