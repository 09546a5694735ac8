// Command hgsoak is hookgate's full-size load test: it starts the mock
// upstream and hookgate (through bench/hgtarget, as hgbench does) and runs
// -streams closed-loop workers for -duration, each streaming chat
// completions whose answer carries text and two tool calls that hookgate
// holds until complete; a pre_tool_use script hook allows one and blocks
// the other. Every answer is checked exactly. It reports the streams
// completed, the errors (which must be 0), hookgate's peak of held calls,
// the process's peak RSS, the live heap and the goroutines before, at the
// peak and after (hookgate's must come back to the baseline), and the
// stream durations; it writes them as JSON under -out and exits 1 when
// the soak fails.
//
//	go run ./bench/cmd/hgsoak                          # 1000 streams for 60 s
//	go run ./bench/cmd/hgsoak -streams 200 -duration 10s -hooks none
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/hookgate/hookgate/bench"
	"github.com/hookgate/hookgate/bench/hgtarget"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "hgsoak:", err)
		os.Exit(1)
	}
}

// run parses args, runs the soak, prints its summary and writes its JSON;
// the error wraps bench.ErrSoakFailed when the soak did not pass.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hgsoak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		streams  = fs.Int("streams", 1000, "closed-loop workers, each with one stream open at a time")
		duration = fs.Duration("duration", 60*time.Second, "how long workers start new streams (those open then finish and count)")
		interval = fs.Duration("chunk-interval", 50*time.Millisecond, "the mock upstream's wait between two events of an answer")
		hooks    = fs.String("hooks", bench.SoakHooksScript, "script: a pre_tool_use script hook blocks one of the answer's two calls; none: no hook, answers must be the upstream's bytes")
		timeout  = fs.Duration("timeout", 60*time.Second, "per-stream timeout, body included")
		sessions = fs.Int("sessions", 0, "spread the streams over this many agent sessions (X-Session-Id); 0: one per stream; -1: no session header")
		settle   = fs.Duration("settle", 10*time.Second, "how long hookgate's goroutines may take to come back to the baseline after the load")
		memProf  = fs.String("memprofile", "", "write a heap profile to this file after the load (the mock closed: what hookgate keeps)")
		out      = fs.String("out", bench.DefaultResultsDir(), "directory for the JSON results (empty: write none; the default is bench/results only at the repository root, else hookgate-bench in the OS temporary folder)")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	rep, err := bench.RunSoak(ctx, bench.SoakConfig{
		Streams:       *streams,
		Duration:      *duration,
		ChunkInterval: *interval,
		Hooks:         *hooks,
		Timeout:       *timeout,
		Sessions:      *sessions,
		Settle:        *settle,
		HeapProfile:   *memProf,
		Start:         hgtarget.SoakStarter(hgtarget.Options{Notes: stderr, Log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}),
		Progress:      stderr,
	})
	if rep == nil {
		return err
	}
	rep.Command = strings.TrimSpace("hgsoak " + strings.Join(args, " "))
	if werr := rep.WriteSummary(stdout); werr != nil && err == nil {
		err = werr
	}
	if len(rep.Decisions) > 0 {
		fmt.Fprintf(stdout, "hook decisions: %s\n", hgtarget.FormatDecisions(rep.Decisions))
	}
	if *out != "" {
		path, werr := rep.WriteFile(*out)
		if werr != nil && err == nil {
			err = werr
		}
		if werr == nil {
			fmt.Fprintf(stdout, "results: %s\n", path)
		}
	}
	return err
}
