package bench

import (
	"math"
	"slices"
	"time"
)

// Dist summarises one measure of one target: microseconds, nearest-rank
// percentiles over the successful requests that have the measure.
type Dist struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50_us"`
	P90  float64 `json:"p90_us"`
	P99  float64 `json:"p99_us"`
	Max  float64 `json:"max_us"`
	Mean float64 `json:"mean_us"`
}

// Added is a target's measure minus the baseline's in the same phase, in
// microseconds: per percentile, and the median of the differences paired
// by round (each round sends one request to every target back to back).
type Added struct {
	P50          float64 `json:"p50_us"`
	P90          float64 `json:"p90_us"`
	P99          float64 `json:"p99_us"`
	PairedMedian float64 `json:"paired_median_us"`
	Pairs        int     `json:"pairs"`
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// measure picks one duration of a sample; zero means absent.
type measure func(*sample) time.Duration

var (
	mTotal measure = func(s *sample) time.Duration { return s.total }
	mTTFB  measure = func(s *sample) time.Duration { return s.ttfb }
	mTTFC  measure = func(s *sample) time.Duration { return s.ttfc }
	mTool  measure = func(s *sample) time.Duration { return s.ttTool }
	// mFinish is the time to the first non-null finish_reason.
	mFinish measure = func(s *sample) time.Duration { return s.ttFinish }
)

func dist(samples []sample, m measure) Dist {
	var v []float64
	for i := range samples {
		if d := m(&samples[i]); samples[i].ok() && d > 0 {
			v = append(v, us(d))
		}
	}
	if len(v) == 0 {
		return Dist{}
	}
	slices.Sort(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return Dist{
		N:    len(v),
		P50:  percentile(v, 50),
		P90:  percentile(v, 90),
		P99:  percentile(v, 99),
		Max:  v[len(v)-1],
		Mean: sum / float64(len(v)),
	}
}

// added compares a target's samples with the baseline's, round by round
// (index i is round i in both).
func added(target, base []sample, m measure) *Added {
	td, bd := dist(target, m), dist(base, m)
	if td.N == 0 || bd.N == 0 {
		return nil
	}
	var diffs []float64
	for i := range min(len(target), len(base)) {
		t, b := &target[i], &base[i]
		if t.ok() && b.ok() && m(t) > 0 && m(b) > 0 {
			diffs = append(diffs, us(m(t))-us(m(b)))
		}
	}
	slices.Sort(diffs)
	return &Added{
		P50:          td.P50 - bd.P50,
		P90:          td.P90 - bd.P90,
		P99:          td.P99 - bd.P99,
		PairedMedian: percentile(diffs, 50),
		Pairs:        len(diffs),
	}
}
