package app

import (
	"context"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/proxy"
	"github.com/hookgate/hookgate/store"
)

// costDesk tells the console what each hook cost over a window, from the
// audit records (hook_executions: the same runs hookgate_hook_duration_seconds
// observes, with their durations), and the streams and held calls right
// now from the metrics registry.
type costDesk struct {
	st  *store.Store
	reg prometheus.Gatherer
}

var _ proxy.CostDesk = costDesk{}

// Bounds of the costs page: at most maxCostRows of the newest runs are
// read, and each hook's chart has costBuckets bars.
const (
	maxCostRows = 50000
	costBuckets = 24
)

// hookCost is one hook's line on the costs page.
type hookCost struct {
	Hook       string         `json:"hook"`
	Executions int            `json:"executions"`
	Decisions  map[string]int `json:"decisions"`
	P50ms      float64        `json:"p50_ms"`
	P99ms      float64        `json:"p99_ms"`
	// Series counts the runs in each of costBuckets equal slices of the
	// window, oldest first; SeriesP99ms is each slice's p99 (0: no run).
	Series      []int     `json:"series"`
	SeriesP99ms []float64 `json:"series_p99_ms"`
	durations   []float64
	byBucket    [][]float64
}

// Costs sums the runs of the last window per hook. The gauges (streams,
// held calls) are this instance's and the whole of it, so a token scoped
// to tenants does not see them.
func (d costDesk) Costs(ctx context.Context, window time.Duration, tenants []string) (any, error) {
	now := time.Now()
	since := now.Add(-window)
	xs, err := d.st.ListExecutions(ctx, store.ExecutionFilter{Since: since, Tenants: tenants, Limit: maxCostRows})
	if err != nil {
		return nil, err
	}
	byHook := map[string]*hookCost{}
	slice := window / costBuckets
	for _, x := range xs {
		id := x.HookID
		if id == "" {
			id = "(removed hook)"
		}
		h := byHook[id]
		if h == nil {
			h = &hookCost{Hook: id, Decisions: map[string]int{}, Series: make([]int, costBuckets),
				SeriesP99ms: make([]float64, costBuckets), byBucket: make([][]float64, costBuckets)}
			byHook[id] = h
		}
		ms := float64(x.Duration.Microseconds()) / 1000
		h.Executions++
		h.Decisions[x.Decision]++
		h.durations = append(h.durations, ms)
		b := min(max(int(x.CreatedAt.Sub(since)/slice), 0), costBuckets-1)
		h.Series[b]++
		h.byBucket[b] = append(h.byBucket[b], ms)
	}
	hooks := make([]*hookCost, 0, len(byHook))
	for _, h := range byHook {
		h.P50ms, h.P99ms = quantile(h.durations, 0.50), quantile(h.durations, 0.99)
		for i, b := range h.byBucket {
			h.SeriesP99ms[i] = quantile(b, 0.99)
		}
		hooks = append(hooks, h)
	}
	slices.SortFunc(hooks, func(a, b *hookCost) int { return b.Executions - a.Executions })
	out := map[string]any{
		"window": window.String(), "since": since.UTC(), "until": now.UTC(), "hooks": hooks,
		"truncated": len(xs) == maxCostRows,
	}
	if tenants == nil && d.reg != nil {
		out["now"] = d.gauges()
	}
	return out, nil
}

// quantile is the q-quantile of v (nearest rank; 0 for none). It sorts v.
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	i := int(q*float64(len(v))+0.999999) - 1
	return v[min(max(i, 0), len(v)-1)]
}

// gauges reads the live figures the costs page shows from the registry:
// streams relayed now, tool calls held now, approvals waiting now.
func (d costDesk) gauges() map[string]float64 {
	out := map[string]float64{"active_streams": 0, "held_tool_calls": 0}
	families, err := d.reg.Gather()
	if err != nil {
		return out
	}
	for _, f := range families {
		var key string
		switch f.GetName() {
		case "hookgate_active_streams":
			key = "active_streams"
		case "hookgate_held_tool_calls":
			key = "held_tool_calls"
		default:
			continue
		}
		for _, m := range f.GetMetric() {
			out[key] += m.GetGauge().GetValue()
		}
	}
	return out
}
