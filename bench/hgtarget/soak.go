package hgtarget

import (
	"fmt"
	"strings"

	"github.com/hookgate/hookgate/bench"
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
// (its registry, its admin URL): the same configuration, built by
// internal/app. It starts no policy server, so a scenario that names one
// is refused. The function it returns stops hookgate (calling o.OnStop
// first) and removes the store.
func StartApp(o Options, upstreamURL string, sc *bench.Scenario) (*app.App, func(), error) {
	if strings.Contains(sc.Hooks, "${"+bench.PolicyURLVar+"}") {
		return nil, nil, fmt.Errorf("hgtarget: scenario %s: StartApp does not start the policy server for ${%s}", sc.Name, bench.PolicyURLVar)
	}
	return startApp(o, upstreamURL, sc, nil)
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
