package bench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"time"
)

// targetFlags collects repeated --target values.
type targetFlags []Target

func (t *targetFlags) String() string { return "" }

func (t *targetFlags) Set(v string) error {
	tg, err := ParseTarget(v)
	if err != nil {
		return err
	}
	*t = append(*t, tg)
	return nil
}

// Command is a benchmark command line: hgbench, and hookgate bench, which
// adds hookgate as a target and may add scenarios built from a user's
// configuration.
type Command struct {
	// Name is used in usage messages and recorded in the report.
	Name string
	// Targets are measured after direct and the bare hop (e.g. hookgate).
	Targets []Target
	// Scenarios run after the built-in ones selected by --scenarios
	// (--scenarios "" selects none of those).
	Scenarios []Scenario
	// Stdout receives the table; Stderr progress, notes and usage.
	Stdout, Stderr io.Writer
	// Report, when set, is called with the report once the run is over
	// (after the table and the files), e.g. to print a summary of it.
	Report func(*Report)
	// DefaultScenarios replaces the default of --scenarios
	// ("plain,stream,fixtures") when set; use "-" for none.
	DefaultScenarios string
}

// Main parses args and runs: direct, the bare hop, c.Targets and those
// named by --target; it prints the table and writes JSON and SVG results.
func (c Command) Main(ctx context.Context, args []string) error {
	name, stdout, stderr := c.Name, c.Stdout, c.Stderr
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		scenarios   = fs.String("scenarios", c.defaultScenarios(), "comma-separated scenarios: plain, stream, fixtures (all recorded streams), "+fixtureNames()+", hooks (all hook scenarios), hooks-plain, hooks-stream, "+hookScenarioNames()+", "+responsesScenarioNames()+" (POST /v1/responses), "+HookedPathGroup+" (a recorded stream with 2 parallel tool calls under 5 hook configurations; read the multiples of the hop), "+hookedPathNames()+", all")
		requests    = fs.Int("requests", 1000, "at most this many rounds per phase (a round sends one request to every target)")
		duration    = fs.Duration("duration", 10*time.Second, "at most this long per phase")
		warmup      = fs.Int("warmup", 20, "rounds sent and discarded before each phase (negative: none)")
		concurrency = fs.Int("concurrency", 1, "closed-loop workers for the concurrency phase (1 = pure latency; 0 = no such phase)")
		rates       = fs.String("rates", "", "comma-separated open-loop rates, requests/s per target, one phase each (e.g. 500,2000)")
		upLatency   = fs.Duration("upstream-latency", 0, "the mock upstream's wait before its first byte")
		interval    = fs.Duration("chunk-interval", DefaultOptions().ChunkInterval, "the mock upstream's wait between stream events")
		mockAddr    = fs.String("mock-addr", "", "listen address of the mock upstream (default: a free port on 127.0.0.1); fix it to point a --target gateway at the mock")
		timeout     = fs.Duration("timeout", 30*time.Second, "per-request timeout, body included")
		out         = fs.String("out", DefaultResultsDir(), "directory for the JSON results and the SVG chart (empty: write none; the default is bench/results only at the repository root, else hookgate-bench in the OS temporary folder)")
		noHop       = fs.Bool("no-bare-hop", false, "leave the bare hop out")
		cpuProfile  = fs.String("cpuprofile", "", "write a CPU profile of the whole run (generator, mock and in-process targets) to this file")
		blockProf   = fs.String("blockprofile", "", "write a profile of where goroutines waited (blocking and mutex contention over 10µs) to this file")
		mutexProf   = fs.String("mutexprofile", "", "write a profile of contended mutexes (every contention, with the time the holders kept the waiters waiting) to this file")
		traceOut    = fs.String("trace", "", "write an execution trace of the whole run to this file (read it with go tool trace; keep -duration short, a trace grows by megabytes a second)")
		sessions    = fs.Int("sessions", 0, "spread requests over this many agent sessions (X-Session-Id hgbench-0...); 0: no session header, every request of a scenario in one session")
		saturate    = fs.Int("saturate", 0, "also measure each target alone with this many closed-loop workers, for --duration per scenario and target (throughput at saturation)")
		from        = fs.String("from", "", "run nothing: print the table of a saved results JSON and redraw its chart beside it")
		targets     targetFlags
	)
	fs.Var(&targets, "target", "an extra OpenAI-compatible gateway to measure, NAME=http://host:port (repeatable; it must forward to --mock-addr)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected arguments %q", name, fs.Args())
	}

	if *from != "" {
		return rerender(*from, stdout)
	}

	opts := Options{UpstreamLatency: *upLatency, ChunkInterval: *interval}
	var scs []Scenario
	if s := strings.TrimSpace(*scenarios); s != "" && s != "-" {
		var err error
		if scs, err = Scenarios(strings.Split(*scenarios, ","), opts); err != nil {
			return err
		}
	}
	scs = append(scs, c.Scenarios...)
	if len(scs) == 0 {
		return errors.New(name + ": no scenario selected")
	}
	cfg := Config{
		Scenarios: scs,
		Targets:   []Target{Direct()},
		Requests:  *requests,
		Duration:  *duration,
		Warmup:    *warmup,
		Timeout:   *timeout,
		MockAddr:  *mockAddr,
		Sessions:  *sessions,
		Progress:  stderr,
	}
	if !*noHop {
		cfg.Targets = append(cfg.Targets, BareHop())
	}
	cfg.Targets = append(cfg.Targets, c.Targets...)
	cfg.Targets = append(cfg.Targets, targets...)
	if *concurrency > 0 {
		cfg.Loads = append(cfg.Loads, Load{Concurrency: *concurrency})
	}
	for _, r := range strings.Split(*rates, ",") {
		if r = strings.TrimSpace(r); r == "" {
			continue
		}
		v, err := strconv.ParseFloat(r, 64)
		if err != nil || v <= 0 {
			return fmt.Errorf("%s: --rates: %q is not a positive number", name, r)
		}
		cfg.Loads = append(cfg.Loads, Load{Rate: v})
	}
	if len(cfg.Loads) == 0 && *saturate <= 0 {
		return errors.New(name + ": nothing to run: --concurrency 0, no --rates and no --saturate")
	}
	if *mockAddr == "" && len(targets) > 0 {
		fmt.Fprintf(stderr, "%s: warning: --target without --mock-addr: the target cannot know where the mock listens\n", name)
	}

	fmt.Fprintln(stderr, SharedCoresNote(runtime.NumCPU()))
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer pprof.StopCPUProfile()
	}
	if *blockProf != "" {
		f, err := os.Create(*blockProf)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer f.Close()
		runtime.SetBlockProfileRate(int((10 * time.Microsecond).Nanoseconds()))
		runtime.SetMutexProfileFraction(1)
		defer func() {
			runtime.SetBlockProfileRate(0)
			_ = pprof.Lookup("block").WriteTo(f, 0)
		}()
	}
	if *mutexProf != "" {
		f, err := os.Create(*mutexProf)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer f.Close()
		runtime.SetMutexProfileFraction(1)
		defer func() {
			runtime.SetMutexProfileFraction(0)
			_ = pprof.Lookup("mutex").WriteTo(f, 0)
		}()
	}
	if *traceOut != "" {
		f, err := os.Create(*traceOut)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer trace.Stop()
	}
	var rep *Report
	var err error
	if len(cfg.Loads) > 0 {
		rep, err = Run(ctx, cfg)
		if rep == nil {
			return err
		}
	} else {
		cfg.defaults()
		rep = newReport(cfg)
		for i := range cfg.Scenarios {
			sc := &cfg.Scenarios[i]
			rep.Scenarios = append(rep.Scenarios, ScenarioInfo{Name: sc.Name, Description: sc.Description, Streamed: sc.Streamed(), Hooks: sc.Hooks})
		}
	}
	if *saturate > 0 && err == nil {
		rep.Saturation, err = RunSaturation(ctx, cfg, *saturate)
		rep.Finished = time.Now()
		rep.Machine.LoadAvgEnd = loadAvg()
	}
	rep.Command = name + " " + strings.Join(args, " ")
	if werr := rep.WriteTable(stdout); werr != nil && err == nil {
		err = werr
	}
	if *out != "" {
		j, s, werr := rep.WriteFiles(*out)
		if werr != nil && err == nil {
			err = werr
		}
		if werr == nil {
			fmt.Fprintf(stdout, "\nresults: %s\nchart:   %s\n", j, s)
		}
	}
	if c.Report != nil {
		c.Report(rep)
	}
	return err
}

func (c Command) defaultScenarios() string {
	if c.DefaultScenarios != "" {
		return c.DefaultScenarios
	}
	return "plain,stream,fixtures"
}

// rerender prints the table of a saved report and rewrites its SVG.
func rerender(jsonPath string, stdout io.Writer) error {
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("bench: %s: %w", jsonPath, err)
	}
	if err := rep.WriteTable(stdout); err != nil {
		return err
	}
	svgPath := strings.TrimSuffix(jsonPath, ".json") + ".svg"
	f, err := os.Create(svgPath)
	if err != nil {
		return fmt.Errorf("bench: chart: %w", err)
	}
	defer f.Close()
	if err := rep.WriteSVG(f); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nchart:   %s\n", svgPath)
	return f.Close()
}
