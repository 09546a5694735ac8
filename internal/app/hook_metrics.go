package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/hooks"
)

// hookMetrics is the hook engine's Recorder for Prometheus: what each hook
// costs and decides. Labels are hook ids, event names and decisions, all
// from the operator's configuration: never keys, arguments, prompts or
// session ids.
//
// It is also a hooks.BreakerRecorder: each change of an http or prompt
// hook's circuit breaker sets hookgate_hook_breaker_state{hook} and each
// opening counts in hookgate_hook_breaker_opened_total{hook}. A hook's
// series appear with its breaker's first change (a breaker that never
// changed is closed).
type hookMetrics struct {
	duration     *prometheus.HistogramVec
	dryDuration  *prometheus.HistogramVec
	dryDropped   *prometheus.CounterVec
	decision     *prometheus.CounterVec
	dropped      *prometheus.CounterVec
	stripped     *prometheus.CounterVec
	breakerState *prometheus.GaugeVec
	breakerOpens *prometheus.CounterVec
	next         hooks.Recorder
}

var (
	_ hooks.Recorder        = (*hookMetrics)(nil)
	_ hooks.BreakerRecorder = (*hookMetrics)(nil)
	_ hooks.DryRunRecorder  = (*hookMetrics)(nil)
)

// breakerStates are the values of hookgate_hook_breaker_state for the
// states hooks.BreakerRecorder reports: the higher, the less the hook's
// server is asked.
var breakerStates = map[string]float64{"closed": 0, "half-open": 1, "open": 2}

func newHookMetrics(reg prometheus.Registerer, next hooks.Recorder) *hookMetrics {
	m := &hookMetrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hookgate_hook_duration_seconds",
			Help:    "Time one hook took, condition included.",
			Buckets: prometheus.ExponentialBuckets(0.00001, 2.5, 16),
		}, []string{"hook", "event", "decision"}),
		dryDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hookgate_dry_run_hook_duration_seconds",
			Help:    "Time one dry_run hook took on the observer pool, condition included (no request waited for it).",
			Buckets: prometheus.ExponentialBuckets(0.00001, 2.5, 16),
		}, []string{"hook", "event", "decision"}),
		dryDropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookgate_dry_run_dropped_total",
			Help: "dry_run hook runs dropped because the observer pool was full: verdicts missing from the audit.",
		}, []string{"hook", "event"}),
		decision: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookgate_hook_decisions_total",
			Help: "Hook executions by hook, event and decision.",
		}, []string{"hook", "event", "decision"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookgate_observer_events_dropped_total",
			Help: "Observing hook events dropped because the observer pool was full.",
		}, []string{"event"}),
		stripped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookgate_mutations_stripped_total",
			Help: "Rewrites a hook was not allowed to make, by hook.",
		}, []string{"hook"}),
		breakerState: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "hookgate_hook_breaker_state",
			Help: "State of an http or prompt hook's circuit breaker: 0 closed, 1 half-open (one probe goes through), 2 open (calls fail at once).",
		}, []string{"hook"}),
		breakerOpens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookgate_hook_breaker_opened_total",
			Help: "Times a hook's circuit breaker opened, after failures in a row or a failed probe.",
		}, []string{"hook"}),
		next: next,
	}
	reg.MustRegister(m.duration, m.dryDuration, m.dryDropped, m.decision, m.dropped, m.stripped, m.breakerState, m.breakerOpens)
	return m
}

func (m *hookMetrics) HookExecuted(x hooks.Execution) {
	d := m.duration
	if x.DryRun {
		d = m.dryDuration
	}
	d.WithLabelValues(x.HookID, string(x.Event), string(x.Decision)).Observe(x.Duration.Seconds())
	m.decision.WithLabelValues(x.HookID, string(x.Event), string(x.Decision)).Inc()
	if m.next != nil {
		m.next.HookExecuted(x)
	}
}

func (m *hookMetrics) ObserverDropped(event hooks.EventName, hookID string) {
	m.dropped.WithLabelValues(string(event)).Inc()
	if m.next != nil {
		m.next.ObserverDropped(event, hookID)
	}
}

// DryRunDropped counts a dry_run hook's run the full observer pool
// dropped (ObserverDropped counted it among the pool's drops too).
func (m *hookMetrics) DryRunDropped(ev *hooks.Event, hookID string) {
	m.dryDropped.WithLabelValues(hookID, string(ev.Event)).Inc()
	if dr, ok := m.next.(hooks.DryRunRecorder); ok {
		dr.DryRunDropped(ev, hookID)
	}
}

func (m *hookMetrics) MutationStripped(hookID string, fields []string) {
	m.stripped.WithLabelValues(hookID).Inc()
	if m.next != nil {
		m.next.MutationStripped(hookID, fields)
	}
}

// BreakerStateChanged records a change of hookID's breaker and passes it
// on to next when next hears of breakers too. It runs under the breaker's
// lock, so it only sets a gauge and a counter. A state it does not know is
// not exported (no guessed value), but still passed on.
func (m *hookMetrics) BreakerStateChanged(hookID, state string) {
	if v, ok := breakerStates[state]; ok {
		m.breakerState.WithLabelValues(hookID).Set(v)
	}
	if state == "open" {
		m.breakerOpens.WithLabelValues(hookID).Inc()
	}
	if br, ok := m.next.(hooks.BreakerRecorder); ok {
		br.BreakerStateChanged(hookID, state)
	}
}

// breakersReset forgets every breaker's state: a reload builds new hooks
// whose breakers start closed, so a gauge left at open would be stale.
// Breakers report again from their next change.
func (m *hookMetrics) breakersReset() { m.breakerState.Reset() }
