package hooks

import "time"

// Mode says what happens to a pre_response hook's text.
type Mode string

// Modes of pre_response hooks.
const (
	// Append adds the text to the final answer (the default).
	Append Mode = "append"
	// Send hands the text to a channel and leaves the answer untouched.
	Send Mode = "send"
)

// Outcome is the verdict of a chain of hooks for one event: what the caller
// applies to the traffic. The zero value is not meaningful; Dispatch
// always sets Decision.
type Outcome struct {
	// Decision is the chain's verdict:
	//   - Allow: go on (ToolInput/ToolResult are nil).
	//   - Rewrite: go on with ToolInput and/or ToolResult.
	//   - Block: a hook of a blocking event blocked (or failed under
	//     on_timeout: block); HookID names it, Reason says why.
	//   - Error: a contributing hook failed under on_timeout: fail; the
	//     caller answers 503 naming HookID (or, once text has been streamed,
	//     ends the stream with an error event) instead of going on without
	//     the hook's contribution.
	Decision Decision
	// Reason is the block or failure reason shown to the client. For a
	// hook's own block it is the hook's reason; for a failure (error,
	// timeout, open breaker) a fixed note naming the hook, such as "hook
	// <id> failed (fail-closed)", never the error's text (see
	// failureNote): the error is in Cause, the log and the audit.
	Reason string
	// HookID names the hook that blocked or failed.
	HookID string
	// OnBlock is the blocking hook's on_block ("respond" or "retry"; empty
	// means the caller's default).
	OnBlock string
	// Cause is the underlying error when the block or failure came from a
	// hook's error or timeout rather than from its decision. It may carry
	// internal detail (addresses, store errors, paths): log it, never show
	// it to the client.
	Cause error

	// ToolInput is the rewritten tool input (pre_tool_use), nil when no
	// hook changed it. It is a new map: the event's input is untouched.
	ToolInput map[string]any
	// ToolResult is the rewritten tool result (post_tool_use), nil when no
	// hook changed it.
	ToolResult *string
	// Context is the additionalContext of the hooks that ran, in priority
	// order, joined by a blank line; for pre_response only the texts in
	// Append mode. Empty when no hook contributed.
	Context string
	// Contributions lists every non-empty additionalContext with its hook
	// and mode, in priority order (pre_response hooks in Send mode are
	// found here).
	Contributions []Contribution

	// Executions records the hooks that ran synchronously for this event
	// (the Recorder also sees them, and the observers' executions).
	Executions []Execution
}

// Blocked reports whether a blocking hook stopped the event.
func (o *Outcome) Blocked() bool { return o.Decision == Block }

// Failed reports whether a contributing hook failed and the caller must
// answer with an error naming o.HookID.
func (o *Outcome) Failed() bool { return o.Decision == Error }

// SendTexts returns the texts of pre_response hooks in Send mode, in
// priority order.
func (o *Outcome) SendTexts() []string {
	var out []string
	for _, c := range o.Contributions {
		if c.Mode == Send {
			out = append(out, c.Text)
		}
	}
	return out
}

// Contribution is one hook's additionalContext.
type Contribution struct {
	HookID string
	Mode   Mode
	Text   string
}

// Execution is the record of one hook execution, for the audit log
// (hook_executions) and metrics.
type Execution struct {
	// HookID is the hook's id.
	HookID string
	// HookVersion is a hash of the hook's configuration (and script
	// source), so a reload that changed the hook shows in the record.
	HookVersion string
	// Event, EventID and SessionID identify the event; EventID with HookID
	// makes the audit's dedup key.
	Event     EventName
	EventID   string
	SessionID string
	// Tenant and Agent are the event's, for scoped metrics.
	Tenant string
	Agent  string
	// Decision is what the hook itself ended in: allow, rewrite (only when
	// a rewrite was applied), block, error, timeout, expired or bypassed;
	// for a dry_run hook a would-decision (see WouldBlock).
	Decision Decision
	// Applied is what the engine did with it: Allow (went on), Block,
	// Error (a contributing failure), or the hook's decision for observers,
	// which cannot change anything. For error and timeout it shows how
	// on_timeout resolved them.
	Applied Decision
	// Reason is the hook's reason.
	Reason string
	// Cause is the error behind an error or timeout decision.
	Cause error
	// Duration is how long the hook took, condition included.
	Duration time.Duration
	// SideEffects is the handler's list of what it did.
	SideEffects []string
	// Stripped lists the fields of a rewrite the hook was not allowed to
	// make (dotted paths such as toolInput.command, or toolResult).
	Stripped []string
	// Observed is true for hooks run on the observer pool (or inline
	// observers): nothing waited for them.
	Observed bool
	// DryRun is true for a dry_run hook's execution: Decision is a
	// would-decision, Applied is Allow, and nothing waited for it.
	DryRun bool
	// Input is the event exactly as the hook saw it (after earlier
	// rewrites), for the audit's input hash. It must not be modified.
	Input *Event
}

// Recorder receives what the engine did, for metrics and the audit log.
// The engine calls it on the request path (and on observer workers), so
// implementations must return quickly: count, or hand the record to a
// bounded queue. A nil Recorder records nothing.
type Recorder interface {
	// HookExecuted is called once for every hook execution, synchronous or
	// observed, when it has ended.
	HookExecuted(x Execution)
	// ObserverDropped is called for each observing hook whose event was
	// dropped because the observer pool was full, and for each dry_run
	// hook whose run was (see DryRunRecorder).
	ObserverDropped(event EventName, hookID string)
	// MutationStripped is called when a hook's rewrite was (partly)
	// refused; fields are dotted paths.
	MutationStripped(hookID string, fields []string)
}

// DryRunRecorder is an optional capability of a Recorder: it hears, beside
// ObserverDropped, that the dropped run was a dry_run hook's, with the
// event it would have seen, so that a dry run's blind spots are counted
// apart from observers' and can be reported where its would-decisions are.
// ev is the engine's own copy: read it during the call, keep nothing of it
// but its strings, and never modify it. Like every Recorder method it runs
// on the request path and must not wait.
type DryRunRecorder interface {
	DryRunDropped(ev *Event, hookID string)
}

type nopRecorder struct{}

func (nopRecorder) HookExecuted(Execution)            {}
func (nopRecorder) ObserverDropped(EventName, string) {}
func (nopRecorder) MutationStripped(string, []string) {}
