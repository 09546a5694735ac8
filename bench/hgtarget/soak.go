package hgtarget

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookgate/hookgate/bench"
	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
)

// SoakStarter starts hookgate for the soak (bench.RunSoak) with o: like
// Start, and it also lends the soak hookgate's metrics, read in-process
// from its registry (held tool calls, active streams, hook decisions).
func SoakStarter(o Options) bench.SoakStarter {
	return func(upstreamURL string, sc *bench.Scenario) (bench.SoakTarget, error) {
		a, stop, err := StartApp(o, upstreamURL, sc)
		if err != nil {
			return bench.SoakTarget{}, err
		}
		return bench.SoakTarget{
			URL:       a.URL(),
			Metrics:   func() map[string]float64 { return metrics(a) },
			Decisions: func() map[string]map[string]float64 { return decisions(a) },
			Stop:      stop,
		}, nil
	}
}

// StartApp is Start for a caller that needs the running hookgate itself
// (its registry, its admin URL): the same configuration (Document and
// WithStore over o.Base, the scenario's hooks, a temporary SQLite store),
// built by internal/app. The function it returns stops hookgate (calling
// o.OnStop first) and removes the store. It repeats Start's steps but for
// the policy server; Start could be written over it.
func StartApp(o Options, upstreamURL string, sc *bench.Scenario) (*app.App, func(), error) {
	if strings.Contains(sc.Hooks, "${"+bench.PolicyURLVar+"}") {
		// The policy server's lifetime is Start's business; the soak's
		// hooks do not name it.
		return nil, nil, fmt.Errorf("hgtarget: scenario %s: StartApp does not start the policy server for ${%s}", sc.Name, bench.PolicyURLVar)
	}
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
	cfg, err := config.Parse(doc, name, lookup(o, nil))
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
		if o.OnStop != nil {
			o.OnStop(sc, decisions(a))
		}
		a.Close()
		_ = os.RemoveAll(dir)
	}, nil
}

// metrics reads the app's registry: every gauge and counter by name,
// summed over its labels.
func metrics(a *app.App) map[string]float64 {
	out := map[string]float64{}
	mfs, err := a.Registry.Gather()
	if err != nil {
		return out
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch {
			case m.Gauge != nil:
				out[mf.GetName()] += m.GetGauge().GetValue()
			case m.Counter != nil:
				out[mf.GetName()] += m.GetCounter().GetValue()
			}
		}
	}
	return out
}
