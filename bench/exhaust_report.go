package bench

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"
)

// ExhaustReport is the result of one exhaustion test, written as JSON to
// <results folder>/<stamp>-hgexhaust.json (see DefaultResultsDir).
type ExhaustReport struct {
	Tool         string    `json:"tool"`
	Command      string    `json:"command,omitempty"`
	Started      time.Time `json:"started"`
	Finished     time.Time `json:"finished"`
	Machine      Machine   `json:"machine"`
	LoadAvgStart string    `json:"loadavg_start_line,omitempty"`
	LoadAvgEnd   string    `json:"loadavg_end_line,omitempty"`
	Note         string    `json:"note"`
	Settings     struct {
		Drippers           int     `json:"header_drip_connections"`
		Idlers             int     `json:"idle_keepalive_connections"`
		Bodies             int     `json:"fake_body_connections"`
		DripInterval       string  `json:"drip_interval"`
		BodyLength         int64   `json:"fake_body_content_length"`
		ClientHeader       string  `json:"client_header"`
		ClientBodyProgress string  `json:"client_body_progress"`
		ClientIdle         string  `json:"client_idle"`
		Slack              string  `json:"close_slack"`
		Bound              string  `json:"bound"`
		Unloaded           string  `json:"unloaded_phase"`
		Concurrency        int     `json:"ordinary_concurrency"`
		RSSGrowthTarget    uint64  `json:"rss_growth_target_bytes"`
		P99Factor          float64 `json:"p99_factor_target"`
		P99Floor           string  `json:"unloaded_added_p99_floor"`
		RSSCeiling         uint64  `json:"rss_ceiling_bytes"`
		FileLimit          uint64  `json:"file_limit,omitempty"`
		HookgateYAML       string  `json:"hookgate_config"`
	} `json:"settings"`

	// Pass is true when every target was met; Failures says which were
	// not.
	Pass     bool     `json:"pass"`
	Failures []string `json:"failures,omitempty"`

	HookgatePID int `json:"hookgate_pid"`
	// OpenSeconds is the time it took to set up every attack connection;
	// AttackSeconds from the first dial to the last close by hookgate, or
	// to the bound.
	OpenSeconds   float64 `json:"open_seconds"`
	AttackSeconds float64 `json:"attack_seconds"`

	Memory struct {
		// RSSBaseline is hookgate's RSS after the unloaded phase, just
		// before the attack; RSSSampledPeak the highest of the samples
		// taken every 100 ms during it; PeakRSS its VmHWM at the end of
		// the attack. Growth is the larger peak minus the baseline.
		RSSBaseline    uint64 `json:"rss_baseline_bytes"`
		RSSSampledPeak uint64 `json:"rss_sampled_peak_bytes"`
		PeakRSS        uint64 `json:"peak_rss_bytes"`
		Growth         uint64 `json:"rss_growth_bytes"`
	} `json:"memory"`
	// Files are hookgate's open descriptors before the attack and their
	// sampled peak.
	Files struct {
		Before int `json:"before"`
		Peak   int `json:"peak"`
	} `json:"open_files"`

	// Connections has one entry per kind of attack connection.
	Connections []ExhaustConns `json:"connections"`

	// Unloaded and Loaded are the ordinary requests' phases, direct to
	// the mock and through hookgate, before and during the attack.
	Unloaded Phase `json:"unloaded"`
	Loaded   Phase `json:"loaded"`
	// AddedP99Unloaded and AddedP99Loaded are hookgate's p99 minus
	// direct's in each (µs); P99Ratio is loaded over unloaded, the latter
	// at least the floor.
	AddedP99Unloaded float64 `json:"added_p99_unloaded_us"`
	AddedP99Loaded   float64 `json:"added_p99_loaded_us"`
	P99Ratio         float64 `json:"added_p99_ratio"`

	Samples []ExhaustSample `json:"samples,omitempty"`
}

