package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the result of one Run; it is written as JSON into the
// results folder (DefaultResultsDir unless --out says otherwise).
type Report struct {
	Tool      string         `json:"tool"`
	Command   string         `json:"command,omitempty"` // the command line, filled in by the caller
	Started   time.Time      `json:"started"`
	Finished  time.Time      `json:"finished"`
	Machine   Machine        `json:"machine"`
	Note      string         `json:"note"`
	MockURL   string         `json:"mock_url"`
	Settings  Settings       `json:"settings"`
	Scenarios []ScenarioInfo `json:"scenarios"`
	Phases    []Phase        `json:"phases"`
	// Saturation holds the --saturate phases: each target alone.
	Saturation []Saturation `json:"saturation,omitempty"`
	// HopMultiples are the streamed phases' added times in units of the
	// bare hop's (HopMultiples).
	HopMultiples []HopMultiple `json:"hop_multiples,omitempty"`
}

// Machine describes where the run happened.
type Machine struct {
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	CPUModel   string `json:"cpu_model,omitempty"`
	Go         string `json:"go"`
	// LoadAvgStart and LoadAvgEnd are /proc/loadavg's 1-minute figure when
	// the run started and ended: above the CPU count, other processes were
	// competing for the cores and the tails are theirs as much as ours.
	LoadAvgStart float64 `json:"loadavg_start,omitempty"`
	LoadAvgEnd   float64 `json:"loadavg_end,omitempty"`
}

// Settings echo the run's bounds.
type Settings struct {
	Targets     []string `json:"targets"`
	Loads       []Load   `json:"loads"`
	Requests    int      `json:"max_rounds_per_phase"`
	Duration    string   `json:"max_phase_duration"`
	Warmup      int      `json:"warmup_rounds"`
	Timeout     string   `json:"request_timeout"`
	MaxInFlight int      `json:"max_in_flight"`
	Sessions    int      `json:"sessions,omitempty"`
}

// ScenarioInfo describes a scenario in the report.
type ScenarioInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Streamed    bool   `json:"streamed"`
	Hooks       string `json:"hooks,omitempty"`
}

// Phase is one scenario under one load.
type Phase struct {
	Scenario string  `json:"scenario"`
	Streamed bool    `json:"streamed"`
	Load     Load    `json:"load"`
	Rounds   int     `json:"rounds"`
	Seconds  float64 `json:"seconds"`
	// GeneratorLagP99 is, in open-loop phases, the 99th percentile of how
	// late requests left the generator (µs): large values mean the machine
	// could not keep the schedule.
	GeneratorLagP99 float64        `json:"generator_lag_p99_us,omitempty"`
	Targets         []TargetResult `json:"targets"`
}

// TargetResult is one target in one phase. Added* compare it with the
// baseline (Targets[0]) and are nil for the baseline itself.
type TargetResult struct {
	Name       string  `json:"name"`
	Requests   int     `json:"requests"`
	Errors     int     `json:"errors"`
	ErrorRate  float64 `json:"error_rate"`
	Throughput float64 `json:"throughput_rps"`
	Latency    Dist    `json:"latency"`
	TTFB       Dist    `json:"ttfb"`
	TTFC       Dist    `json:"ttfc,omitzero"`
	TTTool     Dist    `json:"tt_tool_call,omitzero"`
	// TTFinish is the time to the first non-null finish_reason of a
	// stream; held tool calls are released with it.
	TTFinish      Dist           `json:"tt_finish,omitzero"`
	AddedLatency  *Added         `json:"added_latency,omitempty"`
	AddedTTFB     *Added         `json:"added_ttfb,omitempty"`
	AddedTTFC     *Added         `json:"added_ttfc,omitempty"`
	AddedTTTool   *Added         `json:"added_tt_tool_call,omitempty"`
	AddedTTFinish *Added         `json:"added_tt_finish,omitempty"`
	ErrorSamples  map[string]int `json:"error_samples,omitempty"`
}

// SharedCoresNote is printed with every result: the figures come from one
// machine that runs everything at once.
func SharedCoresNote(cpus int) string {
	return fmt.Sprintf("The load generator, the mock upstream and the proxies all run on this machine and share its %d CPU cores: "+
		"absolute times include that contention. Compare targets within one run (requests alternate between targets), not across runs.", cpus)
}

