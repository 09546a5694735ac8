package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// LockedSession is one session's saved state, held under the session's
// lock from LockSession until Save or Release. While one holder has it,
// LockSession for the same id waits: in this process for SQLite, across
// every instance for PostgreSQL (a row lock, SELECT ... FOR UPDATE, held
// by a transaction on one pooled connection).
type LockedSession struct {
	// ID is the session's id.
	ID string
	// State is the JSON saved last; nil when the session is new or its
	// saved state has expired.
	State []byte
	// ExpiresAt is when State expires; zero when State is nil.
	ExpiresAt time.Time

	s      *Store
	tx     pgx.Tx // PostgreSQL: the transaction holding the row lock
	unlock func()
	done   bool
}

// LockSession locks the session id and reads its state. The caller must
// end with Save or Release; until then other holders of the id wait, so
// keep the lock short and bound ctx.
func (s *Store) LockSession(ctx context.Context, id string) (*LockedSession, error) {
	unlock, err := s.locks.lock(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("store: lock session: %w", err)
	}
	l := &LockedSession{ID: id, s: s, unlock: unlock}
	now := s.clock()
	var state []byte
	var exp timeCol
	if s.pg == nil {
		// ctx bounds the wait for the lock above, and the wait for a
		// reader connection; the read itself runs without its
		// cancellation when a connection is free (readContext).
		err = s.b.reader().queryRow(s.b.(*sqliteBackend).readContext(ctx), `SELECT state, expires_at FROM sessions WHERE id = $1`, id).Scan(&state, &exp)
		if errors.Is(err, ErrNotFound) {
			err = nil
		}
	} else {
		err = l.lockRow(ctx, now, &state, &exp)
	}
	if err != nil {
		l.Release()
		return nil, fmt.Errorf("store: lock session: %w", err)
	}
	if exp.Valid && exp.Time.After(now) {
		l.State, l.ExpiresAt = state, exp.Time
	}
	return l, nil
}

// lockRow makes sure the session's row exists (an expired placeholder when
// new, so that there is a row to lock; a concurrent creator makes this
// wait for it) and locks it until the transaction ends.
func (l *LockedSession) lockRow(ctx context.Context, now time.Time, state *[]byte, exp *timeCol) error {
	tx, err := l.s.pg.begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	l.tx = tx
	if _, err := tx.Exec(ctx, `INSERT INTO sessions (id, state, updated_at, expires_at) VALUES ($1, 'null', $2, $2)
ON CONFLICT (id) DO NOTHING`, l.ID, now); err != nil {
		return err
	}
	return pgRow{tx.QueryRow(ctx, `SELECT state, expires_at FROM sessions WHERE id = $1 FOR UPDATE`, l.ID)}.Scan(state, exp)
}

// Save writes state (JSON) with its expiry and releases the lock. The
// lock is released even when the write fails.
func (l *LockedSession) Save(ctx context.Context, state []byte, expiresAt time.Time) error {
	if l.done {
		return fmt.Errorf("store: save session: %w", ErrClosed)
	}
	defer l.Release()
	now := l.s.clock()
	var err error
	if l.tx != nil {
		if _, err = l.tx.Exec(ctx, `UPDATE sessions SET state = $2, updated_at = $3, expires_at = $4 WHERE id = $1`,
			l.ID, string(state), now, expiresAt.UTC()); err == nil {
			err = l.tx.Commit(ctx)
		}
	} else {
		err = l.s.b.write(ctx, func(q querier) error {
			_, err := q.exec(ctx, `INSERT INTO sessions (id, state, updated_at, expires_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at, expires_at = excluded.expires_at`,
				l.ID, string(state), l.s.at(now), l.s.at(expiresAt))
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("store: save session: %w", err)
	}
	return nil
}

// Release lets the session go without saving. It is idempotent and a
// no-op after Save.
func (l *LockedSession) Release() {
	if l.done {
		return
	}
	l.done = true
	if l.tx != nil {
		// Rolling back a committed transaction is harmless; bounded so
		// that a dead connection cannot hold the caller.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		l.tx.Rollback(ctx)
		cancel()
	}
	l.unlock()
}

// ExpireSessions deletes the sessions whose state has expired and returns
// how many. Sessions locked at the moment are left for the next sweep.
func (s *Store) ExpireSessions(ctx context.Context) (int64, error) {
	q := `DELETE FROM sessions WHERE expires_at <= $1`
	if s.pg != nil {
		q = `DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE expires_at <= $1 FOR UPDATE SKIP LOCKED)`
	}
	var n int64
	err := s.write(ctx, "expire sessions", func(qr querier) error {
		var err error
		n, err = qr.exec(ctx, q, s.at(s.clock()))
		return err
	})
	return n, err
}
