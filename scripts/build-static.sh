#!/bin/sh
# Builds the hookgate binary the container image ships: static (CGO off; the
# SQLite driver is pure Go), without local paths (-trimpath), without symbol
# tables (-s -w). The Dockerfile runs this script, and so does the deploy
# module's test (deploy/image_test.go), which checks that what it builds is a
# static ELF that answers; so the image's build is the one a test runs.
#
#   scripts/build-static.sh OUTPUT     (HOOKGATE_VERSION names the version)
#
# POSIX sh: the build stage's image need not have bash.
set -eu

out=${1:?usage: scripts/build-static.sh OUTPUT}
case $out in
/*) ;;
*) out=$(pwd)/$out ;;
esac
version=${HOOKGATE_VERSION:-dev}

cd "$(dirname "$0")/.."
CGO_ENABLED=0 go build -trimpath -buildvcs=false \
	-ldflags="-s -w -X main.version=${version}" \
	-o "$out" ./cmd/hookgate
