package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
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
	if cfg == nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	// The hooks are compiled even when the file has other problems, so
	// that one run lists every independent problem.
	if err := mergeProblems(err, app.Check(cfg)); err != nil {
		fmt.Fprintln(stderr, err)
		printEnvHint(stderr, err)
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

// followsUnknownEvent reports a handler problem of an entry whose event
// is unknown: the handler was judged against that event, so its problem
// only restates the event's.
func followsUnknownEvent(field string, seen map[string]bool) bool {
	entry, ok := strings.CutSuffix(field, ".handler")
	return ok && seen[entry+".event"]
}

// mergeProblems lists the configuration's problems and the hook
// compiler's in line order. A hook field both found wrong (an unknown
// event, a duplicate id) is listed once, as the configuration says it.
func mergeProblems(loadErr, checkErr error) error {
	var ce *config.Error
	if loadErr != nil && !errors.As(loadErr, &ce) {
		return loadErr
	}
	var hookErr *app.CheckError
	if checkErr != nil && !errors.As(checkErr, &hookErr) {
		if ce == nil {
			return checkErr
		}
		ce.Problems = append(ce.Problems, config.Problem{File: ce.Problems[0].File, Msg: checkErr.Error()})
		return ce
	}
	if ce == nil && hookErr == nil {
		return nil
	}
	merged := &config.Error{}
	seen := map[string]bool{}
	if ce != nil {
		merged.Problems = append(merged.Problems, ce.Problems...)
		for _, p := range ce.Problems {
			seen[p.Path] = true
		}
	}
	if hookErr != nil {
		for i, p := range hookErr.Problems {
			if f := hookErr.Fields[i]; f != "" && (seen[f] || followsUnknownEvent(f, seen)) {
				continue
			}
			merged.Problems = append(merged.Problems, p)
		}
	}
	sort.SliceStable(merged.Problems, func(i, j int) bool {
		a, b := merged.Problems[i], merged.Problems[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return merged
}
