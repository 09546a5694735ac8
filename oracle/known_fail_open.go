package oracle

// FailOpen says why a mutation class still lets a blocked call through,
// and to which oracles.
type FailOpen struct {
	Until string // what closes it
	Go    bool   // a Go SDK reads the call (TestMutationClasses, the fuzzers)
	Node  bool   // a Node SDK reads it (e2e TestNodeOracleCorpus)
}

// KnownFailOpen lists the mutation classes through which a blocked call
// still reaches an oracle on this branch. TestMutationClasses, the fuzz
// targets and the Node corpus replay (e2e/oracle_node_test.go) skip these
// loudly instead of failing; a class listed for Go that no longer leaks
// fails TestMutationClasses, so that this table is emptied as the fixes
// land. It is the only skip list.
var KnownFailOpen = map[string]FailOpen{
	"lead-ascii-ws":           {Until: "SSE re-framing relays only lines parsed as known fields", Go: true, Node: true},
	"lead-unicode-ws":         {Until: "SSE re-framing relays only lines parsed as known fields", Go: true, Node: true},
	"bom-line":                {Until: "SSE re-framing relays only lines parsed as known fields (the JS SDKs strip a BOM on every line)", Node: true},
	"key-case":                {Until: "the canonical-form gate refuses keys that fold to a member", Go: true, Node: true},
	"key-fold":                {Until: "the canonical-form gate refuses keys that fold to a member", Go: true, Node: true},
	"dup-key-decoy-first":     {Until: "the canonical-form gate refuses duplicate keys", Go: true, Node: true},
	"dup-key-decoy-last":      {Until: "the canonical-form gate refuses duplicate keys", Go: true, Node: true},
	"legacy-function-call":    {Until: "every member in which a client reads a call is judged or refused", Go: true, Node: true},
	"chunk-message-member":    {Until: "every member in which a client reads a call is judged or refused (openai-node's finalChatCompletion merges a chunk's message)", Node: true},
	"message-start-content":   {Until: "every member in which a client reads a call is judged or refused", Go: true, Node: true},
	"snapshot-after-terminal": {Until: "events after a terminal event end the stream with an error", Go: true, Node: true},
	"status-1xx-3xx":          {Until: "1xx and 3xx upstream answers become a 502 on read routes", Go: true, Node: true},
}
