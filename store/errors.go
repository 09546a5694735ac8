package store

import "errors"

var (
	// ErrNotFound: no row has the id (or key) asked for.
	ErrNotFound = errors.New("store: not found")
	// ErrNotPending: the confirmation request was already decided or
	// expired; the returned Confirmation shows by whom and how.
	ErrNotPending = errors.New("store: confirmation is no longer pending")
	// ErrMismatch: the decision names another tool or arguments hash than
	// the request it would decide.
	ErrMismatch = errors.New("store: decision does not match the request's tool and arguments")
	// ErrExpired: the confirmation request passed its expiry before the
	// decision arrived; it is now recorded as expired.
	ErrExpired = errors.New("store: confirmation expired")
	// ErrClosed: the store or the audit writer was closed.
	ErrClosed = errors.New("store: closed")
	// ErrAuditBackpressure: the audit queue has had no room for longer than
	// audit.max_wait under on_full: block; the request must be refused
	// (503) rather than run unrecorded.
	ErrAuditBackpressure = errors.New("store: audit queue full")
)
