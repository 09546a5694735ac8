package store

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Reasons a record was dropped (the reason label of
// hookgate_audit_records_dropped_total).
const (
	// DropQueueFull: on_full: drop and the queue had no room.
	DropQueueFull = "queue_full"
	// DropWaitTimeout: on_full: block and no room came within max_wait.
	DropWaitTimeout = "wait_timeout"
	// DropClosed: recorded after Close began, or still unwritten when
	// Close's context ended.
	DropClosed = "closed"
)

// auditMetrics are the audit writer's. No label carries a session, a
// hook's input or a key.
type auditMetrics struct {
	written    prometheus.Counter
	duplicates prometheus.Counter
	dropped    *prometheus.CounterVec
	refused    prometheus.Counter
	errors     prometheus.Counter
	batch      prometheus.Histogram
	depth      prometheus.GaugeFunc
}

func newAuditMetrics(reg prometheus.Registerer, depth func() float64) (*auditMetrics, error) {
	m := &auditMetrics{
		written: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hookgate_audit_records_written_total",
			Help: "Hook execution records written to the store.",
		}),
		duplicates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hookgate_audit_records_duplicate_total",
			Help: "Records skipped because they were already written (a batch the writer retried after its first write landed unacknowledged).",
		}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookgate_audit_records_dropped_total",
			Help: "Records not written, by reason: queue_full (on_full: drop), wait_timeout (on_full: block past max_wait), closed.",
		}, []string{"reason"}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hookgate_audit_admissions_refused_total",
			Help: "Requests refused because the audit queue had no room for longer than max_wait (on_full: block).",
		}),
		errors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hookgate_audit_write_errors_total",
			Help: "Failed attempts to write a batch of records (each is retried).",
		}),
		batch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hookgate_audit_batch_seconds",
			Help:    "Time to write one batch of records.",
			Buckets: prometheus.ExponentialBuckets(0.0002, 2.5, 12),
		}),
		depth: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "hookgate_audit_queue_depth",
			Help: "Records waiting in the audit queue.",
		}, depth),
	}
	for _, r := range []string{DropQueueFull, DropWaitTimeout, DropClosed} {
		m.dropped.WithLabelValues(r) // present at zero, so alerts can rate() them
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.written, m.duplicates, m.dropped, m.refused, m.errors, m.batch, m.depth} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}
