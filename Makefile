# The few targets people expect. The test target is the README's
# ./scripts/test (it installs what the tests need first).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: build test lint fuzz bench demo tidy

build:
	go build -trimpath -ldflags "$(LDFLAGS)" -o bin/hookgate ./cmd/hookgate

test:
	./scripts/test

lint:
	go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0 run ./...

fuzz:
	bash scripts/fuzz.sh

bench:
	go run ./bench/cmd/hgbench

demo:
	go run ./cmd/hookgate demo

tidy:
	go mod tidy
