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
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/proxy"
)

// App is a running hookgate.
type App struct {
	Config   *config.Config
	Registry *prometheus.Registry

	engine    *hooks.Engine
	proxy     *proxy.Server
	admin     *proxy.Admin
	proxyLn   net.Listener
	adminLn   net.Listener
	log       *slog.Logger
	serveErrs chan error
}

// Build constructs hookgate for cfg without listening.
func Build(cfg *config.Config, log *slog.Logger) (*App, error) {
	if log == nil {
		log = slog.Default()
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	engine, err := buildEngine(cfg, log, newHookMetrics(reg, nil))
	if err != nil {
		return nil, err
	}
	ic := cfg.Interception
	chat := interceptors.NewChat(interceptors.ChatOptions{
		Engine:                 engine,
		Memory:                 interceptors.NewLocalMemory(ic.SessionTTL.D()),
		MaxEventBytes:          int(cfg.Limits.MaxEventBytes),
		MaxStreamBytes:         int64(cfg.Limits.MaxStreamBytes),
		SessionHeader:          ic.SessionHeader,
		ParentHeader:           ic.ParentSessionHeader,
		AgentHeader:            ic.AgentHeader,
		MetadataHeaders:        ic.MetadataHeaders,
		BlockTemplate:          ic.BlockTemplate,
		ContextAfterSystem:     ic.ContextPosition == "append",
		Heartbeat:              cfg.Timeouts.Heartbeat.D(),
		PreResponseOnToolCalls: ic.PreResponseOnTools,
		OnBlock:                ic.OnBlock,
		MaxRetries:             ic.MaxRetries,
		RetryHooks:             anyHookRetries(cfg),
		Logger:                 log,
	})
	p, err := proxy.New(cfg, proxy.Options{
		Interceptors: map[string]interceptors.Interceptor{"/v1/chat/completions": chat},
		Logger:       log,
		Metrics:      proxy.NewMetrics(reg),
	})
	if err != nil {
		engine.Close()
		return nil, err
	}
	return &App{Config: cfg, Registry: reg, engine: engine, proxy: p, admin: proxy.NewAdmin(reg), log: log, serveErrs: make(chan error, 2)}, nil
}

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
	return nil
}

// URL is the proxy's base URL, e.g. http://127.0.0.1:8787.
func (a *App) URL() string { return "http://" + a.proxyLn.Addr().String() }

// AdminURL is the admin listener's base URL.
func (a *App) AdminURL() string { return "http://" + a.adminLn.Addr().String() }

// Errors reports a listener that stopped serving.
func (a *App) Errors() <-chan error { return a.serveErrs }

// Shutdown stops accepting connections and lets requests in flight finish
// until ctx is done.
func (a *App) Shutdown(ctx context.Context) error {
	err := a.proxy.Shutdown(ctx)
	if aerr := a.admin.Shutdown(); aerr != nil && err == nil {
		err = aerr
	}
	a.engine.Close()
	return err
}

// Close shuts down with a short grace period; for tests and the demo.
func (a *App) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		a.log.Warn("shutdown", "err", err)
	}
}

// anyHookRetries reports whether a hook sets on_block: retry itself.
func anyHookRetries(cfg *config.Config) bool {
	for _, h := range cfg.Hooks {
		if h.OnBlock == "retry" {
			return true
		}
	}
	return false
}
