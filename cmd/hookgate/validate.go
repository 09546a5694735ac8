package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
)

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", "hookgate.yaml", "configuration file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	// `hookgate validate FILE` reads FILE, as --config FILE does.
	switch fs.NArg() {
	case 0:
	case 1:
		*path = fs.Arg(0)
	default:
		fmt.Fprintf(stderr, "validate takes one configuration file, got %d arguments\n", fs.NArg())
		return 2
	}
	cfg, err := config.Load(*path)
	if err != nil {
		fmt.Fprintln(stderr, err)
		printEnvHint(stderr, err)
		return 1
	}
	if err := app.Check(cfg); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok (%d upstream(s), %d hook(s))\n", *path, len(cfg.Upstreams), len(cfg.Hooks))
	return 0
}

// printEnvHint follows a report naming unset environment variables with
// what to do about them: set them, or try hookgate without any key.
func printEnvHint(w io.Writer, err error) {
	var ce *config.Error
	if !errors.As(err, &ce) {
		return
	}
	for _, p := range ce.Problems {
		if strings.Contains(p.Msg, "environment variable") {
			fmt.Fprintln(w, "hint: export the variables named above before validate or serve (they hold keys and tokens, never written in the file);")
			fmt.Fprintln(w, "      to try hookgate without any key, run `hookgate mock` and use configs/local.yaml")
			return
		}
	}
}
