package store

import (
	"context"
	"fmt"
)

// migration is one version of the schema, written for each driver. A
// migration is never edited once released: a change is a new version.
// Statements use IF NOT EXISTS so that a database created by hand, or a
// migration interrupted before its version was recorded, still applies.
type migration struct {
	version  int
	name     string
	sqlite   string
	postgres string
}

// migrations in order of version.
var migrations = []migration{
	{
		version: 1,
		name:    "hook_executions, confirmation_requests, sessions",
		sqlite: `
CREATE TABLE IF NOT EXISTS hook_executions (
	id           TEXT PRIMARY KEY,
	hook_id      TEXT,
	session_id   TEXT NOT NULL,
	event        TEXT NOT NULL,
	input_hash   TEXT NOT NULL,
	decision     TEXT NOT NULL,
	hook_version TEXT,
	side_effects TEXT,
	duration_ms  REAL NOT NULL DEFAULT 0,
	dedup_key    TEXT NOT NULL UNIQUE,
	error        TEXT,
	error_detail BLOB,
	created_at   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS hook_executions_created ON hook_executions (created_at);
CREATE INDEX IF NOT EXISTS hook_executions_session ON hook_executions (session_id, created_at);
CREATE INDEX IF NOT EXISTS hook_executions_hook ON hook_executions (hook_id, created_at);

CREATE TABLE IF NOT EXISTS confirmation_requests (
	id           TEXT PRIMARY KEY,
	status       TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
	tool         TEXT NOT NULL,
	session_id   TEXT NOT NULL,
	args_hash    TEXT NOT NULL,
	payload      TEXT NOT NULL,
	created_at   TEXT NOT NULL,
	expires_at   TEXT NOT NULL,
	responded_at TEXT,
	responded_by TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS confirmation_requests_one_pending
	ON confirmation_requests (session_id, tool, args_hash) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS confirmation_requests_status ON confirmation_requests (status, expires_at);

CREATE TABLE IF NOT EXISTS sessions (
	id         TEXT PRIMARY KEY,
	state      TEXT NOT NULL,
	updated_at TEXT NOT NULL,
	expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_expires ON sessions (expires_at);
`,
		postgres: `
CREATE TABLE IF NOT EXISTS hook_executions (
	id           text PRIMARY KEY,
	hook_id      text,
	session_id   text NOT NULL,
	event        text NOT NULL,
	input_hash   text NOT NULL,
	decision     text NOT NULL,
	hook_version text,
	side_effects jsonb,
	duration_ms  double precision NOT NULL DEFAULT 0,
	dedup_key    text NOT NULL UNIQUE,
	error        text,
	error_detail bytea,
	created_at   timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS hook_executions_created ON hook_executions (created_at);
CREATE INDEX IF NOT EXISTS hook_executions_session ON hook_executions (session_id, created_at);
CREATE INDEX IF NOT EXISTS hook_executions_hook ON hook_executions (hook_id, created_at);

CREATE TABLE IF NOT EXISTS confirmation_requests (
	id           uuid PRIMARY KEY,
	status       text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
	tool         text NOT NULL,
	session_id   text NOT NULL,
	args_hash    text NOT NULL,
	payload      text NOT NULL,
	created_at   timestamptz NOT NULL,
	expires_at   timestamptz NOT NULL,
	responded_at timestamptz,
	responded_by text
);
CREATE UNIQUE INDEX IF NOT EXISTS confirmation_requests_one_pending
	ON confirmation_requests (session_id, tool, args_hash) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS confirmation_requests_status ON confirmation_requests (status, expires_at);

CREATE TABLE IF NOT EXISTS sessions (
	id         text PRIMARY KEY,
	state      jsonb NOT NULL,
	updated_at timestamptz NOT NULL,
	expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_expires ON sessions (expires_at);
`,
	},
	{
		version: 2,
		name:    "tool_calls, tenant_settings",
		sqlite: `
CREATE TABLE IF NOT EXISTS tool_calls (
	id           TEXT PRIMARY KEY,
	tenant       TEXT NOT NULL DEFAULT '',
	session_id   TEXT NOT NULL,
	tool         TEXT NOT NULL,
	args_hash    TEXT NOT NULL,
	result_bytes INTEGER NOT NULL,
	latency_ms   REAL,
	created_at   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_calls_session ON tool_calls (session_id, created_at);

CREATE TABLE IF NOT EXISTS tenant_settings (
	tenant     TEXT PRIMARY KEY,
	read_only  INTEGER NOT NULL,
	updated_at TEXT NOT NULL,
	updated_by TEXT NOT NULL
);
`,
		postgres: `
CREATE TABLE IF NOT EXISTS tool_calls (
	id           text PRIMARY KEY,
	tenant       text NOT NULL DEFAULT '',
	session_id   text NOT NULL,
	tool         text NOT NULL,
	args_hash    text NOT NULL,
	result_bytes bigint NOT NULL,
	latency_ms   double precision,
	created_at   timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_calls_session ON tool_calls (session_id, created_at);

CREATE TABLE IF NOT EXISTS tenant_settings (
	tenant     text PRIMARY KEY,
	read_only  boolean NOT NULL,
	updated_at timestamptz NOT NULL,
	updated_by text NOT NULL
);
`,
	},
	{
		version: 3,
		name:    "hook_executions: tool, tenant, agent, reason",
		sqlite: `
ALTER TABLE hook_executions ADD COLUMN tool   TEXT NOT NULL DEFAULT '';
ALTER TABLE hook_executions ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
ALTER TABLE hook_executions ADD COLUMN agent  TEXT NOT NULL DEFAULT '';
ALTER TABLE hook_executions ADD COLUMN reason TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS hook_executions_hook_tool ON hook_executions (hook_id, tool, decision);
CREATE INDEX IF NOT EXISTS hook_executions_tool ON hook_executions (tool, created_at);
CREATE INDEX IF NOT EXISTS hook_executions_tenant ON hook_executions (tenant, created_at);
CREATE INDEX IF NOT EXISTS hook_executions_agent ON hook_executions (agent, created_at);
`,
		postgres: `
ALTER TABLE hook_executions
	ADD COLUMN IF NOT EXISTS tool   text NOT NULL DEFAULT '',
	ADD COLUMN IF NOT EXISTS tenant text NOT NULL DEFAULT '',
	ADD COLUMN IF NOT EXISTS agent  text NOT NULL DEFAULT '',
	ADD COLUMN IF NOT EXISTS reason text NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS hook_executions_hook_tool ON hook_executions (hook_id, tool, decision);
CREATE INDEX IF NOT EXISTS hook_executions_tool ON hook_executions (tool, created_at);
CREATE INDEX IF NOT EXISTS hook_executions_tenant ON hook_executions (tenant, created_at);
CREATE INDEX IF NOT EXISTS hook_executions_agent ON hook_executions (agent, created_at);
`,
	},
	{
		version: 4,
		name:    "captured_events",
		sqlite: `
CREATE TABLE IF NOT EXISTS captured_events (
	id         TEXT PRIMARY KEY,
	session_id TEXT NOT NULL,
	event      TEXT NOT NULL,
	tenant     TEXT NOT NULL DEFAULT '',
	agent      TEXT NOT NULL DEFAULT '',
	tool       TEXT NOT NULL DEFAULT '',
	decision   TEXT NOT NULL,
	decided_by TEXT NOT NULL DEFAULT '',
	sealed     BLOB NOT NULL,
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS captured_events_created ON captured_events (created_at);
CREATE INDEX IF NOT EXISTS captured_events_session ON captured_events (session_id, created_at);
CREATE INDEX IF NOT EXISTS captured_events_expires ON captured_events (expires_at);
`,
		postgres: `
CREATE TABLE IF NOT EXISTS captured_events (
	id         text PRIMARY KEY,
	session_id text NOT NULL,
	event      text NOT NULL,
	tenant     text NOT NULL DEFAULT '',
	agent      text NOT NULL DEFAULT '',
	tool       text NOT NULL DEFAULT '',
	decision   text NOT NULL,
	decided_by text NOT NULL DEFAULT '',
	sealed     bytea NOT NULL,
	created_at timestamptz NOT NULL,
	expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS captured_events_created ON captured_events (created_at);
CREATE INDEX IF NOT EXISTS captured_events_session ON captured_events (session_id, created_at);
CREATE INDEX IF NOT EXISTS captured_events_expires ON captured_events (expires_at);
`,
	},
	{
		version: 5,
		name:    "confirmation_requests: comment",
		sqlite: `
ALTER TABLE confirmation_requests ADD COLUMN comment TEXT NOT NULL DEFAULT '';
`,
		postgres: `
ALTER TABLE confirmation_requests ADD COLUMN IF NOT EXISTS comment text NOT NULL DEFAULT '';
`,
	},
	{
		version: 6,
		name:    "console_revocations",
		sqlite: `
CREATE TABLE IF NOT EXISTS console_revocations (
	id         TEXT PRIMARY KEY,
	revoked_by TEXT NOT NULL DEFAULT '',
	revoked_at TEXT NOT NULL,
	expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS console_revocations_expires ON console_revocations (expires_at);
`,
		postgres: `
CREATE TABLE IF NOT EXISTS console_revocations (
	id         text PRIMARY KEY,
	revoked_by text NOT NULL DEFAULT '',
	revoked_at timestamptz NOT NULL,
	expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS console_revocations_expires ON console_revocations (expires_at);
`,
	},
}

