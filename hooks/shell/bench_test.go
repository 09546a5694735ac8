package shell

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// typicalCommands are command lines of the kind coding agents send most.
var typicalCommands = []string{
	"git status",
	"npm test -- --watch=false",
	"rm -rf ./build && make",
	"go test ./... 2>&1 | tail -20",
	"grep -rn 'TODO' src/ | head -50",
	"cd web && npm ci && npm run build",
}

// BenchmarkJudgeTypical judges the typical commands in turn. Besides the
// mean (ns/op) it reports the median of the per-call durations (p50-ns).
func BenchmarkJudgeTypical(b *testing.B) {
	g := newDefaultGuard(b)
	durations := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src := typicalCommands[i%len(typicalCommands)]
		start := time.Now()
		v := g.Judge(src)
		durations = append(durations, time.Since(start))
		if v.Decision != Allow {
			b.Fatalf("%q: %+v", src, v)
		}
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds()), "p50-ns")
}

// scriptBlock is one service's part of the 10 KiB script: a function with
// conditionals, a subshell, a loop over a substitution, a heredoc, a
// pipeline and a case.
const scriptBlock = `
# service %[1]s
build_%[1]s() {
  local dir="services/%[1]s"
  if [ ! -d "$dir" ]; then
    echo "skipping %[1]s: no $dir" >&2
    return 0
  fi
  (cd "$dir" && npm ci --no-audit && npm run build -- --mode=production)
  rm -rf "$dir/.cache" ./tmp/%[1]s
  mkdir -p "dist/%[1]s" && cp -r "$dir/build/." "dist/%[1]s/"
  for f in $(find "dist/%[1]s" -name '*.map'); do
    rm -f "$f"
  done
  cat > "dist/%[1]s/version.json" <<VERSION
{"service": "%[1]s", "commit": "$(git rev-parse --short HEAD)", "built": "$(date -u +%%FT%%TZ)"}
VERSION
  go test -race -count=1 ./services/%[1]s/... 2>&1 | tee "logs/%[1]s-test.log" | grep -E '^(FAIL|ok)' || true
  case "${TARGET:-dev}" in
    prod) docker build -t "registry.example.com/%[1]s:$(cat VERSION)" "$dir" ;;
    *) echo "dev build of %[1]s done" ;;
  esac
}
`

// script10KiB is a realistic build-and-test script of at least 10 KiB:
// scriptBlock once per service, then the loop that runs them.
var script10KiB = func() string {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\nset -euo pipefail\nmkdir -p dist logs tmp\n")
	for i := 0; b.Len() < 10*1024-100; i++ {
		fmt.Fprintf(&b, scriptBlock, fmt.Sprintf("svc%02d", i))
	}
	b.WriteString("\nfor s in services/*; do \"build_$(basename \"$s\")\" || exit 1; done\n")
	return b.String()
}()

// BenchmarkJudgeScript10KiB judges a 10 KiB script.
func BenchmarkJudgeScript10KiB(b *testing.B) {
	g := newDefaultGuard(b)
	b.Logf("%d bytes, judged %+v", len(script10KiB), g.Judge(script10KiB))
	b.SetBytes(int64(len(script10KiB)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g.Judge(script10KiB)
	}
}
