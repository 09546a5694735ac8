package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/proxy"
	"github.com/hookgate/hookgate/store"
)

// Readiness, as /readyz reports it, fails only on causes local to this
// instance: it has not started serving yet, it is draining after SIGTERM,
// or its own store (a SQLite file) cannot be opened. Another instance
// would serve those requests better, so the load balancer should send
// them there.
//
// Shared dependencies (PostgreSQL as the store, Redis behind a rate_limit
// hook) are reported, in the JSON and in hookgate_dependency_up, but never
// fail readiness. When PostgreSQL is down it is down for every instance:
// failing readiness would take them all out of the balancer at once, and
// agents would get the balancer's own HTML 502s instead of hookgate's
// answers, which fail closed in each API's own error shape (a blocked
// call, a 503 with Retry-After) and recover by themselves.

// Checks are cached for readinessCacheFor and each is bounded by
// readinessCheckTimeout, so that probes every second from several load
// balancers cost one round trip per dependency per second at most.
const (
	readinessCacheFor     = time.Second
	readinessCheckTimeout = time.Second
)

// Reasons readiness fails, as /readyz names them.
const (
	notReadyStarting = "starting"
	notReadyDraining = "draining"
	notReadyStore    = "store_unavailable"
)

// readiness is the state /readyz answers from.
type readiness struct {
	// started is set once the listeners serve the first configuration.
	started  atomic.Bool
	draining atomic.Bool
	// local checks the instance's own store: nil when the store is shared
	// (PostgreSQL, a dependency instead).
	local *cachedCheck
	// localUp is the store check's last result, for logging changes only.
	localUp atomic.Int32
	// deps are the shared dependencies, rebuilt when a configuration is
	// applied (the Redis variables a policy names may change).
	mu   sync.Mutex
	deps []*dependency
	// fixed are the dependencies of the store, which a reload never
	// changes.
	fixed []*dependency
	log   *slog.Logger
}

// dependency is a shared service this instance uses.
type dependency struct {
	name  string
	check *cachedCheck
	// close releases what the check holds (a Redis client); nil: nothing.
	close func()
	// up is the last result, for logging changes only.
	up atomic.Int32 // 0 unknown, 1 up, 2 down
}

// newReadiness builds the readiness of an instance on st: a SQLite file
// at path is the instance's own, PostgreSQL a shared dependency.
func newReadiness(st *store.Store, opts store.Options, log *slog.Logger) *readiness {
	r := &readiness{log: log}
	switch st.Driver() {
	case store.Postgres:
		r.fixed = []*dependency{{name: "postgres", check: newCachedCheck(st.Ping)}}
	default:
		path := opts.Path
		r.local = newCachedCheck(func(ctx context.Context) error {
			if path != "" && path != store.MemoryPath {
				if err := openable(path); err != nil {
					return err
				}
			}
			return st.Ping(ctx)
		})
	}
	return r
}

// openable checks that the SQLite file is still there and opens for
// writing: a file removed or replaced under a running store would take
// writes nobody reads again.
func openable(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("store file: %w", err)
	}
	return f.Close()
}

// setDependencies replaces the policy's dependencies (not the store's),
// releasing the old ones.
func (r *readiness) setDependencies(deps []*dependency) {
	r.mu.Lock()
	old := r.deps
	r.deps = deps
	r.mu.Unlock()
	for _, d := range old {
		if d.close != nil {
			d.close()
		}
	}
}

func (r *readiness) dependencies() []*dependency {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append(append([]*dependency(nil), r.fixed...), r.deps...)
}

// readyReport is /readyz's JSON. It names no address, DSN or error text:
// the endpoint takes no token. The errors go to the log.
type readyReport struct {
	Status       string                     `json:"status"` // ready | not_ready
	Reasons      []string                   `json:"reasons,omitempty"`
	Store        *localState                `json:"store,omitempty"`
	Dependencies map[string]dependencyState `json:"dependencies,omitempty"`
}

