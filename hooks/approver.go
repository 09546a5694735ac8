package hooks

import (
	"context"
	"time"
)

// Approver asks a person whether a tool call may proceed and waits for the
// answer: the approval gate implements it (package approvals), the
// built-in `approval` hook calls it through Deps. An error (the store is
// down, the wait was cancelled) fails closed like any handler error.
type Approver interface {
	Ask(ctx context.Context, q ApprovalQuestion) (ApprovalAnswer, error)
}

// ApprovalQuestion is one tool call put to a person.
type ApprovalQuestion struct {
	// HookID is the asking hook; Channel the configured channel to ask in.
	HookID  string
	Channel string
	// Timeout is how long the question stays open before it expires.
	Timeout time.Duration
	// Event is the pre_tool_use event (tool, input, session).
	Event *Event
}

// ApprovalAnswer is how a question ended.
type ApprovalAnswer struct {
	// ID is the approval request's id (the audit and the admin API use it).
	ID string
	// Approved is true when a person said yes; Expired when nobody answered
	// in time (which blocks, but is not a rejection).
	Approved, Expired bool
	// By names who answered.
	By string
	// SideEffects say what the gate did ("posted approval card ... to ops").
	SideEffects []string
}
