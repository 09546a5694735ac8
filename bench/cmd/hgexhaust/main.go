// Command hgexhaust is hookgate's exhaustion test: it starts the mock
// upstream and hookgate as a separate process (this binary re-executed,
// through bench/hgtarget) with short client timeouts, measures ordinary
// requests unloaded, then opens at once -drippers connections that send
// their request head one byte a second, -idlers keep-alive connections
// that go quiet after one request and -bodies connections that announce
// a 32 MiB body and send one byte, and measures ordinary requests again
// meanwhile. It reports hookgate's RSS growth, when hookgate closed each
// attack connection and the added p99 under attack against the unloaded
// run; it writes them as JSON under -out and exits 1 when a target is
// missed: RSS growth under 150 MiB, every connection closed within its
// timeout, added p99 within 3 times the unloaded run's.
//
//	go run ./bench/cmd/hgexhaust                          # 1000/1000/100, timeouts 5 s
//	go run ./bench/cmd/hgexhaust -drippers 200 -idlers 200 -bodies 20
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/hookgate/hookgate/bench"
	"github.com/hookgate/hookgate/bench/hgtarget"
)

func main() {
	hgtarget.ServeIfChild()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "hgexhaust:", err)
		os.Exit(1)
	}
}

// run parses args, runs the test, prints its summary and writes its JSON;
// the error wraps bench.ErrExhaustFailed when a target was missed.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hgexhaust", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		drippers   = fs.Int("drippers", 1000, "connections that send their request head one byte every -drip-interval, never finishing it")
		idlers     = fs.Int("idlers", 1000, "keep-alive connections that send one request and then nothing")
		bodies     = fs.Int("bodies", 100, "connections that announce a -body-length body and send one byte of it")
		drip       = fs.Duration("drip-interval", time.Second, "the wait between two head bytes of a dripping connection")
		bodyLen    = fs.Int64("body-length", 33554416, "the Content-Length a fake body announces")
		header     = fs.Duration("client-header", 5*time.Second, "hookgate's timeouts.client_header, within which a dripping connection must be closed")
		progress   = fs.Duration("client-body-progress", 5*time.Second, "hookgate's timeouts.client_body_progress, within which a fake body's connection must be closed")
		idle       = fs.Duration("client-idle", 5*time.Second, "hookgate's timeouts.client_idle, within which an idle keep-alive connection must be closed")
		slack      = fs.Duration("slack", 2*time.Second, "how late after its timeout a close still counts as within it")
		bound      = fs.Duration("bound", 0, "the most the attack lasts once its connections are open (0: the longest timeout + slack + 3s)")
		unloaded   = fs.Duration("unloaded", 8*time.Second, "the length of the unloaded phase of ordinary requests")
		conc       = fs.Int("concurrency", 1, "closed-loop workers sending ordinary requests (one direct to the mock, one through hookgate per round)")
		rssTarget  = fs.Int("rss-target-mib", 150, "the most hookgate's RSS may grow during the attack, MiB")
		p99Factor  = fs.Float64("p99-factor", 3, "the most the added p99 under attack may be, as a multiple of the unloaded run's")
		p99Floor   = fs.Duration("p99-floor", 200*time.Microsecond, "the least the unloaded added p99 counts as (it can be near 0 on a shared machine)")
		rssCeiling = fs.Int("rss-ceiling-mib", 4096, "safety: stop sending fake bodies once hookgate's RSS has grown by this much, MiB")
		total      = fs.Duration("total", 90*time.Second, "the most the whole run may take")
		out        = fs.String("out", bench.DefaultResultsDir(), "directory for the JSON results (empty: write none; the default is bench/results only at the repository root, else hookgate-bench in the OS temporary folder)")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	ctx, cancel := context.WithTimeout(ctx, *total)
	defer cancel()
	rep, err := bench.RunExhaust(ctx, bench.ExhaustConfig{
		Drippers:           *drippers,
		Idlers:             *idlers,
		Bodies:             *bodies,
		DripInterval:       *drip,
		BodyLength:         *bodyLen,
		ClientHeader:       *header,
		ClientBodyProgress: *progress,
		ClientIdle:         *idle,
		Slack:              *slack,
		Bound:              *bound,
		Unloaded:           *unloaded,
		Concurrency:        *conc,
		RSSGrowthTarget:    uint64(max(*rssTarget, 1)) << 20,
		P99Factor:          *p99Factor,
		P99Floor:           *p99Floor,
		RSSCeiling:         uint64(max(*rssCeiling, 1)) << 20,
		Start:              hgtarget.ProcessStarter(hgtarget.Options{Notes: stderr}),
		Progress:           stderr,
	})
	if rep == nil {
		return err
	}
	rep.Command = strings.TrimSpace("hgexhaust " + strings.Join(args, " "))
	if werr := rep.WriteSummary(stdout); werr != nil && err == nil {
		err = werr
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
