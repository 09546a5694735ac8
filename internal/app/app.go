// Package app wires hookgate together from a configuration: the hook
// engine, the interceptors, the proxy and the admin listener. The command
// line, the demo, the benchmark and the end-to-end tests all start hookgate
// through it, so they run exactly what `hookgate serve` runs.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/hookgate/hookgate/approvals"
	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks/toolclass"
	"github.com/hookgate/hookgate/internal/tracing"
	"github.com/hookgate/hookgate/proxy"
)

// App is a running hookgate.
type App struct {
	Config   *config.Config
	Registry *prometheus.Registry

	services    *services
	persistence *Persistence
	gate        *approvals.Gate
	metrics     *proxy.Metrics
	limits      *limits
	current     atomic.Pointer[policy]
	stopJanitor context.CancelFunc
	janitorDone chan struct{}
	readOnly    *readOnly
	reloads     *prometheus.CounterVec
	// ready answers /readyz; version and configInfo say which
	// configuration is served (config_version.go).
	ready      *readiness
	version    atomic.Pointer[configVersion]
	configInfo *prometheus.GaugeVec
	// reloadedFiles is the fingerprint of the configuration files as
	// ReloadFile last read them (see Watch).
	reloadedFiles atomic.Pointer[string]
	// lastRefused is the last refused reload, for the console.
	lastRefused atomic.Pointer[refusedReload]
	proxy       *proxy.Server
	// tracing exports the spans (nil: tracing off); it is built at start
	// and kept across reloads.
	tracing   *tracing.Provider
	admin     *proxy.Admin
	proxyLn   net.Listener
	adminLn   net.Listener
	log       *slog.Logger
	serveErrs chan error
}

// Build constructs hookgate for cfg without listening. It opens the store
// (the audit log, session memory and approval questions live there).
func Build(cfg *config.Config, log *slog.Logger) (*App, error) {
	if log == nil {
		log = slog.Default()
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	ctx := context.Background()
	pers, err := OpenPersistence(ctx, cfg, reg, log)
	if err != nil {
		return nil, err
	}
	a := &App{
		Config:      cfg,
		Registry:    reg,
		persistence: pers,
		metrics:     proxy.NewMetrics(reg),
		log:         log,
		serveErrs:   make(chan error, 2),
	}
	a.limits = newLimits(cfg, a.metrics)
	a.ready = newReadiness(pers.Store, StoreOptions(cfg, nil), log)
	a.ready.setDependencies(redisDependencies(cfg))
	reg.MustRegister(newDependencyCollector(a.ready))
	registerCoordination(reg, pers.Store)
	a.configInfo = newConfigInfo(reg)
	a.gate = approvals.New(pers.Store, approvals.Options{Channels: channelsOf(a), TenantChannel: tenantChannel(a), Logger: log, Pending: a.limits.approvals})
	ro := newReadOnly(a)
	a.readOnly = ro
	a.services = &services{
		recorder:  newHookMetrics(reg, pers.Audit),
		memory:    pers.Memory,
		tools:     newToolMetrics(reg),
		approver:  a.gate,
		toolCalls: toolCallLog{pers.Audit},
		messenger: messenger{a},
		readOnly:  ro,
		admit:     pers.Audit.Admit,
		hookSlots: a.limits.hooks,
		terminals: toolclass.NewTerminals(0, 0),
	}
	a.services.enableCapture(cfg, pers.Audit)
	a.admin = proxy.NewAdmin(proxy.AdminOptions{
		Gatherer: reg, Tokens: adminTokens(cfg), Approvals: approvalDesk{a.gate}, Tenants: tenantDesk{a: a, ro: ro},
		Timeouts: proxyTimeouts(cfg.Timeouts), Metrics: a.metrics,
		Readiness: a.ready, ConfigVersion: a.ConfigVersion,
		Console: a.consoleOptions(cfg, log),
	})
	a.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hookgate_config_reloads_total", Help: "Configuration reloads, applied or refused.",
	}, []string{"result"})
	reg.MustRegister(a.reloads)
	pol, err := compilePolicy(cfg, log, a.services)
	if err != nil {
		a.ready.setDependencies(nil)
		_ = pers.Close(ctx) // the build already failed; that error is the one to report
		return nil, err
	}
	if a.tracing, err = startTracing(cfg, log); err != nil {
		pol.release()
		a.ready.setDependencies(nil)
		_ = pers.Close(ctx) // the build already failed; that error is the one to report
		return nil, err
	}
	popts := pol.proxyOptions(log, a.metrics, a.limits)
	popts.Tracer = a.tracing.Tracer()
	if a.proxy, err = proxy.New(proxyConfig(cfg), popts); err != nil {
		_ = a.tracing.Shutdown(ctx)
		pol.release()
		a.ready.setDependencies(nil)
		_ = pers.Close(ctx) // the build already failed; that error is the one to report
		return nil, err
	}
	a.current.Store(pol)
	a.configApplied(cfg, "start")
	a.hooksConfigured(pol)
	jctx, stop := context.WithCancel(context.Background())
	a.stopJanitor, a.janitorDone = stop, make(chan struct{})
	go func() {
		defer close(a.janitorDone)
		a.gate.Janitor(jctx, time.Minute)
	}()
	return a, nil
}

