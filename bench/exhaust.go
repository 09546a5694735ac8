package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// ExhaustTarget is a hookgate running as a process of its own for
// RunExhaust: its resident memory and descriptors are read from /proc by
// PID.
type ExhaustTarget struct {
	// URL is its agent listener's base URL (scheme and host).
	URL string
	// PID is its process id.
	PID int
	// Stop stops it and waits for it to exit.
	Stop func()
}

// ExhaustStarter starts hookgate as a separate process in front of the
// mock upstream at upstreamURL; base is the YAML configuration the test
// needs (the client timeouts), which the starter completes with the
// upstream, listeners and store.
type ExhaustStarter func(upstreamURL string, base []byte) (ExhaustTarget, error)

// ExhaustConfig is one exhaustion test: connections that send (almost)
// nothing, all opened at once against hookgate's agent listener, while
// ordinary requests are measured. Every field says what its zero value
// means.
type ExhaustConfig struct {
	// Drippers, Idlers and Bodies are the numbers of header-drip,
	// idle keep-alive and fake-body connections. 0 means 1000, 1000 and
	// 100.
	Drippers, Idlers, Bodies int
	// DripInterval is the wait between two head bytes of a header-drip
	// connection. 0 means 1 s.
	DripInterval time.Duration
	// BodyLength is the Content-Length a fake-body connection announces
	// before it sends one byte. 0 means 33554416 (32 MiB less 16 bytes,
	// under limits.max_request_bytes' default of 32 MiB).
	BodyLength int64
	// ClientHeader, ClientBodyProgress and ClientIdle are the timeouts
	// hookgate is configured with (timeouts.client_header,
	// client_body_progress, client_idle), and within which each attack
	// connection must be closed. 0 means 5 s each.
	ClientHeader, ClientBodyProgress, ClientIdle time.Duration
	// Slack is what a connection's close may come after its timeout and
	// still count as within it (the machine is loaded by the test
	// itself). 0 means 2 s.
	Slack time.Duration
	// Bound is the most the attack phase may last after its connections
	// are open: connections still open then are counted as such and
	// closed. 0 means the longest timeout plus Slack plus 3 s.
	Bound time.Duration
	// Unloaded is the length of the unloaded phase of ordinary requests.
	// 0 means 8 s.
	Unloaded time.Duration
	// Warmup is the number of ordinary rounds sent and discarded first.
	// 0 means 100; negative means none.
	Warmup int
	// Concurrency is the number of closed-loop workers sending ordinary
	// rounds (one request direct to the mock, one through hookgate). 0
	// means 1.
	Concurrency int
	// Timeout bounds one ordinary request. 0 means 10 s.
	Timeout time.Duration
	// RSSGrowthTarget is the most hookgate's RSS may grow over its
	// baseline during the attack. 0 means 150 MiB.
	RSSGrowthTarget uint64
	// P99Factor is the most the added p99 under attack may be, as a
	// multiple of the unloaded run's. 0 means 3.
	P99Factor float64
	// P99Floor is the least the unloaded added p99 counts as in that
	// comparison: on a shared machine it can come out near 0, or
	// negative, which no loaded run would be within 3 times of. 0 means
	// 200 µs.
	P99Floor time.Duration
	// RSSCeiling is a safety bound for the machine: once hookgate's RSS
	// has grown by this much, no further fake body is sent (those left
	// are counted as not set up). 0 means 4 GiB.
	RSSCeiling uint64
	// Start starts hookgate. Required.
	Start ExhaustStarter
	// Progress receives a line every few seconds; nil means silence.
	Progress io.Writer
}

