package app

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/store"
)

// AuditRecorder is the hook engine's Recorder for the audit log: every
// hook execution goes, through a bounded queue, to hook_executions. It
// never writes on the request path; chain it behind the Prometheus
// recorder (newHookMetrics(reg, audit)).
//
// Under audit.on_full: block, the proxy must ask Admit before it runs a
// request's hooks and answer 503 (Retry-After) when it fails: Recorder
// methods cannot refuse a request themselves.
type AuditRecorder struct {
	w *store.AuditWriter
}

var (
	_ hooks.Recorder       = (*AuditRecorder)(nil)
	_ hooks.DryRunRecorder = (*AuditRecorder)(nil)
)

// NewAuditRecorder starts the audit writer for cfg's audit section: the
// queue policy and size, max_wait, the key from audit.key_env (none: error
// details are not kept), and every secret of the configuration to redact
// from error texts.
func NewAuditRecorder(cfg *config.Config, st *store.Store, reg prometheus.Registerer, log *slog.Logger) (*AuditRecorder, error) {
	opts := store.AuditOptions{
		OnFull:     cfg.Audit.OnFull,
		QueueSize:  cfg.Audit.QueueSize,
		MaxWait:    cfg.Audit.MaxWait.D(),
		Secrets:    configSecrets(cfg),
		CaptureTTL: cfg.Audit.CaptureTTL.D(),
		Registerer: reg,
		Logger:     log,
	}
	if cfg.Audit.Key != "" {
		k, err := store.ParseAuditKey(cfg.Audit.Key)
		if err != nil {
			return nil, fmt.Errorf("audit.key_env %s: %w", cfg.Audit.KeyEnv, err)
		}
		opts.Key = k
	}
	if cfg.Audit.CaptureEvents && opts.Key == nil {
		return nil, fmt.Errorf("audit.capture_events needs audit.key_env (the key that seals captured events)")
	}
	w, err := store.NewAuditWriter(st, opts)
	if err != nil {
		return nil, err
	}
	return &AuditRecorder{w: w}, nil
}

// configSecrets lists every secret the configuration holds, so that none
// reaches an audit row through an error message.
func configSecrets(cfg *config.Config) []string {
	var out []string
	for _, u := range cfg.Upstreams {
		out = append(out, u.APIKey)
	}
	for _, t := range cfg.Admin.Tokens {
		out = append(out, t.Token)
	}
	for _, c := range cfg.Channels {
		out = append(out, c.Secret, c.BotToken, c.SigningSecret, c.AppSecret, c.VerificationToken, c.EncryptKey)
	}
	return append(out, cfg.Audit.Key, cfg.Store.DSN)
}

// HookExecuted queues the execution with its tool's name, tenant, agent
// and reason; the input is hashed (RFC 8785, then SHA-256) and the error
// sealed on the writer's goroutine.
func (r *AuditRecorder) HookExecuted(x hooks.Execution) {
	e := store.AuditEntry{
		HookID:      x.HookID,
		HookVersion: x.HookVersion,
		Event:       string(x.Event),
		EventID:     x.EventID,
		SessionID:   x.SessionID,
		Decision:    string(x.Decision),
		Duration:    x.Duration,
		SideEffects: x.SideEffects,
		Cause:       x.Cause,
		Tenant:      x.Tenant,
		Agent:       x.Agent,
		Reason:      x.Reason,
	}
	if x.Input != nil {
		e.Input = x.Input
		// The tool's name only: its arguments are never stored (the
		// input hash stands for them).
		e.Tool = x.Input.ToolName
	}
	r.w.Record(e)
}

// DryRunDropped records a dry_run hook's run the observer pool dropped, so
// that the dry-run report can say it undercounts: a dry_run_dropped row
// with the hook, event, tool, tenant, agent and session, never the input
// (its input_hash is InputHash(nil)). It never waits (TryRecord): with the audit queue full
// too, hookgate_dry_run_dropped_total is the only record.
func (r *AuditRecorder) DryRunDropped(ev *hooks.Event, hookID string) {
	e := store.AuditEntry{
		HookID:    hookID,
		Event:     string(ev.Event),
		EventID:   ev.EventID,
		SessionID: ev.SessionID,
		Decision:  store.DecisionDryRunDropped,
		Tenant:    ev.Tenant,
		Agent:     ev.Agent,
		Tool:      ev.ToolName,
		Reason:    "not run: the observer pool was full",
	}
	r.w.TryRecord(e)
}

// ObserverDropped records nothing: no hook ran (the metrics count it; a
// dry_run hook's drop is recorded by DryRunDropped).
func (r *AuditRecorder) ObserverDropped(hooks.EventName, string) {}

// MutationStripped records nothing apart from the execution itself.
func (r *AuditRecorder) MutationStripped(string, []string) {}

// Admit reports whether a request may run its hooks: an error wrapping
// store.ErrAuditBackpressure means the audit queue has had no room for
// audit.max_wait (the store is slow or down) and the request must be
// refused with a 503 rather than run unrecorded. Always nil under
// on_full: drop.
func (r *AuditRecorder) Admit(ctx context.Context) error { return r.w.Admit(ctx) }

// Flush waits until the executions recorded so far are written.
func (r *AuditRecorder) Flush(ctx context.Context) error { return r.w.Flush(ctx) }

// Close writes what is queued, until ctx ends, and stops the writer.
func (r *AuditRecorder) Close(ctx context.Context) error { return r.w.Close(ctx) }