// hooksConfigured marks the audit records of hooks a configuration no
// longer has (their hook_id becomes NULL; the records stay).
func (a *App) hooksConfigured(pol *policy) {
	if err := a.persistence.HooksConfigured(context.Background(), pol.engine.Hooks()); err != nil {
		a.log.Warn("audit: records of removed hooks not detached", "err", err)
	}
}

// Reload replaces the configuration of a running hookgate: the new one is
// built completely (hooks compiled, files read) before it replaces the old
// one in one atomic swap; a bad one is refused with its errors while the
// old one keeps serving. Requests in flight finish on the configuration
// they started with. Listen addresses and the listeners' settings (limits
// max_request_bytes, max_inflight_request_bytes, max_connections,
// max_connections_per_client; the timeouts.client_* bounds) only change
// with a restart; the admission limits take their new bounds at
// once, keeping what is held.
func (a *App) Reload(cfg *config.Config) error {
	pol, err := compilePolicy(cfg, a.log, a.services)
	if err != nil {
		a.reloads.WithLabelValues("refused").Inc()
		a.reloadRefused(err)
		return err
	}
	if err := a.proxy.Reload(proxyConfig(cfg), pol.proxyOptions(a.log, a.metrics, a.limits)); err != nil {
		pol.release()
		a.reloads.WithLabelValues("refused").Inc()
		a.reloadRefused(err)
		return err
	}
	a.limits.apply(cfg)
	if tracingChanged(a.Config, cfg) {
		a.log.Warn("tracing: the tracing block changed; it takes effect at the next restart")
	}
	a.current.Store(pol)
	a.ready.setDependencies(redisDependencies(cfg))
	a.configApplied(cfg, "reload")
	if m, ok := a.services.recorder.(*hookMetrics); ok {
		m.breakersReset()
	}
	a.hooksConfigured(pol)
	a.reloads.WithLabelValues("applied").Inc()
	return nil
}

// CurrentConfig is the configuration being served now (Config is the one
// hookgate started with, whose listen addresses stay in force).
func (a *App) CurrentConfig() *config.Config { return a.current.Load().cfg }

// Start listens on the configured addresses (port 0 picks a free one) and
// serves in the background.
func (a *App) Start() error {
	var err error
	if a.proxyLn, err = net.Listen("tcp", a.Config.Listen); err != nil {
		return fmt.Errorf("listen %s: %w", a.Config.Listen, err)
	}
	if a.adminLn, err = net.Listen("tcp", a.Config.Admin.Listen); err != nil {
		a.proxyLn.Close()
		return fmt.Errorf("admin listen %s: %w", a.Config.Admin.Listen, err)
	}
	go func() { a.serveErrs <- a.proxy.Serve(a.proxyLn) }()
	go func() { a.serveErrs <- a.admin.Serve(a.adminLn) }()
	a.ready.started.Store(true)
	return nil
}

