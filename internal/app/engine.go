package app

import (
	"log/slog"
	"strings"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/hooks/builtin"
	"github.com/hookgate/hookgate/providers"
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
		ep := judgeEndpoint(u)
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
	e, err := hooks.Compile(specs, deps, hooks.Options{Recorder: sv.recorder, Builtins: reg, Terminals: sv.terminals, Capture: sv.capture})
	if err != nil {
		return nil, err
	}
	if sv.hookSlots != nil {
		e.LimitExecutions(sv.hookSlots)
	}
	return e, nil
}

// judgeEndpoint is where a prompt hook reaches upstream u as an OpenAI
// chat completions client: base_url and the path of the provider's chat
// completions ("/openai/v1" on Azure OpenAI), else /v1, where
// OpenAI-compatible APIs serve it.
func judgeEndpoint(u config.Upstream) hooks.JudgeEndpoint {
	base, ok := providers.ChatCompletionsBase(u.Provider)
	if !ok {
		base = "/v1"
	}
	return hooks.JudgeEndpoint{BaseURL: strings.TrimSuffix(u.BaseURL, "/") + base, APIKey: u.APIKey}
}
