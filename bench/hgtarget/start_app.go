package hgtarget

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/hookgate/hookgate/bench"
	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
)

// startApp builds and starts hookgate for sc: Document and WithStore over
// o.Base with the scenario's hooks and a temporary SQLite store, vars
// filling ${...} in the hooks.
func startApp(o Options, upstreamURL string, sc *bench.Scenario, vars map[string]string) (*app.App, func(), error) {
	dir, err := os.MkdirTemp("", "hookgate-bench-store-")
	if err != nil {
		return nil, nil, fmt.Errorf("hgtarget: %w", err)
	}
	fail := func(err error) (*app.App, func(), error) {
		_ = os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("hgtarget: scenario %s: %w", sc.Name, err)
	}
	doc, err := Document(o.Base, upstreamURL, sc.Hooks, notes(o))
	if err == nil {
		doc, err = WithStore(doc, filepath.Join(dir, "hookgate.db"), notes(o))
	}
	if err != nil {
		return fail(err)
	}
	name := o.BaseName
	if name == "" {
		name = "bench.yaml"
	}
	cfg, err := config.Parse(doc, name, lookup(o, vars))
	if err != nil {
		return fail(err)
	}
	cfg.Path, cfg.BaseDir = name, o.BaseDir
	if cfg.BaseDir == "" {
		cfg.BaseDir, _ = os.Getwd()
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	a, err := app.Build(cfg, log)
	if err != nil {
		return fail(err)
	}
	if err := a.Start(); err != nil {
		a.Close()
		return fail(err)
	}
	return a, func() {
		// After Close: it waits for the observer pool, so that observing
		// and dry-run hooks' decisions are counted too.
		a.Close()
		if o.OnStop != nil {
			o.OnStop(sc, decisions(a))
		}
		_ = os.RemoveAll(dir)
	}, nil
}
