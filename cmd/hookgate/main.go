// Command hookgate is a transparent reverse proxy between AI agents and the
// LLM APIs they call, enforcing an organisation's hooks on tool calls.
//
//	hookgate serve --config FILE      run the proxy
//	hookgate validate --config FILE   check a configuration, listing every error
//	hookgate demo                     an offline tour, nothing to configure
//	hookgate mock                     a mock model on a port, to try serve without a key
//	hookgate audit --config FILE      list recorded hook executions
//	hookgate approvals ...            answer approval questions
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `hookgate: a policy proxy between AI agents and LLM APIs

usage:
  hookgate serve --config FILE      run the proxy
  hookgate validate --config FILE   check a configuration; exits 1 listing every error
  hookgate demo [--keep]            run an offline demo (embedded mock upstream); --keep leaves it
                                    running with its console until Ctrl-C
  hookgate mock [--listen ADDR]     run the mock model alone (for configs/local.yaml), logging what it receives
  hookgate audit --config FILE      list recorded hook executions (see hookgate audit -h)
  hookgate approvals list|approve|reject --config FILE|--admin URL [--comment TEXT] [ID]
                                    answer approval questions, also while hookgate is down
  hookgate bench [--config FILE]    measure the latency hookgate and each hook of FILE add
                                    (mock upstream on loopback; --help for the harness flags)
  hookgate test --config FILE [TESTS...]
                                    run policy test files against FILE's hooks (no proxy, no upstream)
  hookgate replay --config NEW.yaml --from STORE [--since 24h] [--session S]
                                    re-run captured events through NEW's hooks and list changed decisions
  hookgate version                  print the version
`

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return runServe(args[1:], stderr)
	case "validate":
		return runValidate(args[1:], stdout, stderr)
	case "demo":
		return runDemo(args[1:], stdout, stderr)
	case "mock":
		return runMock(args[1:], stdout, stderr)
	case "bench":
		return runBench(args[1:], stdout, stderr)
	case "audit":
		return runAudit(args[1:], stdout, stderr)
	case "approvals":
		return runApprovals(args[1:], stdout, stderr)
	case "test":
		return runTest(args[1:], stdout, stderr)
	case "replay":
		return runReplay(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "hookgate", version)
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "hookgate: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}
