package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/hooks"
)

// hookMetrics is the hook engine's Recorder for Prometheus: what each hook
// costs and decides. Labels are hook ids, event names and decisions, all
// from the operator's configuration: never keys, arguments, prompts or
// session ids.
type hookMetrics struct {
	duration *prometheus.HistogramVec
	decision *prometheus.CounterVec
	dropped  *prometheus.CounterVec
	stripped *prometheus.CounterVec
	next     hooks.Recorder
}

var _ hooks.Recorder = (*hookMetrics)(nil)

func newHookMetrics(reg prometheus.Registerer, next hooks.Recorder) *hookMetrics {
	m := &hookMetrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hookgate_hook_duration_seconds",
			Help:    "Time one hook took, condition included.",
			Buckets: prometheus.ExponentialBuckets(0.00001, 2.5, 16),
		}, []string{"hook", "event", "decision"}),
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
		next: next,
	}
	reg.MustRegister(m.duration, m.decision, m.dropped, m.stripped)
	return m
}

func (m *hookMetrics) HookExecuted(x hooks.Execution) {
	m.duration.WithLabelValues(x.HookID, string(x.Event), string(x.Decision)).Observe(x.Duration.Seconds())
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

func (m *hookMetrics) MutationStripped(hookID string, fields []string) {
	m.stripped.WithLabelValues(hookID).Inc()
	if m.next != nil {
		m.next.MutationStripped(hookID, fields)
	}
}
