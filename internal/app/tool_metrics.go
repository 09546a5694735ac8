package app

import (
	"regexp"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/interceptors"
)

// toolMetrics counts judged and held tool calls. Tool names come from the
// model, so only names the configuration mentions get a label value of
// their own; the rest are "other".
type toolMetrics struct {
	calls *prometheus.CounterVec
	held  prometheus.Gauge
	known map[string]bool
}

var _ interceptors.Metrics = (*toolMetrics)(nil)

func newToolMetrics(reg prometheus.Registerer) *toolMetrics {
	m := &toolMetrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookgate_tool_calls_total",
			Help: "Tool calls judged, by tool (named in the config, else other) and decision.",
		}, []string{"tool", "decision"}),
		held: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "hookgate_held_tool_calls",
			Help: "Tool calls held in streams now, waiting to be complete or judged.",
		}),
	}
	reg.MustRegister(m.calls, m.held)
	return m
}

// withConfig returns the metrics labelling the tools cfg names.
func (m *toolMetrics) withConfig(cfg *config.Config) *toolMetrics {
	out := *m
	out.known = toolNames(cfg)
	return &out
}

func (m *toolMetrics) ToolCall(tool, decision string) {
	if !m.known[tool] {
		tool = "other"
	}
	m.calls.WithLabelValues(tool, decision).Inc()
}

func (m *toolMetrics) Held(delta int) { m.held.Add(float64(delta)) }

// literalMatcher matches matchers that name tools literally: ^name$ or
// ^(a|b|c)$.
var literalMatcher = regexp.MustCompile(`^\^\(?([A-Za-z0-9_.:/-]+(?:\|[A-Za-z0-9_.:/-]+)*)\)?\$$`)

// toolNames are the tools a configuration names: metrics.tool_labels and
// the literal names in hook matchers.
func toolNames(cfg *config.Config) map[string]bool {
	known := map[string]bool{}
	for _, t := range cfg.Metrics.ToolLabels {
		known[t] = true
	}
	for _, h := range cfg.Hooks {
		if sub := literalMatcher.FindStringSubmatch(h.Matcher); sub != nil {
			for _, t := range strings.Split(sub[1], "|") {
				known[t] = true
			}
		}
	}
	return known
}
