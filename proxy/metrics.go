package proxy

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/internal/admission"
)

// Metrics are the proxy's Prometheus series. Labels never carry keys,
// prompts, arguments or session ids; routes outside the known set are
// reported as "other" so a client cannot blow up cardinality. A request
// hookgate answered without sending it to any upstream (a refused route,
// an unknown key or upstream, a request-side hook's answer) counts under
// upstream="none" (noUpstream).
type Metrics struct {
	requests      *prometheus.CounterVec
	upstream      *prometheus.HistogramVec
	overheadHist  prometheus.Histogram
	ttfbHist      prometheus.Histogram
	activeStreams prometheus.Gauge
	refused       *prometheus.CounterVec
	routes        *prometheus.CounterVec
	connections   *prometheus.GaugeVec
	connsRefused  *prometheus.CounterVec
	clientTimeout *prometheus.CounterVec
	loginFailures *prometheus.CounterVec
	reg           prometheus.Registerer
}

// admissionInUseHelp is the help of hookgate_admission_in_use, which every
// limit's gauge must share.
const admissionInUseHelp = "Slots of an admission limit held now (limit: streams, hooks, approvals), or bytes (limit: request_bytes, the request body bytes held)."

// noUpstream is the upstream label of a request no upstream saw.
const noUpstream = "none"

// knownRoutes bound the route label beside the registered formats' own
// labels (Format.MetricLabel): the routes without a format that agents
// call.
var knownRoutes = map[string]bool{
	"/v1/completions": true, "/v1/embeddings": true, "/v1/models": true,
	"/v1/files": true, "/v1/batches": true, "/v1/moderations": true,
	"/v1/messages/count_tokens": true, "/v1/audio/transcriptions": true, "/v1/audio/translations": true,
}

// routeLabel is the route label of a request: its format's label, else
// its path when it is a known route, else "other".
func (x *exchange) routeLabel() string {
	if x.format != nil {
		return x.format.MetricLabel
	}
	if knownRoutes[x.path] {
		return x.path
	}
	return "other"
}

// NewMetrics registers the proxy's series on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookgate_requests_total", Help: "Requests answered, by upstream, route and status code.",
		}, []string{"upstream", "route", "code"}),
		upstream: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hookgate_upstream_duration_seconds", Help: "Time from sending a request upstream to its response headers.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 18),
		}, []string{"upstream"}),
		overheadHist: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "hookgate_overhead_seconds", Help: "Time spent in hookgate itself on a request, excluding the upstream wait.",
			Buckets: prometheus.ExponentialBuckets(0.00001, 2, 18),
		}),
		ttfbHist: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "hookgate_ttfb_added_seconds", Help: "Time from the upstream's response headers to the first bytes hookgate flushed to the client, on streams it reads.",
			Buckets: prometheus.ExponentialBuckets(0.00001, 2, 18),
		}),
		activeStreams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "hookgate_active_streams", Help: "Streams being relayed now.",
		}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookgate_admission_refused_total", Help: "Requests, hook executions and approval questions refused over an admission limit (limit: streams, hooks, approvals).",
		}, []string{"limit"}),
		routes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookgate_routes_refused_total", Help: "Requests refused by route while hooks are configured, by reason (not_listed, stored_object, unread_format, method, odd_path, method_override); they never reach an upstream.",
		}, []string{"reason"}),
		connections: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "hookgate_client_connections", Help: "Client connections open now, by listener (agent, admin).",
		}, []string{"listener"}),
		connsRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookgate_connections_refused_total", Help: "Agent connections closed on arrival over a connection cap (limit: max_connections, max_connections_per_client).",
		}, []string{"limit"}),
		clientTimeout: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookgate_client_timeouts_total", Help: "Client connections cut by a client timeout, by listener and timeout (client_header, client_body_progress, client_idle, client_write_stall).",
		}, []string{"listener", "timeout"}),
		loginFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookgate_console_login_failures_total", Help: "Console logins refused, by reason (wrong_token: not an admin token; throttled: refused with a 429 before the token was looked at).",
		}, []string{"reason"}),
		reg: reg,
	}
	for _, r := range []string{loginWrongToken, loginThrottled} {
		m.loginFailures.WithLabelValues(r)
	}
	for _, r := range refusalReasons {
		m.routes.WithLabelValues(string(r))
	}
	for _, l := range []string{refusedMaxConnections, refusedMaxPerClient} {
		m.connsRefused.WithLabelValues(l)
	}
	reg.MustRegister(m.requests, m.upstream, m.overheadHist, m.ttfbHist, m.activeStreams, m.refused, m.routes,
		m.connections, m.connsRefused, m.clientTimeout, m.loginFailures)
	return m
}