// ExhaustConns is what became of one kind of attack connection.
type ExhaustConns struct {
	Kind string `json:"kind"`
	// Timeout names the setting that must close it, and its value.
	Timeout      string `json:"timeout"`
	TimeoutValue string `json:"timeout_value"`
	Wanted       int    `json:"wanted"`
	// SetUp is how many were opened and started their attack; the others
	// failed (SetupErrors, by kind) or were not sent (NotSent: the RSS
	// ceiling was reached).
	SetUp int `json:"set_up"`
	// SetUpSeconds is how long setting them all up took from the
	// attack's start (hookgate accepting them, and for idle connections
	// answering their request).
	SetUpSeconds float64        `json:"set_up_seconds"`
	SetupErrors  map[string]int `json:"setup_errors,omitempty"`
	NotSent      int            `json:"not_sent,omitempty"`
	// ClosedInTime were closed by hookgate within the timeout and the
	// slack, ClosedLate after it; OpenAtEnd were still open at the bound.
	ClosedInTime int `json:"closed_in_time"`
	ClosedLate   int `json:"closed_late"`
	OpenAtEnd    int `json:"open_at_end"`
	// CloseAfter is the time from the timeout's start to hookgate's
	// close, over the connections it closed (µs).
	CloseAfter Dist `json:"close_after"`
	// Answers counts the first line hookgate wrote before closing
	// ("" when it wrote nothing).
	Answers map[string]int `json:"answers,omitempty"`
	// CloseMS is, for every connection set up, the milliseconds from its
	// timeout's start to hookgate's close; -1 when it was still open at
	// the bound.
	CloseMS []int64 `json:"close_ms"`
}

// ExhaustSample is one reading during the attack: seconds since it
// started, hookgate's RSS in MiB and its open descriptors.
type ExhaustSample struct {
	T      float64 `json:"t"`
	RSSMiB float64 `json:"rss_mib"`
	Files  int     `json:"files"`
}

func newExhaustReport(c *ExhaustConfig) *ExhaustReport {
	r := &ExhaustReport{Tool: "hgexhaust", Started: time.Now(), Machine: machineNow(), Note: exhaustNote(machineNow().CPUs)}
	s := &r.Settings
	s.Drippers, s.Idlers, s.Bodies = c.Drippers, c.Idlers, c.Bodies
	s.DripInterval, s.BodyLength = c.DripInterval.String(), c.BodyLength
	s.ClientHeader, s.ClientBodyProgress, s.ClientIdle = c.ClientHeader.String(), c.ClientBodyProgress.String(), c.ClientIdle.String()
	s.Slack, s.Bound, s.Unloaded, s.Concurrency = c.Slack.String(), c.Bound.String(), c.Unloaded.String(), c.Concurrency
	s.RSSGrowthTarget, s.P99Factor, s.P99Floor, s.RSSCeiling = c.RSSGrowthTarget, c.P99Factor, c.P99Floor.String(), c.RSSCeiling
	s.HookgateYAML = string(c.baseYAML())
	return r
}

