package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// Load is how requests are sent in a phase.
type Load struct {
	// Concurrency is the number of closed-loop workers, each sending one
	// round (a request to every target, one after the other) at a time; 1
	// is pure latency. Used when Rate is 0.
	Concurrency int `json:"concurrency,omitempty"`
	// Rate, when positive, sends open loop: Rate rounds a second, so every
	// target receives Rate requests a second and the machine carries Rate
	// times the number of targets. Requests go out on schedule whether or
	// not earlier ones have finished.
	Rate float64 `json:"rate,omitempty"`
}

func (l Load) String() string {
	if l.Rate > 0 {
		return "rate " + strconv.FormatFloat(l.Rate, 'f', -1, 64) + "/s per target"
	}
	return "concurrency " + strconv.Itoa(max(l.Concurrency, 1))
}

// Config is one benchmark run.
type Config struct {
	// Scenarios are run one after the other.
	Scenarios []Scenario
	// Targets are measured side by side; Targets[0] is the baseline that
	// added latency is measured against. Empty means Direct() and BareHop().
	Targets []Target
	// Loads are applied to every scenario in turn. Empty means
	// concurrency 1.
	Loads []Load
	// Requests bounds a phase: at most this many rounds (one request per
	// target each). 0 means 1000.
	Requests int
	// Duration bounds a phase in time. 0 means 10 s.
	Duration time.Duration
	// Warmup is the number of rounds sent and discarded before each phase.
	// 0 means 20; negative means none.
	Warmup int
	// Timeout bounds one request, its whole body included. 0 means 30 s.
	Timeout time.Duration
	// MaxInFlight bounds open-loop requests in flight (beyond it a request
	// is counted as an error, "dropped"). 0 means a quarter of the process's
	// file-descriptor limit.
	MaxInFlight int
	// MockAddr is where the mock upstream listens; empty means a free port
	// on 127.0.0.1. Fix it when an external target must be configured to
	// forward to the mock.
	MockAddr string
	// Sessions, when positive, spreads requests round-robin over that many
	// agent sessions (an X-Session-Id header of hgbench-0 ... hgbench-N-1),
	// as many agents would; 0 sends no session header, so every request of
	// a scenario belongs to one session.
	Sessions int
	// Progress receives one line per phase; nil means silence.
	Progress io.Writer
}

func (c *Config) defaults() {
	if len(c.Targets) == 0 {
		c.Targets = []Target{Direct(), BareHop()}
	}
	if len(c.Loads) == 0 {
		c.Loads = []Load{{Concurrency: 1}}
	}
	if c.Requests <= 0 {
		c.Requests = 1000
	}
	if c.Duration <= 0 {
		c.Duration = 10 * time.Second
	}
	if c.Warmup == 0 {
		c.Warmup = 20
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = defaultMaxInFlight()
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
}

// Run starts the mock upstream, then for every scenario starts every
// target, runs every load as one phase, and stops the targets. It returns
// the report of all phases; a phase whose every request failed is
// reported, not an error. Run stops early when ctx is done.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.defaults()
	if len(cfg.Scenarios) == 0 {
		return nil, errors.New("bench: no scenario")
	}
	mock, err := mockupstream.New(mockupstream.Options{Addr: cfg.MockAddr, NoRecord: true})
	if err != nil {
		return nil, err
	}
	defer mock.Close()

	rep := newReport(cfg)
	rep.MockURL = mock.URL()
	defer func() {
		rep.Finished = time.Now()
		rep.Machine.LoadAvgEnd = loadAvg()
		rep.HopMultiples = HopMultiples(rep.Phases)
	}()
	for i := range cfg.Scenarios {
		sc := &cfg.Scenarios[i]
		rep.Scenarios = append(rep.Scenarios, ScenarioInfo{Name: sc.Name, Description: sc.Description, Streamed: sc.Streamed(), Hooks: sc.Hooks})
		mock.Handle(mockupstream.Always(sc.Response))
		phases, err := runScenario(ctx, &cfg, sc, mock.URL())
		rep.Phases = append(rep.Phases, phases...)
		if err != nil {
			return rep, err
		}
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
	}
	return rep, nil
}

// rig is one scenario's targets started in front of the mock, with a
// client for each.
type rig struct {
	sc      *Scenario
	targets []Target
	clients []*client
	stops   []func()
}

func startRig(sc *Scenario, targets []Target, upstream string, timeout time.Duration, sessions int) (*rig, error) {
	r := &rig{sc: sc, targets: targets}
	for i := range targets {
		t := &targets[i]
		base, stop, err := t.Start(upstream, sc)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("bench: scenario %s: start %s: %w", sc.Name, t.Name, err)
		}
		r.stops = append(r.stops, stop)
		c, err := newClient(base, t, sc, timeout)
		if err == nil {
			c.sessions = sessions
		}
		if err != nil {
			r.close()
			return nil, err
		}
		r.clients = append(r.clients, c)
	}
	return r, nil
}

func (r *rig) close() {
	for _, c := range r.clients {
		c.close()
	}
	for i := len(r.stops) - 1; i >= 0; i-- {
		r.stops[i]()
	}
}

// phase runs one load on the rig: a warm-up, then at most rounds rounds
// within dur.
func (r *rig) phase(ctx context.Context, load Load, cfg *Config) Phase {
	if cfg.Warmup > 0 {
		closedLoop(ctx, r.clients, max(load.Concurrency, 1), cfg.Warmup, cfg.Duration)
	}
	var res [][]sample
	var elapsed time.Duration
	if load.Rate > 0 {
		res, elapsed = openLoop(ctx, r.clients, load.Rate, cfg.Requests, cfg.Duration, cfg.MaxInFlight)
	} else {
		res, elapsed = closedLoop(ctx, r.clients, max(load.Concurrency, 1), cfg.Requests, cfg.Duration)
	}
	return summarise(r.sc, load, r.targets, res, elapsed)
}

