package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// SoakTarget is a running hookgate under soak.
type SoakTarget struct {
	// URL is its base URL (scheme and host).
	URL string
	// Metrics reads its metrics: every gauge and counter by name, summed
	// over labels. Nil means they cannot be reached; held calls and active
	// streams are then not reported, nor checked after the load.
	Metrics func() map[string]float64
	// Decisions reads its hook decisions: hook id to decision to count.
	// Nil means they are not reported.
	Decisions func() map[string]map[string]float64
	// Stop stops it.
	Stop func()
}

// SoakStarter starts hookgate in front of the mock upstream at
// upstreamURL with sc's hooks.
type SoakStarter func(upstreamURL string, sc *Scenario) (SoakTarget, error)

// SoakConfig is one soak at full size. Every field says what
// its zero value means.
type SoakConfig struct {
	// Streams is the number of closed-loop workers, each with one stream
	// open at a time. 0 means 1000.
	Streams int
	// Duration is how long workers start new streams; the streams open
	// then finish and count. 0 means 60 s.
	Duration time.Duration
	// ChunkInterval is the mock's wait between two events of an answer.
	// 0 means events written back to back (one per write still).
	ChunkInterval time.Duration
	// Hooks is SoakHooksScript or SoakHooksNone. Empty means script.
	Hooks string
	// Timeout bounds one stream, its whole body included. 0 means 60 s.
	Timeout time.Duration
	// Sessions spreads the streams over that many agent sessions
	// (X-Session-Id hgbench-0 ... round robin), as many agents would. 0
	// means one per stream (Streams); negative means no session header
	// (every stream then belongs to one session).
	Sessions int
	// Settle is how long hookgate's goroutines, held calls and streams
	// may take to return to the baseline once the load stops. 0 means
	// 10 s.
	Settle time.Duration
	// HeapProfile, when set, is a file the heap profile is written to once
	// the load is over and the mock closed (what hookgate keeps).
	HeapProfile string
	// Start starts hookgate. Required.
	Start SoakStarter
	// Progress receives a line every few seconds; nil means silence.
	Progress io.Writer
}

