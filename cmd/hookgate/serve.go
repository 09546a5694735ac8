package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
)

func runServe(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", "hookgate.yaml", "configuration file")
	watch := fs.Duration("watch", time.Second, "how often to look for changes to the config and tenants' hooks files (0: only on SIGHUP)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0 // asked for help: the usage was printed
		}
		return 2
	}
	cfg, err := config.Load(*path)
	if err != nil {
		// One line says what happened; the problems follow it.
		fmt.Fprintf(stderr, "hookgate: refusing to start: the configuration %s is invalid; nothing is served\n", *path)
		fmt.Fprintln(stderr, err)
		return 1
	}
	log := newLogger(cfg.Log, stderr)
	a, err := app.Build(cfg, log)
	if err != nil {
		fmt.Fprintln(stderr, "hookgate:", err)
		return 1
	}
	// Signals are caught before the listeners open: a SIGTERM that comes
	// as soon as "hookgate listening" is logged drains like any other,
	// instead of killing the process by the signal's default action.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := a.Start(); err != nil {
		fmt.Fprintln(stderr, "hookgate:", err)
		return 1
	}
	log.Info("hookgate listening", "proxy", a.URL(), "admin", a.AdminURL(), "upstreams", len(cfg.Upstreams), "hooks", len(cfg.Hooks))
	if url := a.ConsoleURL(); url != "" {
		log.Info("operator console", "url", url)
	}

	report := func(err error) {
		if err != nil {
			log.Error("configuration reload refused; the running configuration stays in force", "err", err)
			return
		}
		log.Info("configuration reloaded", "config", *path)
	}
	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	if *watch > 0 {
		go a.Watch(watchCtx, *path, *watch, report)
	}

	for {
		select {
		case sig := <-sigs:
			if sig == syscall.SIGHUP {
				report(a.ReloadFile(*path))
				continue
			}
			if sig == syscall.SIGTERM {
				drain(a, log, sigs)
			}
			log.Info("shutting down", "signal", sig.String(), "grace", a.CurrentConfig().Timeouts.ShutdownGrace.D())
		case err := <-a.Errors():
			log.Error("listener stopped", "err", err)
			return 1
		}
		break
	}
	stopWatch()
	// timeouts.shutdown_grace of the configuration in force (a reload may
	// have changed it): how long requests and streams in flight may run.
	ctx, cancel := context.WithTimeout(context.Background(), a.CurrentConfig().Timeouts.ShutdownGrace.D())
	defer cancel()
	if err := a.Shutdown(ctx); err != nil {
		log.Warn("shutdown did not finish cleanly", "err", err)
	}
	return 0
}

// drain turns readiness false and keeps serving for timeouts.drain_delay,
// so that load balancers stop sending before the listener closes; a
// second SIGINT or SIGTERM ends the wait. SIGINT (an operator at a
// terminal) does not drain.
func drain(a *app.App, log *slog.Logger, sigs <-chan os.Signal) {
	delay := a.CurrentConfig().Timeouts.Drain()
	log.Info("draining: /readyz fails, requests are still served", "drain_delay", delay)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			select {
			case sig := <-sigs:
				if sig != syscall.SIGHUP {
					cancel()
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	a.Drain(ctx, delay)
}

func newLogger(c config.Log, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
