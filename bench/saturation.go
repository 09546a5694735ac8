package bench

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// Saturation is one target's throughput at saturation in one scenario: a
// closed loop of many workers against that target alone (the targets
// take turns, so they do not share the cores with each other; the
// generator and the mock still share them with the target).
type Saturation struct {
	Scenario    string  `json:"scenario"`
	Target      string  `json:"target"`
	Concurrency int     `json:"concurrency"`
	Seconds     float64 `json:"seconds"`
	Requests    int     `json:"requests"`
	Errors      int     `json:"errors"`
	Throughput  float64 `json:"throughput_rps"`
	// VsBaseline is Throughput over the baseline's (Targets[0]) in the
	// same scenario.
	VsBaseline float64 `json:"vs_baseline"`
	LatencyP50 float64 `json:"latency_p50_us"`
	LatencyP99 float64 `json:"latency_p99_us"`
}

// RunSaturation measures every target of cfg alone, one after the other,
// with conc closed-loop workers for cfg.Duration (at most cfg.Requests
// requests), per scenario.
func RunSaturation(ctx context.Context, cfg Config, conc int) ([]Saturation, error) {
	cfg.defaults()
	mock, err := mockupstream.New(mockupstream.Options{Addr: cfg.MockAddr, NoRecord: true})
	if err != nil {
		return nil, err
	}
	defer mock.Close()
	var out []Saturation
	for i := range cfg.Scenarios {
		sc := &cfg.Scenarios[i]
		mock.Handle(mockupstream.Always(sc.Response))
		var base float64
		for ti, t := range cfg.Targets {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			r, err := startRig(sc, []Target{t}, mock.URL(), cfg.Timeout, cfg.Sessions)
			if err != nil {
				return out, err
			}
			closedLoop(ctx, r.clients, conc, max(cfg.Warmup, 0)*conc, cfg.Duration)
			res, elapsed := closedLoop(ctx, r.clients, conc, cfg.Requests, cfg.Duration)
			r.close()
			p := summarise(sc, Load{Concurrency: conc}, []Target{t}, res, elapsed)
			tr := p.Targets[0]
			s := Saturation{
				Scenario: sc.Name, Target: t.Name, Concurrency: conc, Seconds: p.Seconds,
				Requests: tr.Requests, Errors: tr.Errors, Throughput: tr.Throughput,
				LatencyP50: tr.Latency.P50, LatencyP99: tr.Latency.P99,
			}
			if ti == 0 {
				base = s.Throughput
			}
			if base > 0 {
				s.VsBaseline = s.Throughput / base
			}
			fmt.Fprintf(cfg.Progress, "%-28s saturation, concurrency %d: %-12s %8.0f req/s (%.2f of %s), %d errors\n",
				sc.Name, conc, t.Name, s.Throughput, s.VsBaseline, cfg.Targets[0].Name, s.Errors)
			out = append(out, s)
		}
	}
	return out, nil
}

// WriteSaturationTable prints saturation results, with each target's
// throughput as a share of the baseline's and of the bare hop's.
func WriteSaturationTable(w io.Writer, results []Saturation) error {
	if len(results) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n== saturation · each target alone · concurrency %d\n", results[0].Concurrency)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\ttarget\treqs\terrors\treq/s\tvs direct\tvs bare-hop\tlatency p50\tp99\t")
	hop := map[string]float64{}
	for _, s := range results {
		if s.Target == "bare-hop" {
			hop[s.Scenario] = s.Throughput
		}
	}
	for _, s := range results {
		vsHop := "-"
		if h := hop[s.Scenario]; h > 0 {
			vsHop = fmt.Sprintf("%.2f", s.Throughput/h)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f\t%.2f\t%s\t%s\t%s\t\n", s.Scenario, s.Target, s.Requests, s.Errors, s.Throughput,
			s.VsBaseline, vsHop, fmtUS(s.LatencyP50), fmtUS(s.LatencyP99))
	}
	return tw.Flush()
}