func runScenario(ctx context.Context, cfg *Config, sc *Scenario, upstream string) ([]Phase, error) {
	r, err := startRig(sc, cfg.Targets, upstream, cfg.Timeout, cfg.Sessions)
	if err != nil {
		return nil, err
	}
	defer r.close()
	var phases []Phase
	for _, load := range cfg.Loads {
		if ctx.Err() != nil {
			break
		}
		p := r.phase(ctx, load, cfg)
		fmt.Fprintf(cfg.Progress, "%-28s %-26s %5d rounds in %6.2fs", sc.Name, load, p.Rounds, p.Seconds)
		for _, t := range p.Targets[1:] {
			head, a := p.headline(&t)
			if a != nil {
				fmt.Fprintf(cfg.Progress, "  %s added %s p50 %s p99 %s", t.Name, head, fmtUS(a.P50), fmtUS(a.P99))
			}
		}
		fmt.Fprintln(cfg.Progress)
		phases = append(phases, p)
	}
	return phases, nil
}

// closedLoop runs up to rounds rounds with conc workers, stopping at the
// duration. results[target][round].
func closedLoop(ctx context.Context, clients []*client, conc, rounds int, dur time.Duration) ([][]sample, time.Duration) {
	res := makeResults(len(clients), rounds)
	var next atomic.Int64
	start := time.Now()
	deadline := start.Add(dur)
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				r := int(next.Add(1) - 1)
				if r >= rounds || ctx.Err() != nil || time.Now().After(deadline) {
					return
				}
				// Rotate who goes first, so that no target always follows
				// the same one.
				for j := range clients {
					ti := (r + j) % len(clients)
					res[ti][r] = clients[ti].do()
				}
			}
		}()
	}
	wg.Wait()
	return res, time.Since(start)
}

// openLoop sends rate rounds a second on a fixed schedule: round r starts at
// r/rate, and its requests are spread evenly over the round. Each request
// runs in its own goroutine, so a slow target does not slow the schedule.
func openLoop(ctx context.Context, clients []*client, rate float64, rounds int, dur time.Duration, maxInFlight int) ([][]sample, time.Duration) {
	res := makeResults(len(clients), rounds)
	period := time.Duration(float64(time.Second) / rate)
	step := period / time.Duration(len(clients))
	var inFlight atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(dur)
schedule:
	for r := range rounds {
		for j := range clients {
			due := start.Add(time.Duration(r)*period + time.Duration(j)*step)
			if due.After(deadline) || ctx.Err() != nil {
				break schedule
			}
			if d := time.Until(due); d > 0 {
				time.Sleep(d)
			}
			ti := (r + j) % len(clients)
			if inFlight.Load() >= int64(maxInFlight) {
				res[ti][r] = sample{done: true, err: "dropped: " + strconv.Itoa(maxInFlight) + " requests already in flight"}
				continue
			}
			inFlight.Add(1)
			wg.Add(1)
			go func(ti, r int, due time.Time) {
				defer wg.Done()
				defer inFlight.Add(-1)
				lag := time.Since(due)
				s := clients[ti].do()
				s.lag = lag
				res[ti][r] = s
			}(ti, r, due)
		}
	}
	wg.Wait()
	return res, time.Since(start)
}

func makeResults(targets, rounds int) [][]sample {
	res := make([][]sample, targets)
	for i := range res {
		res[i] = make([]sample, rounds)
	}
	return res
}

// summarise turns one phase's samples into its results.
func summarise(sc *Scenario, load Load, targets []Target, res [][]sample, elapsed time.Duration) Phase {
	p := Phase{Scenario: sc.Name, Streamed: sc.Streamed(), Load: load, Seconds: elapsed.Seconds()}
	var lags []float64
	for r := range res[0] {
		for ti := range res {
			if res[ti][r].done {
				p.Rounds = r + 1
			}
		}
	}
	for ti := range targets {
		s := res[ti][:p.Rounds]
		tr := TargetResult{Name: targets[ti].Name}
		for i := range s {
			if !s[i].done {
				continue
			}
			tr.Requests++
			if s[i].err != "" {
				tr.Errors++
				if tr.ErrorSamples == nil {
					tr.ErrorSamples = map[string]int{}
				}
				if _, seen := tr.ErrorSamples[s[i].err]; seen || len(tr.ErrorSamples) < 5 {
					tr.ErrorSamples[s[i].err]++
				}
			}
			if load.Rate > 0 {
				lags = append(lags, us(s[i].lag))
			}
		}
		if tr.Requests > 0 {
			tr.ErrorRate = float64(tr.Errors) / float64(tr.Requests)
		}
		if p.Seconds > 0 {
			tr.Throughput = float64(tr.Requests-tr.Errors) / p.Seconds
		}
		tr.Latency = dist(s, mTotal)
		tr.TTFB = dist(s, mTTFB)
		if sc.Streamed() {
			tr.TTFC = dist(s, mTTFC)
			tr.TTTool = dist(s, mTool)
			tr.TTFinish = dist(s, mFinish)
		}
		if ti > 0 {
			base := res[0][:p.Rounds]
			tr.AddedLatency = added(s, base, mTotal)
			tr.AddedTTFB = added(s, base, mTTFB)
			if sc.Streamed() {
				tr.AddedTTFC = added(s, base, mTTFC)
				tr.AddedTTTool = added(s, base, mTool)
				tr.AddedTTFinish = added(s, base, mFinish)
			}
		}
		p.Targets = append(p.Targets, tr)
	}
	if len(lags) > 0 {
		slices.Sort(lags)
		p.GeneratorLagP99 = percentile(lags, 99)
	}
	return p
}
