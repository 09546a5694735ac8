// Package bench is hookgate's benchmark harness: it measures the latency a
// gateway adds between an agent and its LLM API.
//
// One run starts a mock upstream (internal/mockupstream) and, per scenario,
// every target in front of it: "direct" (the mock itself, the baseline), a
// bare fasthttp reverse-proxy hop that parses nothing (the floor any proxy
// pays for one extra loopback hop), hookgate (started by a TargetStarter that
// cmd/hookgate injects, so this package does not import the proxy), and any
// other gateway by URL. The load generator alternates requests between the
// targets within each round, so that noise on this shared machine hits them
// all alike, and reports per target the percentiles of total latency, time
// to first body byte (TTFB), time to the first content delta (TTFC) and to
// the first tool-call delta of a stream, and each of those minus the
// baseline's: per percentile, and as the median of the paired differences
// within a round.
//
// Loads are concurrency N (closed loop; N=1 is pure latency) and fixed
// rates (open loop: requests are sent on schedule whether or not earlier
// ones have finished). Every phase is bounded by a request count and a
// duration, and everything listens on 127.0.0.1 only.
//
// The generator, the mock and the proxies share the machine's cores (and,
// but for an external --target, one process): absolute times include that
// contention, so compare targets within one run, not across runs.
package bench