func newReport(cfg Config) *Report {
	r := &Report{
		Tool:    "hgbench",
		Started: time.Now(),
		Machine: Machine{
			GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(),
			GOMAXPROCS: runtime.GOMAXPROCS(0), CPUModel: cpuModel(), Go: runtime.Version(),
			LoadAvgStart: loadAvg(),
		},
		Note: SharedCoresNote(runtime.NumCPU()),
		Settings: Settings{
			Loads: cfg.Loads, Requests: cfg.Requests, Duration: cfg.Duration.String(),
			Warmup: cfg.Warmup, Timeout: cfg.Timeout.String(), MaxInFlight: cfg.MaxInFlight, Sessions: cfg.Sessions,
		},
	}
	for _, t := range cfg.Targets {
		r.Settings.Targets = append(r.Settings.Targets, t.Name)
	}
	return r
}

// loadAvg is the 1-minute load average, or 0 where /proc/loadavg is absent.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _, _ := strings.Cut(string(b), " ")
	v, _ := strconv.ParseFloat(f, 64)
	return v
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// headline is the measure that matters most for the phase: time to first
// byte for a stream, total latency for a plain call.
func (p *Phase) headline(t *TargetResult) (string, *Added) {
	if p.Streamed {
		return "ttfb", t.AddedTTFB
	}
	return "latency", t.AddedLatency
}

func fmtUS(v float64) string {
	switch {
	case math.Abs(v) >= 10000:
		return fmt.Sprintf("%.1fms", v/1000)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0fµs", v)
	default:
		return fmt.Sprintf("%.1fµs", v)
	}
}

func fmtDist(d Dist) string {
	if d.N == 0 {
		return "-\t-\t-"
	}
	return fmtUS(d.P50) + "\t" + fmtUS(d.P90) + "\t" + fmtUS(d.P99)
}

func fmtAdded(a *Added) string {
	if a == nil {
		return "-\t-\t-\t-"
	}
	return fmtUS(a.P50) + "\t" + fmtUS(a.P90) + "\t" + fmtUS(a.P99) + "\t" + fmtUS(a.PairedMedian)
}

