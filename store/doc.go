// Package store is hookgate's persistence: the audit log of hook
// executions, the confirmation requests of the approval gate, and session
// memory. It knows nothing of hooks' logic: callers hand it rows.
//
// # Drivers
//
// SQLite (the default, pure Go through modernc.org/sqlite) keeps everything
// in one file in WAL mode, with one writer connection (a busy timeout,
// immediate transactions) and a separate pool of read-only readers. One
// process owns a file: per-session locks are process-local. The path
// ":memory:" keeps a private in-memory database on a single connection, for
// demos and tests; nothing survives.
//
// PostgreSQL (github.com/jackc/pgx/v5 through pgxpool) serves several
// hookgate instances sharing state: sessions are locked with SELECT ... FOR
// UPDATE inside a transaction, and a confirmation is decided with one
// conditional UPDATE, so two approvers on two instances cannot both win.
//
// Open applies the schema migrations (versioned, idempotent, serialised
// between instances) before it returns.
//
// # Notifications and leads
//
// On PostgreSQL, a store opened with Options.Listen keeps one connection
// of its own listening (notify.go): an answered confirmation
// (TopicApproval, its id) and a changed tenant setting (TopicSettings, the
// tenant) are notified inside the transaction that writes them, whichever
// instance or process writes, and Watch hands them to the instance's
// watchers. Live says whether they are heard; when the connection is lost
// the listener reconnects and announces TopicResync, so watchers look once
// at what they may have missed. Channels are named per schema.
//
// TryLead (lead.go) gives a job to one instance at a time: a session
// advisory lock on a connection of its own. SQLite hears nothing (Live is
// false: callers poll) and grants every lead.
//
// # Tables
//
//   - hook_executions: one row per hook execution (AuditWriter batches them
//     off the request path). The input is kept only as the SHA-256 of its
//     RFC 8785 canonical form, the error text is cut to 256 characters, and
//     the full error is sealed with AES-256-GCM under the audit key
//     (error_detail). dedup_key (hook id, event id, execution id) is
//     unique: every run of a hook has its own row, a resent event judged
//     again included, and a batch the writer delivers twice is recorded
//     once. hook_id becomes NULL when the hook leaves the configuration
//     (DetachRemovedHooks); the row stays.
//   - confirmation_requests: the approval gate's requests: pending, then
//     approved, rejected or expired, each transition a conditional UPDATE;
//     an answer carries who gave it and their optional comment.
//   - sessions: a session's state as JSON, with its expiry.
//   - schema_migrations: the versions applied.
//
// # Errors
//
// Lookups that find nothing return ErrNotFound; a confirmation that cannot
// be decided returns ErrNotPending, ErrMismatch or ErrExpired, all wrapped,
// to be tested with errors.Is. Every other error wraps the driver's.
package store
