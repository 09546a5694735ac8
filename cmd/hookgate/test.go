package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/policytest"
)

const testUsage = `usage: hookgate test --config FILE [--coverage] [TESTS...]

Runs policy test files (YAML cases: an event and the decision it must get)
against FILE's hooks, without a proxy, an upstream or a channel. TESTS are
files, or folders whose *_test.yaml files are run; without TESTS, the file
<config>_test.yaml next to FILE (configs/demo.yaml: configs/demo_test.yaml).
Exits 1 when a case fails, 2 when a file or the configuration is wrong.
`

func runTest(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, testUsage); fs.PrintDefaults() }
	path := fs.String("config", "hookgate.yaml", "configuration file")
	coverage := fs.Bool("coverage", false, "also list the hooks no case reached")
	// Flags may come after TESTS too (`hookgate test a_test.yaml --config c.yaml`).
	var tests []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		tests = append(tests, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	cfg, err := loadForTest(*path, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	paths, err := testFiles(*path, tests)
	if err != nil {
		fmt.Fprintln(stderr, "hookgate test:", err)
		return 2
	}
	var files []*policytest.File
	for _, p := range paths {
		f, err := policytest.Load(p)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		files = append(files, f)
	}
	rep, err := policytest.Run(cfg, files)
	if err != nil {
		fmt.Fprintln(stderr, "hookgate test:", err)
		return 2
	}
	policytest.Print(stdout, rep, *coverage)
	if rep.Failed() > 0 {
		return 1
	}
	return 0
}

// loadForTest loads the configuration as serve would, except that
// environment variables left unset are only noted: they name upstreams'
// addresses and keys, and channels' tokens, none of which a test reaches.
func loadForTest(path string, stderr io.Writer) (*config.Config, error) {
	cfg, err := config.Load(path)
	if err == nil {
		return cfg, nil
	}
	var ce *config.Error
	if cfg == nil || !errors.As(err, &ce) {
		return nil, err
	}
	for _, p := range ce.Problems {
		if !strings.Contains(p.Msg, "environment variable") || !strings.Contains(p.Msg, "not set") {
			return nil, err
		}
	}
	for _, p := range ce.Problems {
		fmt.Fprintf(stderr, "note: %s (hookgate test reaches no upstream or channel)\n", p)
	}
	return cfg, nil
}

// testFiles resolves TESTS: files as given, folders to their *_test.yaml
// files, and none to <config>_test.yaml next to the configuration.
func testFiles(configPath string, args []string) ([]string, error) {
	if len(args) == 0 {
		stem := strings.TrimSuffix(configPath, filepath.Ext(configPath))
		def := stem + "_test.yaml"
		if _, err := os.Stat(def); err != nil {
			return nil, fmt.Errorf("no TESTS given and no %s next to the configuration", def)
		}
		return []string{def}, nil
	}
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		found, err := filepath.Glob(filepath.Join(a, "*_test.yaml"))
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no *_test.yaml files", a)
		}
		out = append(out, found...)
	}
	return out, nil
}
