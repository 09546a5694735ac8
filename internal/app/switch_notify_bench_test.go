package app

import (
	"slices"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/testenv"
)

// BenchmarkSwitchPropagation measures how long the organisation's
// read-only switch, thrown through instance A's admin API, takes to be
// enforced by instance B (its readonly_guard's answer changes), both on
// one PostgreSQL (HOOKGATE_PG_DSN): from the start of A's POST to the
// first of B's lookups, made every 100 µs, that returns the new value.
// Reported as p50-ms, p90-ms and max-ms.
func BenchmarkSwitchPropagation(b *testing.B) {
	dsn, _ := testenv.PostgresSchema(b)
	a, h := startOnPostgres(b, dsn), startOnPostgres(b, dsn)
	for _, inst := range []*App{a, h} {
		for deadline := time.Now().Add(30 * time.Second); !inst.persistence.Store.Live(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatal("an instance never hears notifications")
			}
		}
	}
	want := orgReadOnly(b, h)
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		want = !want
		value := "false"
		if want {
			value = "true"
		}
		start := time.Now()
		throwSwitch(b, a, value)
		for deadline := start.Add(30 * time.Second); orgReadOnly(b, h) != want; time.Sleep(100 * time.Microsecond) {
			if time.Now().After(deadline) {
				b.Fatal("B never saw the switch")
			}
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*9/10]), "p90-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
}