func (c *SoakConfig) defaults() {
	if c.Streams <= 0 {
		c.Streams = 1000
	}
	if c.Duration <= 0 {
		c.Duration = 60 * time.Second
	}
	if c.Hooks == "" {
		c.Hooks = SoakHooksScript
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
	if c.Sessions == 0 {
		c.Sessions = c.Streams
	}
	if c.Settle <= 0 {
		c.Settle = 10 * time.Second
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
}

// soakWarmup is how many streams go through hookgate, 20 at a time,
// before the baseline is taken: pools (script runtimes, connections,
// buffers) fill first.
const soakWarmup = 60

// soakSampleEvery is how often the sampler reads the process and
// hookgate's metrics during the load.
const soakSampleEvery = 250 * time.Millisecond

// SoakReport is the result of one soak, written as JSON to
// <results folder>/<stamp>-hgsoak.json (see DefaultResultsDir).
type SoakReport struct {
	Tool     string    `json:"tool"`
	Command  string    `json:"command,omitempty"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Machine  Machine   `json:"machine"`
	// LoadAvgStart and LoadAvgEnd are /proc/loadavg as it reads at the
	// start and at the end of the load.
	LoadAvgStart string `json:"loadavg_start_line,omitempty"`
	LoadAvgEnd   string `json:"loadavg_end_line,omitempty"`
	Note         string `json:"note"`
	Settings     struct {
		Streams         int    `json:"streams"`
		Duration        string `json:"duration"`
		ChunkInterval   string `json:"chunk_interval"`
		Hooks           string `json:"hooks"`
		Timeout         string `json:"stream_timeout"`
		Settle          string `json:"settle"`
		Sessions        int    `json:"sessions"`
		Scenario        string `json:"scenario"`
		HooksYAML       string `json:"hooks_yaml,omitempty"`
		FileLimit       uint64 `json:"file_limit,omitempty"`
		WarmupStreams   int    `json:"warmup_streams"`
		EventsPerAnswer int    `json:"events_per_answer"`
	} `json:"settings"`

	// Pass is true when no stream failed, goroutines came back to the
	// baseline and nothing was left held; Failures says what did not.
	Pass     bool     `json:"pass"`
	Failures []string `json:"failures,omitempty"`

	// Streams completed during the load (each checked), Errors among them
	// (a mismatch, a status other than 200, a transport error),
	// ErrorSamples the first kinds of error with their counts.
	Streams      int            `json:"streams_completed"`
	Errors       int            `json:"errors"`
	ErrorSamples map[string]int `json:"error_samples,omitempty"`
	WarmupErrors int            `json:"warmup_errors"`
	// LoadSeconds is from the first worker's start to the last stream's
	// end; Throughput is Streams over it.
	LoadSeconds float64 `json:"load_seconds"`
	Throughput  float64 `json:"streams_per_second"`
	// StreamDuration is the time of one stream, request to last byte.
	StreamDuration Dist `json:"stream_duration"`

	// Peaks sampled every 250 ms during the load: streams the client had
	// open, hookgate's hookgate_active_streams and
	// hookgate_held_tool_calls (-1 when its metrics cannot be reached).
	InFlightPeak      int     `json:"client_in_flight_peak"`
	ActiveStreamsPeak float64 `json:"hookgate_active_streams_peak"`
	HeldCallsPeak     float64 `json:"hookgate_held_tool_calls_peak"`
	// HeldCallsMean is the mean of the held-call samples taken while
	// the load ran.
	HeldCallsMean float64 `json:"hookgate_held_tool_calls_mean"`
	// AdmissionRefused is hookgate_admission_refused_total after the load.
	AdmissionRefused float64 `json:"hookgate_admission_refused"`
	// Decisions are the hook decisions counted (warm-up included);
	// DecisionsWarmup those counted when the warm-up ended.
	Decisions       map[string]map[string]float64 `json:"hook_decisions,omitempty"`
	DecisionsWarmup map[string]map[string]float64 `json:"hook_decisions_warmup,omitempty"`

	Memory struct {
		// PeakRSS is VmHWM at the end of the run: the process's peak
		// resident set, which holds hookgate, the mock upstream and the
		// client alike.
		PeakRSS uint64 `json:"peak_rss_bytes"`
		// RSS before the load, its sampled peak and after the load.
		RSSBefore      uint64 `json:"rss_before_bytes"`
		RSSSampledPeak uint64 `json:"rss_sampled_peak_bytes"`
		RSSAfter       uint64 `json:"rss_after_bytes"`
		// Live heap after a collection, before and after the load (with
		// the connections pooled), and the sampled peak of heap objects
		// (live and not yet swept).
		HeapBefore uint64 `json:"live_heap_before_bytes"`
		HeapAfter  uint64 `json:"live_heap_after_bytes"`
		// HeapAfterMockClosed is the live heap once the mock upstream is
		// closed, which frees its side of hookgate's pooled upstream
		// connections (HeapAfter still holds their buffers).
		HeapAfterMockClosed uint64 `json:"live_heap_after_mock_closed_bytes"`
		HeapSampledMax      uint64 `json:"heap_objects_sampled_peak_bytes"`
	} `json:"memory"`

	Goroutines struct {
		Before Goroutines `json:"before"`
		// Peak is the sampled peak of all goroutines during the load.
		Peak  int        `json:"peak_total"`
		After Goroutines `json:"after"`
		// RuntimeBound is how many script runtimes the pools may keep
		// (max(8, 4 x GOMAXPROCS) per script hook).
		RuntimeBound int `json:"script_runtime_bound"`
		// SettledSeconds is how long after the load hookgate's
		// goroutines took to come back (-1: they did not within Settle).
		SettledSeconds float64 `json:"settled_seconds"`
	} `json:"goroutines"`
	// LeftAfter is held calls plus active streams after the settle.
	LeftAfter float64 `json:"held_or_active_left_after"`

	// Samples are the sampler's readings, every 250 ms of the load.
	Samples []SoakSample `json:"samples,omitempty"`

	// CPUSeconds is the process's CPU time (user and system) during the
	// load; CPUCores is that over LoadSeconds (2 means both cores of a
	// 2-core machine all the time).
	CPUSeconds float64 `json:"cpu_seconds"`
	CPUCores   float64 `json:"cpu_cores_used"`
}

// SoakSample is one reading of the sampler during the load: seconds since
// it started, streams the client has open (reading or checking an
// answer), completed so far, hookgate's active streams and held calls (-1:
// not reachable), all goroutines, RSS and heap objects in MiB.
type SoakSample struct {
	T         float64 `json:"t"`
	InFlight  int64   `json:"in_flight"`
	Completed int64   `json:"completed"`
	Active    float64 `json:"active"`
	Held      float64 `json:"held"`
	Goroutine uint64  `json:"goroutines"`
	RSSMiB    float64 `json:"rss_mib"`
	HeapMiB   float64 `json:"heap_mib"`
}

// ErrSoakFailed is returned (wrapped) by RunSoak when the soak ran but did
// not pass: errors, goroutines not back to the baseline, calls left held.
var ErrSoakFailed = errors.New("soak failed")

// RunSoak starts the mock upstream and hookgate and runs cfg.Streams
// closed-loop workers for cfg.Duration, each streaming the soak scenario's
// answer again and again and checking every answer. It measures memory,
// goroutines and hookgate's held calls before, during and after, and
// returns the report; the error wraps ErrSoakFailed when the soak did not
// pass (the report says why), or is another error when it could not run.
func RunSoak(ctx context.Context, cfg SoakConfig) (*SoakReport, error) {
	cfg.defaults()
	if cfg.Start == nil {
		return nil, errors.New("bench: soak: no starter")
	}
	sc, err := SoakScenario(cfg.Hooks, cfg.ChunkInterval)
	if err != nil {
		return nil, err
	}
	rep := &SoakReport{Tool: "hgsoak", Started: time.Now(), Note: soakNote(runtime.NumCPU())}
	rep.Machine = Machine{
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), CPUModel: cpuModel(), Go: runtime.Version(),
	}
	s := &rep.Settings
	s.Streams, s.Duration, s.ChunkInterval, s.Hooks = cfg.Streams, cfg.Duration.String(), cfg.ChunkInterval.String(), cfg.Hooks
	s.Timeout, s.Settle, s.Scenario, s.HooksYAML = cfg.Timeout.String(), cfg.Settle.String(), sc.Description, sc.Hooks
	s.WarmupStreams, s.Sessions = soakWarmup, max(cfg.Sessions, 0)
	s.EventsPerAnswer = len(mockupstream.Chunks(sc.Response.Body, mockupstream.Chunking{Mode: mockupstream.PerEvent}))

	// Each stream holds four descriptors in this process: both ends of
	// the client's connection and of hookgate's upstream connection.
	if s.FileLimit, err = raiseFileLimit(); err != nil {
		return nil, fmt.Errorf("bench: soak: file limit: %w", err)
	}
	if need := uint64(4*cfg.Streams + 512); s.FileLimit > 0 && s.FileLimit < need {
		return nil, fmt.Errorf("bench: soak: %d streams need about %d open files; the limit is %d (raise the hard limit: ulimit -Hn)", cfg.Streams, need, s.FileLimit)
	}

	mock, err := mockupstream.New(mockupstream.Options{NoRecord: true})
	if err != nil {
		return nil, err
	}
	defer mock.Close()
	mock.Handle(soakMock(cfg.ChunkInterval))
	tg, err := cfg.Start(mock.URL(), &sc)
	if err != nil {
		return nil, err
	}
	defer tg.Stop()
	cl, err := newClient(tg.URL, &Target{Name: "hookgate"}, &sc, cfg.Timeout)
	if err != nil {
		return nil, err
	}
	defer cl.close()
	cl.sessions = max(cfg.Sessions, 0)

	// Warm-up, then the baseline with the client's connections closed. One
	// stream goes alone first (the script compiles, the first runtime is
	// made), then the rest 20 at a time. What fails here is reported but
	// does not fail the soak: the warm-up fills pools on a machine that may
	// be busy with other work; the load after it is what is judged.
	warm := append(closedLoopOne(ctx, cl, 1, 1, time.Time{}, &soakCounters{}),
		closedLoopOne(ctx, cl, min(20, cfg.Streams), soakWarmup-1, time.Time{}, &soakCounters{})...)
	for _, smp := range warm {
		if smp.err != "" {
			rep.WarmupErrors++
			rep.addError("warm-up (not judged): " + smp.err)
		}
	}
	if tg.Decisions != nil {
		rep.DecisionsWarmup = tg.Decisions()
	}
	cl.close()
	time.Sleep(300 * time.Millisecond)
	rep.Goroutines.Before = CountGoroutines()
	rep.Memory.HeapBefore = liveHeap()
	rep.Memory.RSSBefore = rss()
	if cfg.Hooks == SoakHooksScript {
		rep.Goroutines.RuntimeBound = max(8, 4*runtime.GOMAXPROCS(0))
	}

	// The load, sampled.
	rep.LoadAvgStart = loadAvgLine()
	rep.Machine.LoadAvgStart = loadAvg()
	fmt.Fprintf(cfg.Progress, "hgsoak: %d streams for %s (%s), load %s\n", cfg.Streams, cfg.Duration, sc.Description, rep.LoadAvgStart)
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	var ctr soakCounters
	go func() {
		defer close(sampled)
		rep.sample(tg, &ctr, stopSampling, cfg.Progress)
	}()
	cpu0, start := cpuTime(), time.Now()
	samples := closedLoopOne(ctx, cl, cfg.Streams, 0, start.Add(cfg.Duration), &ctr)
	rep.LoadSeconds = time.Since(start).Seconds()
	rep.CPUSeconds = (cpuTime() - cpu0).Seconds()
	close(stopSampling)
	<-sampled
	rep.LoadAvgEnd = loadAvgLine()
	rep.Machine.LoadAvgEnd = loadAvg()

	rep.Streams = len(samples)
	for i := range samples {
		if samples[i].err != "" {
			rep.Errors++
			rep.addError(samples[i].err)
		}
	}
	rep.StreamDuration = dist(samples, mTotal)
	if rep.LoadSeconds > 0 {
		rep.Throughput = float64(rep.Streams) / rep.LoadSeconds
		rep.CPUCores = rep.CPUSeconds / rep.LoadSeconds
	}

	// After: hookgate's goroutines back, nothing held.
	cl.close()
	rep.settle(tg, cfg.Settle)
	rep.Memory.HeapAfter = liveHeap()
	rep.Memory.RSSAfter = rss()
	// hookgate keeps its upstream connections pooled (90 s); the mock's
	// side of them holds buffers in this process too. Closing the mock
	// cuts them: what is left is hookgate's own.
	mock.Close()
	time.Sleep(500 * time.Millisecond)
	rep.Memory.HeapAfterMockClosed = liveHeap()
	if cfg.HeapProfile != "" {
		if err := writeHeapProfile(cfg.HeapProfile); err != nil {
			fmt.Fprintf(cfg.Progress, "hgsoak: heap profile: %v\n", err)
		}
	}
	rep.Memory.PeakRSS = procStatus("VmHWM")["VmHWM"]
	if tg.Decisions != nil {
		rep.Decisions = tg.Decisions()
	}
	if tg.Metrics != nil {
		rep.AdmissionRefused = tg.Metrics()["hookgate_admission_refused_total"]
	}
	rep.verdict(cfg)
	rep.Finished = time.Now()
	if !rep.Pass {
		return rep, fmt.Errorf("%w: %s", ErrSoakFailed, strings.Join(rep.Failures, "; "))
	}
	return rep, ctx.Err()
}

// soakCounters follow a closed loop as it runs.
type soakCounters struct {
	inFlight, completed, failed atomic.Int64
}

// closedLoopOne runs conc workers on one client, each sending one request
// at a time, until n requests have been sent (n > 0) or the deadline
// (when not zero), whichever comes first, or ctx ends. Without n the
// workers start spread over a second, so that the first streams do not
// all open in one burst. It returns every sample.
func closedLoopOne(ctx context.Context, c *client, conc, n int, deadline time.Time, ctr *soakCounters) []sample {
	var sent atomic.Int64
	per := make([][]sample, conc)
	ramp := time.Second / time.Duration(max(conc, 1))
	var wg sync.WaitGroup
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if n <= 0 {
				time.Sleep(time.Duration(w) * ramp)
			}
			for ctx.Err() == nil && (deadline.IsZero() || time.Now().Before(deadline)) {
				if n > 0 && sent.Add(1) > int64(n) {
					return
				}
				ctr.inFlight.Add(1)
				s := c.do()
				ctr.inFlight.Add(-1)
				ctr.completed.Add(1)
				if s.err != "" {
					ctr.failed.Add(1)
				}
				per[w] = append(per[w], s)
			}
		}()
	}
	wg.Wait()
	return slices.Concat(per...)
}

// addError counts one error, keeping up to 8 kinds (their text cut at 300
// bytes).
func (r *SoakReport) addError(msg string) {
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	if r.ErrorSamples == nil {
		r.ErrorSamples = map[string]int{}
	}
	if _, seen := r.ErrorSamples[msg]; seen || len(r.ErrorSamples) < 8 {
		r.ErrorSamples[msg]++
	}
}

// sample reads the process and hookgate's metrics every soakSampleEvery
// until stop is closed, keeping the peaks, and prints progress every 5 s.
func (r *SoakReport) sample(tg SoakTarget, ctr *soakCounters, stop <-chan struct{}, progress io.Writer) {
	rs := newRuntimeSample()
	tick := time.NewTicker(soakSampleEvery)
	defer tick.Stop()
	start, lastPrint := time.Now(), time.Now()
	r.HeldCallsPeak = -1
	r.ActiveStreamsPeak = -1
	var heldSum float64
	var heldN int
	for {
		select {
		case <-stop:
			if heldN > 0 {
				r.HeldCallsMean = heldSum / float64(heldN)
			}
			return
		case <-tick.C:
		}
		g, heap := rs.read()
		r.Goroutines.Peak = max(r.Goroutines.Peak, int(g))
		r.Memory.HeapSampledMax = max(r.Memory.HeapSampledMax, heap)
		cur := rss()
		r.Memory.RSSSampledPeak = max(r.Memory.RSSSampledPeak, cur)
		r.InFlightPeak = max(r.InFlightPeak, int(ctr.inFlight.Load()))
		held, active := -1.0, -1.0
		if tg.Metrics != nil {
			m := tg.Metrics()
			held, active = m["hookgate_held_tool_calls"], m["hookgate_active_streams"]
			r.HeldCallsPeak = max(r.HeldCallsPeak, held)
			r.ActiveStreamsPeak = max(r.ActiveStreamsPeak, active)
			heldSum += held
			heldN++
		}
		r.Samples = append(r.Samples, SoakSample{
			T: round1(time.Since(start).Seconds()), InFlight: ctr.inFlight.Load(), Completed: ctr.completed.Load(),
			Active: active, Held: held, Goroutine: g, RSSMiB: round1(float64(cur) / (1 << 20)), HeapMiB: round1(float64(heap) / (1 << 20)),
		})
		if time.Since(lastPrint) >= 5*time.Second {
			lastPrint = time.Now()
			fmt.Fprintf(progress, "  %5.1fs  streams %7d  errors %d  in flight %4d  active %4.0f  held %4.0f  goroutines %5d  rss %s  heap %s\n",
				time.Since(start).Seconds(), ctr.completed.Load(), ctr.failed.Load(), ctr.inFlight.Load(), active, held, g, mib(cur), mib(heap))
		}
	}
}

// settle waits up to d for hookgate's goroutines to come back to the
// baseline (script runtimes within the pools' bound) and for no call to
// be held and no stream active, then records the goroutines after.
func (r *SoakReport) settle(tg SoakTarget, d time.Duration) {
	start := time.Now()
	r.Goroutines.SettledSeconds = -1
	for {
		g := CountGoroutines()
		left := 0.0
		if tg.Metrics != nil {
			m := tg.Metrics()
			left = m["hookgate_held_tool_calls"] + m["hookgate_active_streams"]
		}
		r.Goroutines.After, r.LeftAfter = g, left
		if g.Hookgate <= r.Goroutines.Before.Hookgate && g.Runtimes <= max(r.Goroutines.RuntimeBound, r.Goroutines.Before.Runtimes) && left == 0 {
			r.Goroutines.SettledSeconds = time.Since(start).Seconds()
			return
		}
		if time.Since(start) > d {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// verdict decides Pass and lists the failures.
func (r *SoakReport) verdict(cfg SoakConfig) {
	var f []string
	if r.Errors > 0 {
		f = append(f, fmt.Sprintf("%d of %d streams failed (%d more in the warm-up, not judged)", r.Errors, r.Streams, r.WarmupErrors))
	}
	if r.Streams == 0 {
		f = append(f, "no stream completed")
	}
	if r.Goroutines.SettledSeconds < 0 {
		b, a := r.Goroutines.Before, r.Goroutines.After
		f = append(f, fmt.Sprintf("goroutines running hookgate code: %d before the load, still %d %s after it (script runtimes %d, bound %d); held calls and active streams left: %v",
			b.Hookgate, a.Hookgate, cfg.Settle, a.Runtimes, r.Goroutines.RuntimeBound, r.LeftAfter))
	}
	if r.AdmissionRefused > 0 {
		f = append(f, fmt.Sprintf("hookgate refused %v admissions", r.AdmissionRefused))
	}
	if d, w := r.Decisions[soakHookID], r.DecisionsWarmup[soakHookID]; cfg.Hooks == SoakHooksScript && r.Errors == 0 {
		// Every answer of the load carries one call to allow and one to
		// block.
		want := float64(r.Streams)
		if allow, block := d["allow"]-w["allow"], d["block"]-w["block"]; allow != want || block != want {
			f = append(f, fmt.Sprintf("hook %s decided allow×%v block×%v during the load, want %v of each (one per stream)", soakHookID, allow, block, want))
		}
	}
	r.Failures, r.Pass = f, len(f) == 0
}

// soakNote says what the figures include.
func soakNote(cpus int) string {
	return fmt.Sprintf("One process holds the load generator, the mock upstream and hookgate, on %d shared CPU cores: "+
		"RSS and heap are theirs together, stream durations include the contention (read the load average beside them).", cpus)
}

// round1 rounds to one decimal.
func round1(v float64) float64 { return math.Round(v*10) / 10 }

// mib renders bytes as MiB with one decimal.
func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