// Drain turns readiness (/readyz) false and keeps serving for delay, or
// until ctx is done, so that load balancers stop sending new requests
// before Shutdown closes the listener (timeouts.drain_delay after
// SIGTERM). Requests that still arrive meanwhile are served as usual.
func (a *App) Drain(ctx context.Context, delay time.Duration) {
	a.ready.draining.Store(true)
	if delay <= 0 {
		return
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// URL is the proxy's base URL, e.g. http://127.0.0.1:8787.
func (a *App) URL() string { return "http://" + a.proxyLn.Addr().String() }

// AdminURL is the admin listener's base URL.
func (a *App) AdminURL() string { return "http://" + a.adminLn.Addr().String() }

// ConsoleURL is the operator console's address on the admin listener, or
// "" when there is none (no admin token is configured).
func (a *App) ConsoleURL() string {
	if len(a.Config.Admin.Tokens) == 0 {
		return ""
	}
	return a.AdminURL() + "/console/"
}

// Errors reports a listener that stopped serving.
func (a *App) Errors() <-chan error { return a.serveErrs }

// auditFlushGrace is how long the audit queue may take to be written at
// shutdown, on top of the grace given to requests: records of decisions
// already made are not dropped because the streams used up the grace.
const auditFlushGrace = 5 * time.Second

// Shutdown stops accepting connections and lets requests in flight finish
// until ctx is done (timeouts.shutdown_grace for `hookgate serve`). Once
// ctx is done, what still runs (a stream, a hook, a call waiting for a
// person, whose question stays in the store) is left to end with the
// process: the hook engine is then closed without waiting for it. The
// audit queue is flushed within auditFlushGrace either way.
func (a *App) Shutdown(ctx context.Context) error {
	a.ready.draining.Store(true)
	err := a.proxy.Shutdown(ctx)
	if aerr := a.admin.Shutdown(); aerr != nil && err == nil {
		err = aerr
	}
	a.stopJanitor()
	<-a.janitorDone // its lead released, for another instance to take
	a.gate.Close()
	a.readOnly.unwatch()
	a.ready.setDependencies(nil)
	if pol := a.current.Load(); pol != nil {
		if ctx.Err() == nil {
			pol.release()
		} else {
			// Close waits for the dispatches in flight; past the grace
			// nobody waits for them.
			go pol.release()
		}
	}
	// After the engine is closed, so its last executions are queued.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), auditFlushGrace)
	defer cancel()
	if perr := a.persistence.Close(fctx); perr != nil && err == nil {
		err = perr
	}
	// Then the spans still queued are exported, within a grace of their
	// own, so that a collector that is down never costs audit records;
	// its failure is logged, not returned.
	tctx, tcancel := context.WithTimeout(context.WithoutCancel(ctx), tracingFlushGrace)
	defer tcancel()
	if terr := a.tracing.Shutdown(tctx); terr != nil {
		a.log.Warn("tracing: spans not exported at shutdown", "err", terr)
	}
	return err
}

// tracingFlushGrace is how long the spans still queued at shutdown may
// take to be exported.
const tracingFlushGrace = 2 * time.Second

// Close shuts down with a short grace period; for tests and the demo.
func (a *App) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		a.log.Warn("shutdown", "err", err)
	}
}

// adminTokens are the admin API's bearer tokens and the names they act as.
func adminTokens(cfg *config.Config) []proxy.AdminToken {
	out := make([]proxy.AdminToken, 0, len(cfg.Admin.Tokens))
	for _, t := range cfg.Admin.Tokens {
		out = append(out, proxy.AdminToken{Name: t.Name, Token: t.Token, Tenants: t.Tenants})
	}
	return out
}
