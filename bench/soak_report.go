package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// WriteSummary writes the soak's figures as text.
func (r *SoakReport) WriteSummary(w io.Writer) error {
	bw := bufio.NewWriter(w)
	m := &r.Machine
	fmt.Fprintf(bw, "%s  %s  %s %s/%s, %d CPUs (GOMAXPROCS %d) %s\n", r.Tool, r.Started.Format(time.RFC3339), m.Go, m.GOOS, m.GOARCH, m.CPUs, m.GOMAXPROCS, m.CPUModel)
	if r.Command != "" {
		fmt.Fprintf(bw, "command: %s\n", r.Command)
	}
	fmt.Fprintf(bw, "NOTE: %s\n", r.Note)
	fmt.Fprintf(bw, "load average (/proc/loadavg) at start: %s; at end: %s\n", r.LoadAvgStart, r.LoadAvgEnd)
	fmt.Fprintf(bw, "scenario: %s\n\n", r.Settings.Scenario)
	fmt.Fprintf(bw, "streams completed   %d in %.1f s (%.0f/s), %d workers\n", r.Streams, r.LoadSeconds, r.Throughput, r.Settings.Streams)
	fmt.Fprintf(bw, "errors              %d (warm-up %d)\n", r.Errors, r.WarmupErrors)
	for _, msg := range slices.Sorted(maps.Keys(r.ErrorSamples)) {
		fmt.Fprintf(bw, "  ×%d %s\n", r.ErrorSamples[msg], msg)
	}
	d := r.StreamDuration
	fmt.Fprintf(bw, "stream duration     p50 %s  p90 %s  p99 %s  max %s\n", fmtUS(d.P50), fmtUS(d.P90), fmtUS(d.P99), fmtUS(d.Max))
	fmt.Fprintf(bw, "in flight (client)  peak %d\n", r.InFlightPeak)
	if r.HeldCallsPeak >= 0 {
		fmt.Fprintf(bw, "hookgate            active streams peak %.0f; held tool calls peak %.0f, mean %.0f; admissions refused %.0f\n",
			r.ActiveStreamsPeak, r.HeldCallsPeak, r.HeldCallsMean, r.AdmissionRefused)
	}
	mem := &r.Memory
	fmt.Fprintf(bw, "peak RSS (VmHWM)    %s (RSS before %s, sampled peak %s, after %s)\n", mib(mem.PeakRSS), mib(mem.RSSBefore), mib(mem.RSSSampledPeak), mib(mem.RSSAfter))
	fmt.Fprintf(bw, "live heap after GC  before %s, after %s, after the mock closed %s (heap objects sampled peak %s)\n",
		mib(mem.HeapBefore), mib(mem.HeapAfter), mib(mem.HeapAfterMockClosed), mib(mem.HeapSampledMax))
	g := &r.Goroutines
	fmt.Fprintf(bw, "goroutines          before %d, peak %d, after %d (all)\n", g.Before.Total, g.Peak, g.After.Total)
	fmt.Fprintf(bw, "  running hookgate  before %d, after %d; script runtimes before %d, after %d (bound %d); idle keep-alive before %d, after %d\n",
		g.Before.Hookgate, g.After.Hookgate, g.Before.Runtimes, g.After.Runtimes, g.RuntimeBound, g.Before.KeepAlive, g.After.KeepAlive)
	if g.SettledSeconds >= 0 {
		fmt.Fprintf(bw, "  back to baseline  %.2f s after the load\n", g.SettledSeconds)
	}
	fmt.Fprintf(bw, "CPU                 %.1f s in %.1f s: %.2f cores\n", r.CPUSeconds, r.LoadSeconds, r.CPUCores)
	writeVerdict(bw, r.Pass, r.Failures)
	return bw.Flush()
}

// WriteFile writes the report as JSON into dir, named by its start time
// (e.g. 20260102-150405-hgsoak.json), and returns the path.
func (r *SoakReport) WriteFile(dir string) (string, error) {
	return writeResultJSON(dir, r.Started, r.Tool, r)
}

// writeVerdict ends a report: PASS, or FAIL and each failure on a line.
func writeVerdict(w io.Writer, pass bool, failures []string) {
	if pass {
		fmt.Fprintln(w, "\nPASS")
		return
	}
	fmt.Fprintln(w, "\nFAIL")
	for _, f := range failures {
		fmt.Fprintf(w, "  %s\n", f)
	}
}

// writeResultJSON writes v as indented JSON into dir, named by the run's
// start time and tool (e.g. 20260102-150405-hgsoak.json), and returns the
// path.
func writeResultJSON(dir string, started time.Time, tool string, v any) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("bench: results: %w", err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", fmt.Errorf("bench: results: %w", err)
	}
	path := filepath.Join(dir, started.Format("20060102-150405")+"-"+tool+".json")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("bench: results: %w", err)
	}
	return path, nil
}
