package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Lead is a job's ownership: while this instance holds it, no other
// instance on the same database and schema does. On PostgreSQL it is a
// session advisory lock on a connection of its own, so it ends with that
// connection too (a crash, a cut): another instance takes the job over at
// its next try. On SQLite one process owns the file, and a Lead is always
// granted.
type Lead struct {
	conn *pgx.Conn // nil on SQLite
	key  int64
}

// TryLead takes the lead of job (a name such as "approval-expiry") without
// waiting: nil, nil when another instance holds it.
func (s *Store) TryLead(ctx context.Context, job string) (*Lead, error) {
	if s.pg == nil {
		return &Lead{}, nil
	}
	sum := sha256.Sum256([]byte("hookgate lead " + job + " " + s.pg.tag))
	key := int64(binary.BigEndian.Uint64(sum[:8]))
	conn, err := pgx.ConnectConfig(ctx, s.pg.ownConnConfig("lead"))
	if err != nil {
		return nil, fmt.Errorf("store: lead %s: %w", job, err)
	}
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&got); err != nil {
		_ = conn.Close(context.WithoutCancel(ctx)) // the query's error is the one to report
		return nil, fmt.Errorf("store: lead %s: %w", job, err)
	}
	if !got {
		_ = conn.Close(context.WithoutCancel(ctx)) // nothing held on it
		return nil, nil
	}
	return &Lead{conn: conn, key: key}, nil
}

// Held reports whether the lead is still this instance's: its connection
// answers. A lead found lost is released; take it again with TryLead.
func (l *Lead) Held(ctx context.Context) bool {
	if l.conn == nil {
		return true
	}
	if l.conn.IsClosed() {
		return false
	}
	if err := l.conn.Ping(ctx); err != nil {
		_ = l.conn.Close(context.WithoutCancel(ctx)) // already broken
		return false
	}
	return true
}

// Release gives the lead up, so another instance takes it at its next
// try rather than when this connection is found dead.
func (l *Lead) Release(ctx context.Context) error {
	if l == nil || l.conn == nil || l.conn.IsClosed() {
		return nil
	}
	// Closing the connection would end the lock too; unlocking first
	// says so at once.
	defer func() { _ = l.conn.Close(context.WithoutCancel(ctx)) }()
	if _, err := l.conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, l.key); err != nil {
		return fmt.Errorf("store: release lead: %w", err)
	}
	return nil
}