// WriteTable writes the report as plain-text tables, one block per phase.
func (r *Report) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s  %s  %s %s/%s, %d CPUs (GOMAXPROCS %d) %s\n", r.Tool, r.Started.Format(time.RFC3339),
		r.Machine.Go, r.Machine.GOOS, r.Machine.GOARCH, r.Machine.CPUs, r.Machine.GOMAXPROCS, r.Machine.CPUModel)
	if r.Command != "" {
		fmt.Fprintf(bw, "command: %s\n", r.Command)
	}
	fmt.Fprintf(bw, "NOTE: %s\n", r.Note)
	if r.Machine.LoadAvgStart > 0 || r.Machine.LoadAvgEnd > 0 {
		fmt.Fprintf(bw, "Load average (1 min) at start %.2f, at end %.2f", r.Machine.LoadAvgStart, r.Machine.LoadAvgEnd)
		if max(r.Machine.LoadAvgStart, r.Machine.LoadAvgEnd) > float64(r.Machine.CPUs) {
			fmt.Fprintf(bw, ": above %d, other processes competed for the cores during this run", r.Machine.CPUs)
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "Baseline: %s. \"added\" = target's percentile minus the baseline's in the same phase: two distributions' percentiles, so a difference can be negative when the baseline's tail is the noisier one; \"paired\" = median of per-round differences (the figure to quote).\n",
		r.Settings.Targets[0])
	desc := map[string]string{}
	for _, s := range r.Scenarios {
		desc[s.Name] = s.Description
	}
	for i := range r.Phases {
		p := &r.Phases[i]
		fmt.Fprintf(bw, "\n== %s · %s · %d rounds in %.2fs", p.Scenario, p.Load, p.Rounds, p.Seconds)
		if p.GeneratorLagP99 > 0 {
			fmt.Fprintf(bw, " · generator lag p99 %s", fmtUS(p.GeneratorLagP99))
		}
		fmt.Fprintf(bw, "\n   %s\n", desc[p.Scenario])
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
		if p.Streamed {
			fmt.Fprintln(tw, "target\treqs\terr%\treq/s\tttfb p50\tp90\tp99\tttfc p50\tp90\tp99\ttotal p50\tp90\tp99\t")
			for _, t := range p.Targets {
				fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.0f\t%s\t%s\t%s\t\n", t.Name, t.Requests, 100*t.ErrorRate, t.Throughput,
					fmtDist(t.TTFB), fmtDist(t.TTFC), fmtDist(t.Latency))
			}
		} else {
			fmt.Fprintln(tw, "target\treqs\terr%\treq/s\tlatency p50\tp90\tp99\tttfb p50\tp90\tp99\t")
			for _, t := range p.Targets {
				fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.0f\t%s\t%s\t\n", t.Name, t.Requests, 100*t.ErrorRate, t.Throughput,
					fmtDist(t.Latency), fmtDist(t.TTFB))
			}
		}
		if len(p.Targets) > 1 {
			fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t\t\t\t\t")
			if p.Streamed {
				fmt.Fprintln(tw, "added\tttfb p50\tp90\tp99\tpaired\tttfc p50\tp90\tp99\tpaired\ttool p50\tp90\tp99\tpaired\tfinish p50\tp90\tp99\tpaired\t")
				for _, t := range p.Targets[1:] {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", t.Name, fmtAdded(t.AddedTTFB), fmtAdded(t.AddedTTFC), fmtAdded(t.AddedTTTool), fmtAdded(t.AddedTTFinish))
				}
			} else {
				fmt.Fprintln(tw, "added\tlatency p50\tp90\tp99\tpaired\tttfb p50\tp90\tp99\tpaired\t")
				for _, t := range p.Targets[1:] {
					fmt.Fprintf(tw, "%s\t%s\t%s\t\n", t.Name, fmtAdded(t.AddedLatency), fmtAdded(t.AddedTTFB))
				}
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, t := range p.Targets {
			for msg, n := range t.ErrorSamples {
				fmt.Fprintf(bw, "   %s error ×%d: %s\n", t.Name, n, msg)
			}
		}
	}
	if err := writeHopMultiples(bw, r.HopMultiples); err != nil {
		return err
	}
	if err := WriteSaturationTable(bw, r.Saturation); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteFiles writes the report as JSON and its chart as SVG into dir, named
// by the start time (e.g. 20260102-150405-hgbench.json), and returns the
// two paths.
func (r *Report) WriteFiles(dir string) (jsonPath, svgPath string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("bench: results: %w", err)
	}
	stem := filepath.Join(dir, r.Started.Format("20060102-150405")+"-"+r.Tool)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", "", fmt.Errorf("bench: results: %w", err)
	}
	jsonPath, svgPath = stem+".json", stem+".svg"
	if err := os.WriteFile(jsonPath, append(b, '\n'), 0o644); err != nil {
		return "", "", fmt.Errorf("bench: results: %w", err)
	}
	f, err := os.Create(svgPath)
	if err != nil {
		return jsonPath, "", fmt.Errorf("bench: chart: %w", err)
	}
	defer f.Close()
	if err := r.WriteSVG(f); err != nil {
		return jsonPath, "", err
	}
	return jsonPath, svgPath, f.Close()
}

// writeHopMultiples writes the added times to first byte and to stream end
// as multiples of the bare hop's, one line per scenario and target.
func writeHopMultiples(w io.Writer, ms []HopMultiple) error {
	if len(ms) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n== added over direct as a multiple of the bare hop's added time (paired medians)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\ttarget\tpairs\tfirst byte\thop\tadded\tstream end\thop\tadded\t")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", m.Scenario, m.Target, m.Pairs,
			fmtMultiple(m.TTFBMultiple), fmtUS(m.HopTTFBUS), fmtUS(m.TTFBUS),
			fmtMultiple(m.EndMultiple), fmtUS(m.HopEndUS), fmtUS(m.EndUS))
	}
	return tw.Flush()
}
