package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks/builtin"
	"github.com/hookgate/hookgate/proxy"
	"github.com/hookgate/hookgate/store"
)

// consoleOptions wire the operator's console: its session key (the one
// admin.session_key_env names, or a random one per process, which the log
// says), its cookie flags and its desks. There is no console without an
// admin token to log in with.
func (a *App) consoleOptions(cfg *config.Config, log *slog.Logger) proxy.ConsoleOptions {
	if len(cfg.Admin.Tokens) == 0 {
		return proxy.ConsoleOptions{}
	}
	key := []byte(cfg.Admin.SessionKey)
	if len(key) == 0 {
		key = proxy.NewSessionKey()
		log.Info("console: admin.session_key_env is not set, so console sessions are signed with a random key of this process: they do not survive a restart, nor move to another instance")
	}
	if cfg.Admin.InsecureCookies {
		log.Warn("console: admin.insecure_cookies is on: the session cookie is sent over plain HTTP")
	}
	return proxy.ConsoleOptions{
		Enabled: true, SessionKey: key, InsecureCookies: cfg.Admin.InsecureCookies,
		Decisions: decisionDesk{a.persistence.Store}, Policy: a.policyView,
		Sessions:    timelineDesk{st: a.persistence.Store, key: timelineKey(cfg.Audit.Key)},
		Costs:       costDesk{st: a.persistence.Store, reg: a.Registry},
		Revocations: a.persistence.Store,
	}
}

// decisionDesk lists recent hook executions (the audit records) for the
// console.
type decisionDesk struct{ st *store.Store }

var _ proxy.DecisionDesk = decisionDesk{}

// maxDecisions bounds one page of decisions.
const maxDecisions = 500

func (d decisionDesk) Decisions(ctx context.Context, f proxy.DecisionFilter, tenants []string) (any, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, maxDecisions)
	rows, err := d.st.ListExecutions(ctx, store.ExecutionFilter{
		HookID: f.Hook, SessionID: f.Session, Decision: f.Decision, Tool: f.Tool, Tenant: f.Tenant, Agent: f.Agent,
		DryRun: f.DryRun, Tenants: tenants, Limit: limit,
	})
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(rows))
	for i, x := range rows {
		note := x.Error
		if kind := builtin.SecretIn(note); kind != "" {
			note = "(withheld: the error holds what looks like a " + kind + ")"
		}
		reason := masked(x.Reason)
		effects := x.SideEffects
		if effects == nil {
			effects = []string{}
		}
		out[i] = map[string]any{
			"id": x.ID, "hook": x.HookID, "session": x.SessionID, "event": x.Event, "decision": x.Decision,
			"duration_ms": float64(x.Duration.Microseconds()) / 1000, "error": note, "side_effects": effects,
			"created_at": x.CreatedAt, "tool": x.Tool, "tenant": x.Tenant, "agent": x.Agent, "reason": reason,
		}
	}
	return map[string]any{"decisions": out}, nil
}

func (d decisionDesk) Latest(ctx context.Context, tenants []string) (string, error) {
	rows, err := d.st.ListExecutions(ctx, store.ExecutionFilter{Tenants: tenants, Limit: 1})
	if err != nil || len(rows) == 0 {
		return "", err
	}
	return rows[0].ID, nil
}

// refusedReload is the last configuration reload that was refused.
type refusedReload struct {
	At    time.Time `json:"at"`
	Error string    `json:"error"`
}

// reloadRefused remembers err as the last refused reload.
func (a *App) reloadRefused(err error) {
	a.lastRefused.Store(&refusedReload{At: time.Now().UTC(), Error: err.Error()})
}

// policyView is the console's policy page: the configuration's version,
// its hooks and the last refused reload, if any since start.
func (a *App) policyView() any {
	pol := a.current.Load()
	hooks := []map[string]any{}
	if pol != nil {
		for _, h := range pol.engine.Hooks() {
			hooks = append(hooks, map[string]any{
				"id": h.ID, "event": h.Event, "class": h.Class.String(), "priority": h.Priority,
				"version": h.Version, "tenant": pol.hookTenant[h.ID], "trusted": h.Trusted,
			})
		}
	}
	out := map[string]any{"version": a.version.Load(), "hooks": hooks}
	if r := a.lastRefused.Load(); r != nil {
		out["last_refused"] = r
	}
	return out
}
