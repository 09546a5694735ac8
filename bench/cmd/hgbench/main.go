// Command hgbench measures the latency that a proxy adds between an agent
// and its LLM API: direct to a mock upstream, through a bare fasthttp hop,
// and through any gateway given with --target, interleaved in one run.
//
//	go run ./bench/cmd/hgbench -scenarios plain,stream -duration 20s
//	go run ./bench/cmd/hgbench -rates 500,2000
//
// hookgate itself is measured by `hookgate bench`, which runs the same
// harness with hookgate as an extra target.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/hookgate/hookgate/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cmd := bench.Command{Name: "hgbench", Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Main(ctx, os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