type localState struct {
	OK        bool      `json:"ok"`
	CheckedAt time.Time `json:"checked_at"`
}

type dependencyState struct {
	Up        bool      `json:"up"`
	CheckedAt time.Time `json:"checked_at"`
}

var _ proxy.Readiness = (*readiness)(nil)

// Ready implements proxy.Readiness.
func (r *readiness) Ready(ctx context.Context) (bool, any) {
	rep := readyReport{}
	if !r.started.Load() {
		rep.Reasons = append(rep.Reasons, notReadyStarting)
	}
	if r.draining.Load() {
		rep.Reasons = append(rep.Reasons, notReadyDraining)
	}
	if r.local != nil {
		res := r.local.result(ctx)
		rep.Store = &localState{OK: res.err == nil, CheckedAt: res.at}
		if res.err != nil {
			rep.Reasons = append(rep.Reasons, notReadyStore)
		}
		r.logChange("store", res.err, &r.localUp)
	}
	for _, d := range r.dependencies() {
		res := d.check.result(ctx)
		if rep.Dependencies == nil {
			rep.Dependencies = map[string]dependencyState{}
		}
		rep.Dependencies[d.name] = dependencyState{Up: res.err == nil, CheckedAt: res.at}
		r.logChange(d.name, res.err, &d.up)
	}
	rep.Status = "ready"
	if len(rep.Reasons) > 0 {
		rep.Status = "not_ready"
	}
	return len(rep.Reasons) == 0, rep
}

// logChange logs a check whose result changed since the last one.
func (r *readiness) logChange(name string, err error, last *atomic.Int32) {
	now := int32(1)
	if err != nil {
		now = 2
	}
	if last.Swap(now) == now {
		return
	}
	if err != nil {
		r.log.Warn("readiness: a check fails", "check", name, "err", err)
		return
	}
	r.log.Info("readiness: a check passes", "check", name)
}

// cachedCheck runs a check at most once per readinessCacheFor, each run
// bounded by readinessCheckTimeout; callers meanwhile share its result.
type cachedCheck struct {
	run  func(ctx context.Context) error
	mu   sync.Mutex
	last checkResult
	done bool
}

// checkResult is one run of a check: its error (nil: passed) and when.
type checkResult struct {
	err error
	at  time.Time
}

func newCachedCheck(run func(ctx context.Context) error) *cachedCheck {
	return &cachedCheck{run: run}
}

// result is the check's latest result and when it was taken.
func (c *cachedCheck) result(ctx context.Context) checkResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done && time.Since(c.last.at) < readinessCacheFor {
		return c.last
	}
	cctx, cancel := context.WithTimeout(ctx, readinessCheckTimeout)
	err := c.run(cctx)
	if err == nil && cctx.Err() != nil {
		err = errors.New("check timed out")
	}
	cancel()
	c.last, c.done = checkResult{err: err, at: time.Now()}, true
	return c.last
}

// dependencyCollector exports hookgate_dependency_up{dependency}: 1 when
// the dependency answered its last check, 0 when not. A scrape runs the
// checks (cached like /readyz's), so the series are fresh even when
// nothing probes /readyz.
type dependencyCollector struct {
	r    *readiness
	desc *prometheus.Desc
}

func newDependencyCollector(r *readiness) *dependencyCollector {
	return &dependencyCollector{r: r, desc: prometheus.NewDesc("hookgate_dependency_up",
		"Whether a shared dependency (postgres, redis) answered its last check: 1 up, 0 down. Reported, never a cause of unreadiness.",
		[]string{"dependency"}, nil)}
}

func (c *dependencyCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *dependencyCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*readinessCheckTimeout)
	defer cancel()
	deps := c.r.dependencies()
	sort.Slice(deps, func(i, j int) bool { return deps[i].name < deps[j].name })
	for _, d := range deps {
		v := 1.0
		if d.check.result(ctx).err != nil {
			v = 0
		}
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, v, d.name)
	}
}
