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
var KnownFailOpen = map[string]FailOpen{}