// migrateLockKey serialises migrations between instances sharing a
// PostgreSQL database (an advisory lock; SQLite's immediate transaction
// does the same for a file).
const migrateLockKey = 0x686f6f6b67617465 // "hookgate"

// migrate applies the migrations the database lacks, all in one
// transaction.
func (s *Store) migrate(ctx context.Context) error {
	return s.b.write(ctx, func(q querier) error {
		if s.driver == Postgres {
			if _, err := q.exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrateLockKey)); err != nil {
				return fmt.Errorf("lock: %w", err)
			}
		}
		const create = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    integer PRIMARY KEY,
	name       text NOT NULL,
	applied_at %s NOT NULL
)`
		colType := "TEXT"
		if s.driver == Postgres {
			colType = "timestamptz"
		}
		if _, err := q.exec(ctx, fmt.Sprintf(create, colType)); err != nil {
			return fmt.Errorf("schema_migrations: %w", err)
		}
		applied, err := appliedVersions(ctx, q)
		if err != nil {
			return err
		}
		newest := 0
		for v := range applied {
			newest = max(newest, v)
		}
		if known := migrations[len(migrations)-1].version; newest > known {
			s.log.Warn("store schema is newer than this hookgate knows; running on it anyway",
				"schema_version", newest, "known_version", known)
		}
		for _, m := range migrations {
			if applied[m.version] {
				continue
			}
			ddl := m.sqlite
			if s.driver == Postgres {
				ddl = m.postgres
			}
			if _, err := q.exec(ctx, ddl); err != nil {
				return fmt.Errorf("version %d (%s): %w", m.version, m.name, err)
			}
			if _, err := q.exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
				m.version, m.name, s.at(s.now())); err != nil {
				return fmt.Errorf("record version %d: %w", m.version, err)
			}
			s.log.Info("store schema migrated", "driver", string(s.driver), "version", m.version, "name", m.name)
		}
		return nil
	})
}

func appliedVersions(ctx context.Context, q querier) (map[int]bool, error) {
	rs, err := q.query(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	defer rs.Close()
	out := map[int]bool{}
	for rs.Next() {
		var v int
		if err := rs.Scan(&v); err != nil {
			return nil, fmt.Errorf("read schema_migrations: %w", err)
		}
		out[v] = true
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	return out, nil
}

// SchemaVersion is the newest migration applied to the database.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.b.reader().queryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: schema version: %w", err)
	}
	return v, nil
}
