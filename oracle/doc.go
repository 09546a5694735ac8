// Package oracle holds hookgate's differential tests: recorded provider
// streams and bodies (the shared fixtures) are mutated in the classes where
// a lenient client reads a response differently from hookgate (byte-order
// marks, Unicode and ASCII whitespace around fields, escaped and
// case- or Unicode-folded keys, duplicate keys, unknown SSE fields, tool
// calls moved to members a client also reads, extra, split or CR-ended
// data lines, events after the terminal one, 1xx-3xx statuses, odd number
// forms), replayed by a loopback mock upstream through an in-process
// hookgate whose pre_tool_use hook blocks every call, and read by the real
// Go SDKs (go-openai, openai-go v3, anthropic-sdk-go v2) as oracles.
//
// The property: no oracle reads any tool call (name or arguments) through
// hookgate. A client error or an error event is fine; a clean read of a
// call is a fail-open.
//
// Everything but one table lives in _test.go files: TestMutationClasses runs each class
// over a few fixtures in `go test`, FuzzOracle* drive the choice of fixture
// and mutation from the fuzzer's bytes (scripts/fuzz.sh runs them), and
// TestWriteNodeCorpus regenerates the corpus that e2e/oracle_node_test.go
// replays to the Node SDKs. KnownFailOpen (known_fail_open.go) is the
// one list of classes skipped because hookgate still fails open on them;
// it is exported so that the e2e package's Node replay reads the same list.
package oracle