// AdmissionRefused counts a refusal over the admission limit named limit
// (an admission.Limit's refusal callback).
func (m *Metrics) AdmissionRefused(limit string) {
	if m != nil {
		m.refused.WithLabelValues(limit).Inc()
	}
}

// ObserveAdmission exports how many slots of each limit are held, as
// hookgate_admission_in_use{limit}, and starts its refusal count at zero
// so that dashboards see the series before the first refusal.
func (m *Metrics) ObserveAdmission(limits ...*admission.Limit) {
	if m == nil {
		return
	}
	for _, l := range limits {
		m.refused.WithLabelValues(l.Name())
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "hookgate_admission_in_use", Help: admissionInUseHelp,
			ConstLabels: prometheus.Labels{"limit": l.Name()},
		}, func() float64 { return float64(l.InUse()) }))
	}
}

// The reasons of hookgate_console_login_failures_total.
const (
	loginWrongToken = "wrong_token"
	loginThrottled  = "throttled"
)

func (m *Metrics) consoleLoginFailed(reason string) {
	if m != nil {
		m.loginFailures.WithLabelValues(reason).Inc()
	}
}

func (m *Metrics) request(upstream, route string, code int) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(upstream, route, strconv.Itoa(code)).Inc()
}

func (m *Metrics) routeRefused(reason refusalReason) {
	if m != nil {
		m.routes.WithLabelValues(string(reason)).Inc()
	}
}

func (m *Metrics) upstreamHeaders(upstream string, d time.Duration) {
	if m != nil {
		m.upstream.WithLabelValues(upstream).Observe(d.Seconds())
	}
}

func (m *Metrics) overhead(d time.Duration) {
	if m != nil && d > 0 {
		m.overheadHist.Observe(d.Seconds())
	}
}

func (m *Metrics) ttfbAdded(d time.Duration) {
	if m != nil {
		m.ttfbHist.Observe(d.Seconds())
	}
}

func (m *Metrics) streamStarted() {
	if m != nil {
		m.activeStreams.Inc()
	}
}

func (m *Metrics) streamEnded() {
	if m != nil {
		m.activeStreams.Dec()
	}
}

// observeRequestBytes exports the request body bytes b holds as
// hookgate_admission_in_use{limit="request_bytes"}, and starts its refusal
// count at zero. A second server on the same metrics keeps the first
// one's gauge.
func (m *Metrics) observeRequestBytes(b *bodyBudget) {
	if m == nil || b == nil {
		return
	}
	m.refused.WithLabelValues(requestBytesLimit)
	_ = m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hookgate_admission_in_use", Help: admissionInUseHelp,
		ConstLabels: prometheus.Labels{"limit": requestBytesLimit},
	}, func() float64 { return float64(b.inUse()) }))
}

// clientConnections is the open-connection gauge of a listener (nil
// without metrics).
func (m *Metrics) clientConnections(listener string) prometheus.Gauge {
	if m == nil {
		return nil
	}
	return m.connections.WithLabelValues(listener)
}

func (m *Metrics) connectionRefused(limit string) {
	if m != nil {
		m.connsRefused.WithLabelValues(limit).Inc()
	}
}

// timeoutCounters are a listener's client timeout counts, bound once so
// that counting one costs no label lookup.
func (m *Metrics) timeoutCounters(listener string) *[timeoutKinds]prometheus.Counter {
	if m == nil {
		return nil
	}
	var c [timeoutKinds]prometheus.Counter
	for k := range timeoutKinds {
		c[k] = m.clientTimeout.WithLabelValues(listener, timeoutKind(k).String())
	}
	return &c
}