func (c *ExhaustConfig) defaults() {
	setInt := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	setDur := func(p *time.Duration, v time.Duration) {
		if *p <= 0 {
			*p = v
		}
	}
	setInt(&c.Drippers, 1000)
	setInt(&c.Idlers, 1000)
	setInt(&c.Bodies, 100)
	setDur(&c.DripInterval, time.Second)
	if c.BodyLength <= 0 {
		c.BodyLength = 33554416
	}
	setDur(&c.ClientHeader, 5*time.Second)
	setDur(&c.ClientBodyProgress, 5*time.Second)
	setDur(&c.ClientIdle, 5*time.Second)
	setDur(&c.Slack, 2*time.Second)
	setDur(&c.Bound, max(c.ClientHeader, c.ClientBodyProgress, c.ClientIdle)+c.Slack+3*time.Second)
	setDur(&c.Unloaded, 8*time.Second)
	if c.Warmup == 0 {
		c.Warmup = 100
	}
	setInt(&c.Concurrency, 1)
	setDur(&c.Timeout, 10*time.Second)
	if c.RSSGrowthTarget == 0 {
		c.RSSGrowthTarget = 150 << 20
	}
	if c.P99Factor <= 0 {
		c.P99Factor = 3
	}
	setDur(&c.P99Floor, 200*time.Microsecond)
	if c.RSSCeiling == 0 {
		c.RSSCeiling = 4 << 30
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
}

// timeoutOf is the timeout that must close a connection of kind, and its
// configuration name.
func (c *ExhaustConfig) timeoutOf(kind string) (time.Duration, string) {
	switch kind {
	case KindHeaderDrip:
		return c.ClientHeader, "timeouts.client_header"
	case KindIdle:
		return c.ClientIdle, "timeouts.client_idle"
	default:
		return c.ClientBodyProgress, "timeouts.client_body_progress"
	}
}

// baseYAML is the configuration hookgate runs with: the client timeouts
// of the test, everything else at its defaults.
func (c *ExhaustConfig) baseYAML() []byte {
	return fmt.Appendf(nil, "timeouts:\n  client_header: %s\n  client_body_progress: %s\n  client_idle: %s\n",
		c.ClientHeader, c.ClientBodyProgress, c.ClientIdle)
}

// exhaustMaxRounds bounds the ordinary rounds of one phase (its duration
// bounds it first at any speed this machine reaches).
const exhaustMaxRounds = 100_000

// exhaustSampleEvery is how often hookgate's RSS and descriptors are read
// during the attack.
const exhaustSampleEvery = 100 * time.Millisecond

// ErrExhaustFailed is returned (wrapped) by RunExhaust when the test ran
// but a target was missed; the report says which.
var ErrExhaustFailed = errors.New("exhaustion test failed")

// RunExhaust starts the mock upstream and hookgate (a separate process),
// measures ordinary requests unloaded, then opens every attack connection
// at once and measures ordinary requests again until hookgate has closed
// them all or the bound is reached. It returns the report; the error wraps
// ErrExhaustFailed when a target was missed, or is another error when the
// test could not run.
func RunExhaust(ctx context.Context, cfg ExhaustConfig) (*ExhaustReport, error) {
	cfg.defaults()
	if cfg.Start == nil {
		return nil, errors.New("bench: exhaust: no starter")
	}
	rep := newExhaustReport(&cfg)
	total := cfg.Drippers + cfg.Idlers + cfg.Bodies
	var err error
	if rep.Settings.FileLimit, err = raiseFileLimit(); err != nil {
		return nil, fmt.Errorf("bench: exhaust: file limit: %w", err)
	}
	// Each attack connection holds one descriptor here and one in
	// hookgate (which inherits this limit).
	if need := uint64(total + 512); rep.Settings.FileLimit > 0 && rep.Settings.FileLimit < need {
		return nil, fmt.Errorf("bench: exhaust: %d connections need about %d open files; the limit is %d (raise the hard limit: ulimit -Hn)", total, need, rep.Settings.FileLimit)
	}

	mock, err := mockupstream.New(mockupstream.Options{NoRecord: true})
	if err != nil {
		return nil, err
	}
	defer mock.Close()
	sc := Plain(DefaultOptions())
	mock.Handle(mockupstream.Always(sc.Response))
	tg, err := cfg.Start(mock.URL(), cfg.baseYAML())
	if err != nil {
		return nil, err
	}
	defer tg.Stop()
	u, err := url.Parse(tg.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("bench: exhaust: hookgate's URL %q: %v", tg.URL, err)
	}
	proc := newChildProc(tg.PID)
	rep.HookgatePID = tg.PID

	targets := []Target{Direct(), {Name: "hookgate"}}
	var clients []*client
	for i, base := range []string{mock.URL(), tg.URL} {
		c, err := newClient(base, &targets[i], &sc, cfg.Timeout)
		if err != nil {
			return nil, err
		}
		defer c.close()
		clients = append(clients, c)
	}
	load := Load{Concurrency: cfg.Concurrency}

	// Unloaded.
	rep.LoadAvgStart = loadAvgLine()
	rep.Machine.LoadAvgStart = loadAvg()
	if cfg.Warmup > 0 {
		closedLoop(ctx, clients, cfg.Concurrency, cfg.Warmup, 30*time.Second)
	}
	res, elapsed := closedLoop(ctx, clients, cfg.Concurrency, exhaustMaxRounds, cfg.Unloaded)
	rep.Unloaded = summarise(&sc, load, targets, res, elapsed)
	fmt.Fprintf(cfg.Progress, "hgexhaust: unloaded: %d rounds in %.1fs, hookgate added p99 %s\n", rep.Unloaded.Rounds, rep.Unloaded.Seconds, fmtUS(addedP99(&rep.Unloaded)))
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	// The attack, with ordinary requests meanwhile.
	mem := &rep.Memory
	mem.RSSBaseline, rep.Files.Before = proc.rss(), proc.openFiles()
	at := newAttack(u.Host, cfg.DripInterval, cfg.BodyLength, rawRequest(&sc),
		func() bool { return proc.rss() < mem.RSSBaseline+cfg.RSSCeiling })
	fmt.Fprintf(cfg.Progress, "hgexhaust: opening %d header-drip, %d idle keep-alive and %d fake-body connections; hookgate RSS %s, %d files open\n",
		cfg.Drippers, cfg.Idlers, cfg.Bodies, mib(mem.RSSBaseline), rep.Files.Before)

	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	loaded := make(chan Phase, 1)
	go func() {
		res, elapsed := closedLoop(loadCtx, clients, cfg.Concurrency, exhaustMaxRounds, 10*cfg.Bound)
		loaded <- summarise(&sc, load, targets, res, elapsed)
	}()
	stopSampling, sampled := make(chan struct{}), make(chan struct{})
	attackStart := time.Now()
	go func() {
		defer close(sampled)
		rep.sample(proc, attackStart, stopSampling, cfg.Progress)
	}()

	var opening sync.WaitGroup
	for _, k := range []struct {
		kind string
		n    int
	}{{KindHeaderDrip, cfg.Drippers}, {KindIdle, cfg.Idlers}, {KindFakeBody, cfg.Bodies}} {
		opening.Add(1)
		go func() {
			defer opening.Done()
			at.open(ctx, k.kind, k.n)
		}()
	}
	opening.Wait()
	rep.OpenSeconds = time.Since(attackStart).Seconds()
	deadline := time.Now().Add(cfg.Bound)
	for at.openCount() > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(exhaustSampleEvery)
	}
	rep.AttackSeconds = time.Since(attackStart).Seconds()
	stopLoad()
	rep.Loaded = <-loaded
	close(stopSampling)
	<-sampled
	mem.PeakRSS = proc.peakRSS()
	at.closeAll()
	rep.LoadAvgEnd = loadAvgLine()
	rep.Machine.LoadAvgEnd = loadAvg()
	fmt.Fprintf(cfg.Progress, "hgexhaust: attack over after %.1fs; ordinary requests meanwhile: %d rounds, hookgate added p99 %s\n",
		rep.AttackSeconds, rep.Loaded.Rounds, fmtUS(addedP99(&rep.Loaded)))

	rep.connections(&cfg, at)
	rep.verdict(&cfg)
	rep.Finished = time.Now()
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	if !rep.Pass {
		return rep, fmt.Errorf("%w: %s", ErrExhaustFailed, strings.Join(rep.Failures, "; "))
	}
	return rep, nil
}

// rawRequest is sc's request as HTTP/1.1 bytes on the wire, for the idle
// connections' one request.
func rawRequest(sc *Scenario) []byte {
	var b []byte
	b = append(b, sc.method()+" "+sc.path()+" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"...)
	for k, v := range sc.Header {
		b = append(b, k+": "+v+"\r\n"...)
	}
	b = append(b, "Content-Length: "+strconv.Itoa(len(sc.Body))+"\r\n\r\n"...)
	return append(b, sc.Body...)
}

// addedP99 is hookgate's p99 minus direct's in a phase, in µs (0 when
// either has no successful request).
func addedP99(p *Phase) float64 {
	if len(p.Targets) < 2 || p.Targets[1].AddedLatency == nil {
		return 0
	}
	return p.Targets[1].AddedLatency.P99
}

// exhaustNote says what the figures include.
func exhaustNote(cpus int) string {
	return fmt.Sprintf("hookgate runs as a process of its own (its RSS and descriptors are read from /proc); the load generator, the attack "+
		"connections and the mock upstream run in another, all on %d shared CPU cores: latencies include that contention.", cpus)
}

// machineNow describes this machine.
func machineNow() Machine {
	return Machine{
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), CPUModel: cpuModel(), Go: runtime.Version(),
	}
}
