package shell

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
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

// BenchmarkJudgeEachTypical judges each typical command on its own, to
// tell which of them the mean of BenchmarkJudgeTypical comes from.
func BenchmarkJudgeEachTypical(b *testing.B) {
	g := newDefaultGuard(b)
	for i, src := range typicalCommands {
		b.Run(strconv.Itoa(i), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				g.Judge(src)
			}
		})
	}
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
	var calls []string
	for i := 0; b.Len() < 10*1024-150; i++ {
		name := fmt.Sprintf("svc%02d", i)
		fmt.Fprintf(&b, scriptBlock, name)
		calls = append(calls, "build_"+name)
	}
	b.WriteString("\n" + strings.Join(calls, " && ") + "\n")
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

// BenchmarkSyntaxParse10KiB is the floor under BenchmarkJudgeScript10KiB:
// mvdan.cc/sh/v3/syntax parsing the same script once, nothing else.
func BenchmarkSyntaxParse10KiB(b *testing.B) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	b.SetBytes(int64(len(script10KiB)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := p.Parse(strings.NewReader(script10KiB), ""); err != nil {
			b.Fatal(err)
		}
	}
}
