package hooks

import (
	"context"
	"errors"
	"log/slog"
)

// This file holds what the client is told when a hook fails (an error or a
// timeout rather than a verdict), and where the failure's detail goes
// instead.
//
// The note reaches the agent and, through it, the model's context, so it
// says only which hook failed and that the call was failed closed: never
// the error's text. Errors carry internal detail (store errors such as
// SQLITE_BUSY, policy-server and judge addresses, HTTP statuses, file
// paths, script stack positions) that is the operator's business. The full
// error stays in Execution.Cause, which the audit stores (cut, and sealed
// in full under audit.key_env), and in the log line hookFailed writes.

// failureNote is the reason shown to the client for a hook that ended in
// decision (Error or Timeout) with cause. It names the hook (ids are
// validated at load, so they carry nothing to escape) and never quotes
// cause. The notes are stable strings: clients and tests may match them.
func failureNote(id string, decision Decision, cause error) string {
	switch {
	case decision == Timeout:
		return "hook " + id + " timed out (fail-closed)"
	case errors.Is(cause, ErrBreakerOpen):
		return "hook " + id + " unavailable: circuit breaker open (fail-closed)"
	default:
		return "hook " + id + " failed (fail-closed)"
	}
}

// hookFailed logs a hook's error or timeout with its full cause, and
// returns the note the client gets in its place. Calls refused by an open
// circuit breaker are logged at debug level: the breaker's opening was
// logged once as a warning, and a busy agent would otherwise flood the log
// with one line per refused call.
func (e *Engine) hookFailed(h *hook, x *Execution) string {
	level := slog.LevelWarn
	if errors.Is(x.Cause, ErrBreakerOpen) {
		level = slog.LevelDebug
	}
	outcome := "blocked"
	switch {
	case h.failOpen:
		outcome = "allowed (on_timeout)"
	case h.class != Blocking:
		outcome = "failed"
	}
	e.log.Log(context.Background(), level, "hook failed", "hook", h.id, "event", h.event, "decision", x.Decision, "outcome", outcome, "err", x.Cause)
	return failureNote(h.id, x.Decision, x.Cause)
}
