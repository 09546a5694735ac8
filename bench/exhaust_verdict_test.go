package bench

import (
	"strings"
	"testing"
)

// The exhaustion test's verdict: each of the three targets, and the
// ordinary requests' health, fails it on its own.
func TestExhaustVerdict(t *testing.T) {
	cfg := ExhaustConfig{Start: func(string, []byte) (ExhaustTarget, error) { return ExhaustTarget{}, nil }}
	cfg.defaults()
	phase := func(addedP99 float64, errors int) Phase {
		return Phase{Rounds: 100, Targets: []TargetResult{
			{Name: "direct", Requests: 100},
			{Name: "hookgate", Requests: 100, Errors: errors, AddedLatency: &Added{P99: addedP99}},
		}}
	}
	good := func() *ExhaustReport {
		r := &ExhaustReport{Unloaded: phase(400, 0), Loaded: phase(1100, 0)}
		r.Memory.RSSBaseline, r.Memory.RSSSampledPeak, r.Memory.PeakRSS = 40<<20, 120<<20, 121<<20
		r.Connections = []ExhaustConns{
			{Kind: KindHeaderDrip, Timeout: "timeouts.client_header", Wanted: 1000, SetUp: 1000, ClosedInTime: 1000},
			{Kind: KindIdle, Timeout: "timeouts.client_idle", Wanted: 1000, SetUp: 1000, ClosedInTime: 1000},
			{Kind: KindFakeBody, Timeout: "timeouts.client_body_progress", Wanted: 100, SetUp: 100, ClosedInTime: 100},
		}
		return r
	}
	r := good()
	r.verdict(&cfg)
	if !r.Pass || r.Memory.Growth != 81<<20 || r.P99Ratio != 2.75 {
		t.Fatalf("pass %v (%q), growth %d, ratio %v", r.Pass, r.Failures, r.Memory.Growth, r.P99Ratio)
	}

	for _, tc := range []struct {
		name  string
		spoil func(*ExhaustReport)
		want  string
	}{
		{"rss", func(r *ExhaustReport) { r.Memory.PeakRSS = 200 << 20 }, "RSS grew by 160.0 MiB"},
		{"rss unread", func(r *ExhaustReport) { r.Memory.RSSBaseline, r.Memory.RSSSampledPeak, r.Memory.PeakRSS = 0, 0, 0 }, "could not be read"},
		{"still open", func(r *ExhaustReport) {
			r.Connections[0].ClosedInTime, r.Connections[0].OpenAtEnd = 0, 1000
		}, "header-drip: 0 of 1000 closed"},
		{"late", func(r *ExhaustReport) {
			r.Connections[2].ClosedInTime, r.Connections[2].ClosedLate = 99, 1
		}, "fake-body: 99 of 100"},
		{"not set up", func(r *ExhaustReport) { r.Connections[1].SetUp, r.Connections[1].ClosedInTime = 990, 990 }, "10 not set up"},
		{"p99", func(r *ExhaustReport) { r.Loaded = phase(1300, 0) }, "3.2× the unloaded"},
		{"p99 floor", func(r *ExhaustReport) { r.Unloaded, r.Loaded = phase(-50, 0), phase(700, 0) }, "3.5× the unloaded"},
		{"errors", func(r *ExhaustReport) { r.Loaded = phase(500, 3) }, "under attack, hookgate: 3 of 100 failed"},
	} {
		r := good()
		tc.spoil(r)
		r.verdict(&cfg)
		if r.Pass || !strings.Contains(strings.Join(r.Failures, "; "), tc.want) {
			t.Errorf("%s: pass %v, failures %q, want one saying %q", tc.name, r.Pass, r.Failures, tc.want)
		}
	}
}
