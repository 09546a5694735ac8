// Command hgbench measures the latency that a proxy adds between an agent
// and its LLM API: direct to a mock upstream, through a bare fasthttp hop,
// through hookgate (started in this process per scenario, with the
// scenario's hooks) and through any gateway given with --target,
// interleaved in one run.
//
//	go run ./bench/cmd/hgbench -scenarios plain,stream -duration 20s
//	go run ./bench/cmd/hgbench -scenarios hooks -chunk-interval 2ms
//	go run ./bench/cmd/hgbench -scenarios plain -concurrency 0 -rates 500,2000
//
// `hookgate bench` runs the same harness; with --config it measures the
// hooks of a user's own configuration.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/hookgate/hookgate/bench"
	"github.com/hookgate/hookgate/bench/hgtarget"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	targets := []bench.Target{hgtarget.Target(hgtarget.Options{})}
	// -writer-hop (before the other flags) adds the diagnostic bare hop
	// that relays streams through SetBodyStreamWriter.
	args, name := os.Args[1:], "hgbench"
	if len(args) > 0 && (args[0] == "-writer-hop" || args[0] == "--writer-hop") {
		targets = append([]bench.Target{bench.BareHopWriter()}, targets...)
		args, name = args[1:], "hgbench -writer-hop"
	}
	cmd := bench.Command{Name: name, Targets: targets, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Main(ctx, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