// sample reads hookgate's RSS and descriptors every exhaustSampleEvery
// until stop is closed, keeping the peaks, and prints progress every 2 s.
func (r *ExhaustReport) sample(p childProc, start time.Time, stop <-chan struct{}, progress io.Writer) {
	tick := time.NewTicker(exhaustSampleEvery)
	defer tick.Stop()
	lastPrint := time.Now()
	for {
		rss, files := p.rss(), p.openFiles()
		r.Memory.RSSSampledPeak = max(r.Memory.RSSSampledPeak, rss)
		r.Files.Peak = max(r.Files.Peak, files)
		r.Samples = append(r.Samples, ExhaustSample{T: round1(time.Since(start).Seconds()), RSSMiB: round1(float64(rss) / (1 << 20)), Files: files})
		if time.Since(lastPrint) >= 2*time.Second {
			lastPrint = time.Now()
			fmt.Fprintf(progress, "  %5.1fs  hookgate rss %s  files %d\n", time.Since(start).Seconds(), mib(rss), files)
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// connections sums up the attack connections per kind.
func (r *ExhaustReport) connections(c *ExhaustConfig, at *attack) {
	for _, k := range []struct {
		kind   string
		wanted int
	}{{KindHeaderDrip, c.Drippers}, {KindIdle, c.Idlers}, {KindFakeBody, c.Bodies}} {
		timeout, name := c.timeoutOf(k.kind)
		ec := ExhaustConns{Kind: k.kind, Timeout: name, TimeoutValue: timeout.String(), Wanted: k.wanted, CloseMS: []int64{},
			SetUpSeconds: round1(at.setUpIn[k.kind].Seconds())}
		if k.kind == KindFakeBody {
			ec.NotSent = int(at.skipped.Load())
		}
		var closed []sample
		for _, a := range at.conns {
			if a.kind != k.kind {
				continue
			}
			if a.setupErr != "" {
				if ec.SetupErrors == nil {
					ec.SetupErrors = map[string]int{}
				}
				if _, seen := ec.SetupErrors[a.setupErr]; seen || len(ec.SetupErrors) < 5 {
					ec.SetupErrors[a.setupErr]++
				}
				continue
			}
			ec.SetUp++
			d := a.closeAfter()
			if d < 0 {
				ec.OpenAtEnd++
				ec.CloseMS = append(ec.CloseMS, -1)
				continue
			}
			ec.CloseMS = append(ec.CloseMS, d.Milliseconds())
			if d <= timeout+c.Slack {
				ec.ClosedInTime++
			} else {
				ec.ClosedLate++
			}
			closed = append(closed, sample{done: true, total: max(d, 1)})
			if ec.Answers == nil {
				ec.Answers = map[string]int{}
			}
			ec.Answers[a.status]++
		}
		ec.CloseAfter = dist(closed, mTotal)
		r.Connections = append(r.Connections, ec)
	}
}

// verdict checks the three targets and the ordinary requests' health.
func (r *ExhaustReport) verdict(c *ExhaustConfig) {
	var f []string
	m := &r.Memory
	if peak := max(m.RSSSampledPeak, m.PeakRSS); peak > m.RSSBaseline {
		m.Growth = peak - m.RSSBaseline
	}
	if m.RSSBaseline == 0 {
		f = append(f, "hookgate's RSS could not be read (no /proc?)")
	} else if m.Growth > c.RSSGrowthTarget {
		f = append(f, fmt.Sprintf("hookgate's RSS grew by %s over its baseline %s, target under %s", mib(m.Growth), mib(m.RSSBaseline), mib(c.RSSGrowthTarget)))
	}
	for _, ec := range r.Connections {
		if ec.ClosedInTime < ec.Wanted {
			f = append(f, fmt.Sprintf("%s: %d of %d closed within %s %s + %s slack (%d closed late, %d still open after %s, %d not set up)",
				ec.Kind, ec.ClosedInTime, ec.Wanted, ec.Timeout, ec.TimeoutValue, c.Slack, ec.ClosedLate, ec.OpenAtEnd, c.Bound, ec.Wanted-ec.SetUp))
		}
	}
	r.AddedP99Unloaded, r.AddedP99Loaded = addedP99(&r.Unloaded), addedP99(&r.Loaded)
	floor := us(c.P99Floor)
	r.P99Ratio = r.AddedP99Loaded / max(r.AddedP99Unloaded, floor)
	if r.P99Ratio > c.P99Factor {
		f = append(f, fmt.Sprintf("added p99 under attack %s is %.1f× the unloaded run's %s (counted as at least %s), target within %g×",
			fmtUS(r.AddedP99Loaded), r.P99Ratio, fmtUS(r.AddedP99Unloaded), fmtUS(floor), c.P99Factor))
	}
	for _, ph := range []struct {
		name string
		p    *Phase
	}{{"unloaded", &r.Unloaded}, {"under attack", &r.Loaded}} {
		for _, t := range ph.p.Targets {
			if t.Requests == 0 || t.Errors > 0 {
				f = append(f, fmt.Sprintf("ordinary requests %s, %s: %d of %d failed %v", ph.name, t.Name, t.Errors, t.Requests, t.ErrorSamples))
			}
		}
	}
	r.Failures, r.Pass = f, len(f) == 0
}

// WriteSummary writes the report as text.
func (r *ExhaustReport) WriteSummary(w io.Writer) error {
	bw := bufio.NewWriter(w)
	m := &r.Machine
	fmt.Fprintf(bw, "%s  %s  %s %s/%s, %d CPUs (GOMAXPROCS %d) %s\n", r.Tool, r.Started.Format(time.RFC3339), m.Go, m.GOOS, m.GOARCH, m.CPUs, m.GOMAXPROCS, m.CPUModel)
	if r.Command != "" {
		fmt.Fprintf(bw, "command: %s\n", r.Command)
	}
	fmt.Fprintf(bw, "NOTE: %s\n", r.Note)
	fmt.Fprintf(bw, "load average (/proc/loadavg) at start: %s; at end: %s\n", r.LoadAvgStart, r.LoadAvgEnd)
	s := &r.Settings
	fmt.Fprintf(bw, "hookgate (pid %d): client_header %s, client_body_progress %s, client_idle %s; close slack %s, bound %s\n\n",
		r.HookgatePID, s.ClientHeader, s.ClientBodyProgress, s.ClientIdle, s.Slack, s.Bound)
	fmt.Fprintf(bw, "attack: set up in %.1f s, over after %.1f s\n", r.OpenSeconds, r.AttackSeconds)
	for _, ec := range r.Connections {
		fmt.Fprintf(bw, "  %-15s %4d wanted, %4d set up in %4.1f s: %4d closed in time, %4d late, %4d still open at the bound",
			ec.Kind, ec.Wanted, ec.SetUp, ec.SetUpSeconds, ec.ClosedInTime, ec.ClosedLate, ec.OpenAtEnd)
		if ec.CloseAfter.N > 0 {
			fmt.Fprintf(bw, "; closed after p50 %s max %s", fmtUS(ec.CloseAfter.P50), fmtUS(ec.CloseAfter.Max))
		}
		fmt.Fprintln(bw)
		for _, msg := range slices.Sorted(maps.Keys(ec.SetupErrors)) {
			fmt.Fprintf(bw, "      not set up ×%d: %s\n", ec.SetupErrors[msg], msg)
		}
		if ec.NotSent > 0 {
			fmt.Fprintf(bw, "      not sent: %d (hookgate's RSS had grown past the safety ceiling of %s)\n", ec.NotSent, mib(s.RSSCeiling))
		}
		for _, a := range slices.Sorted(maps.Keys(ec.Answers)) {
			if a == "" {
				fmt.Fprintf(bw, "      closed without an answer ×%d\n", ec.Answers[a])
			} else {
				fmt.Fprintf(bw, "      answered %q ×%d\n", a, ec.Answers[a])
			}
		}
	}
	mem := &r.Memory
	fmt.Fprintf(bw, "hookgate RSS        baseline %s, sampled peak %s, VmHWM %s: growth %s (target under %s)\n",
		mib(mem.RSSBaseline), mib(mem.RSSSampledPeak), mib(mem.PeakRSS), mib(mem.Growth), mib(s.RSSGrowthTarget))
	fmt.Fprintf(bw, "hookgate open files before %d, peak %d\n", r.Files.Before, r.Files.Peak)
	for _, ph := range []struct {
		name string
		p    *Phase
	}{{"unloaded", &r.Unloaded}, {"under attack", &r.Loaded}} {
		fmt.Fprintf(bw, "ordinary, %-12s %6d rounds in %5.1f s", ph.name, ph.p.Rounds, ph.p.Seconds)
		for _, t := range ph.p.Targets {
			fmt.Fprintf(bw, "  %s p50 %s p99 %s (%d errors)", t.Name, fmtUS(t.Latency.P50), fmtUS(t.Latency.P99), t.Errors)
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "added p99           unloaded %s, under attack %s: %.1f× (target within %g×, unloaded counted as at least %s)\n",
		fmtUS(r.AddedP99Unloaded), fmtUS(r.AddedP99Loaded), r.P99Ratio, s.P99Factor, s.P99Floor)
	writeVerdict(bw, r.Pass, r.Failures)
	return bw.Flush()
}

// WriteFile writes the report as JSON into dir, named by its start time
// (e.g. 20260102-150405-hgexhaust.json), and returns the path.
func (r *ExhaustReport) WriteFile(dir string) (string, error) {
	return writeResultJSON(dir, r.Started, r.Tool, r)
}
