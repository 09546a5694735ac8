#!/usr/bin/env bash
# Runs every Go fuzz target of the repository for a bounded time.
#
#   scripts/fuzz.sh                 # all targets, about FUZZ_BUDGET seconds in all
#   FUZZ_TIME=20s scripts/fuzz.sh   # a fixed time per target instead
#   scripts/fuzz.sh FuzzSSEParser   # only the targets whose name matches
#
# FUZZ_BUDGET (default 175) is the wall time in seconds the whole run should
# take. Each target costs about 4 s besides its fuzzing (starting the
# instrumented binary, replaying its seed corpus and testdata/fuzz; the
# binaries are compiled once and cached), so each target fuzzes for
# (FUZZ_BUDGET - 4 s x targets) / targets, at most 20 s and at least 3 s.
# With the 31 targets of today (three are the oracle package's SDK
# differential fuzzers, FuzzOracle*) that is 3 s each, about 3 minutes on
# 2 cores; FUZZ_TIME=20s gives every target 20 s (about 10 minutes).
# Every target runs; failing inputs are saved under testdata/fuzz/<Target>/
# (replay one with `go test -run <Target>/<id> ./<dir>`) and the script exits
# 1 at the end, naming the failed targets.
set -euo pipefail
cd "$(dirname "$0")/.."

filter="${1:-.}"
budget="${FUZZ_BUDGET:-175}"

# "<dir> <target>" for every fuzz target in a *_test.go file.
mapfile -t targets < <(
  find . -name '*_test.go' -not -path '*/node_modules/*' -not -path './.git/*' -print0 |
    xargs -0 grep -H -o -E '^func Fuzz[A-Za-z0-9_]+\(' |
    sed -E 's#^\./(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]+)\($#\1 \2#; s#^\./[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]+)\($#. \1#' |
    grep -E " .*${filter}" | sort -u
)
n=${#targets[@]}
if [ "$n" -eq 0 ]; then
  echo "no fuzz target matches $filter"; exit 1
fi

per="${FUZZ_TIME:-}"
if [ -z "$per" ]; then
  secs=$(( (budget - 4 * n) / n ))
  [ "$secs" -gt 20 ] && secs=20
  [ "$secs" -lt 3 ] && secs=3
  per="${secs}s"
fi

echo "== $n fuzz targets, $per each"
start=$(date +%s)
failed=()
for t in "${targets[@]}"; do
  dir="${t%% *}"
  name="${t##* }"
  printf -- '-- %-32s ./%s\n' "$name" "$dir"
  if ! out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "$per" "./$dir" 2>&1); then
    echo "$out"
    failed+=("$name (./$dir)")
    continue
  fi
  echo "$out" | grep -E 'execs:' | tail -1 || true
done
took=$(( $(date +%s) - start ))
if [ "${#failed[@]}" -gt 0 ]; then
  echo "== FAIL after ${took}s: ${failed[*]}"
  exit 1
fi
echo "== all $n fuzz targets passed in ${took}s"
