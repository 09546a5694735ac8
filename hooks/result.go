package hooks

// Decision is the verdict of one hook, or of a whole chain.
type Decision string

// Decisions a hook execution can end in.
const (
	Allow   Decision = "allow"
	Rewrite Decision = "rewrite"
	Block   Decision = "block"
	Error   Decision = "error"
	Timeout Decision = "timeout"
	// Expired is returned by a handler that waited for a person who did not
	// answer in time (the approval gate). It blocks like Block and is
	// recorded as expired rather than as a human rejection.
	Expired Decision = "expired"
	// Bypassed is never returned by a handler: the engine records it for a
	// blocking hook it skipped because the event had Bypass set.
	Bypassed Decision = "bypassed"

	// The would-decisions are never returned by a handler: the engine
	// records them for a dry_run hook, naming what enforcing it would
	// have done. WouldBlock: the call (or, for a contributing hook that
	// failed under on_timeout: fail, the request) would have been
	// stopped; WouldRewrite: its input or result would have been
	// rewritten, or its text (context, a disclaimer) added; WouldAllow:
	// nothing would have changed; WouldAsk: an approval hook would have
	// asked a person (no card is posted, nothing is held).
	WouldBlock   Decision = "would_block"
	WouldRewrite Decision = "would_rewrite"
	WouldAllow   Decision = "would_allow"
	WouldAsk     Decision = "would_ask"
)

// Result is what a handler returns. Handlers of every kind decode their
// output into it (script return value, command stdout, http body, judge
// verdict).
type Result struct {
	Decision          Decision       `json:"decision"`
	Reason            string         `json:"reason,omitempty"`
	UpdatedInput      map[string]any `json:"updatedInput,omitempty"`
	UpdatedResult     *string        `json:"updatedResult,omitempty"`
	AdditionalContext string         `json:"additionalContext,omitempty"`
	SideEffects       []string       `json:"sideEffects,omitempty"`
}
