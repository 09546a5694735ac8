package bench

import (
	"os"
	"path/filepath"
	"strings"
)

// DefaultResultsDir is where results go without --out: bench/results when
// run from the root of the hookgate repository (where BENCHMARKS.md's
// results live), and hookgate-bench in the OS's temporary folder anywhere
// else, so that a run never creates folders in whatever directory it was
// started from. The path is printed after each run.
func DefaultResultsDir() string {
	if inRepositoryRoot(".") {
		return filepath.Join("bench", "results")
	}
	return filepath.Join(os.TempDir(), "hookgate-bench")
}

// inRepositoryRoot reports whether dir holds hookgate's go.mod and its
// bench folder.
func inRepositoryRoot(dir string) bool {
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(mod), "\n")
	if strings.TrimSpace(first) != "module github.com/hookgate/hookgate" {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, "bench"))
	return err == nil && st.IsDir()
}
