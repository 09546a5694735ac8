package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// RevokeConsoleSession records that the console session id was logged
// out: every instance on this database refuses its cookie from now until
// expires (the cookie's own expiry, after which it is refused anyway).
// Revocations whose expiry passed are purged in the same transaction, so
// the table holds only sessions that could still be presented. Revoking
// an id twice keeps the later expiry.
func (s *Store) RevokeConsoleSession(ctx context.Context, id, by string, expires time.Time) error {
	if id == "" {
		return errors.New("store: revoke console session: no id")
	}
	now := s.clock()
	return s.write(ctx, "revoke console session", func(q querier) error {
		if _, err := q.exec(ctx, `DELETE FROM console_revocations WHERE expires_at <= $1`, s.at(now)); err != nil {
			return err
		}
		_, err := q.exec(ctx, `INSERT INTO console_revocations (id, revoked_by, revoked_at, expires_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (id) DO UPDATE SET expires_at = CASE WHEN excluded.expires_at > console_revocations.expires_at
	THEN excluded.expires_at ELSE console_revocations.expires_at END`,
			id, by, s.at(now), s.at(expires))
		return err
	})
}

// ConsoleSessionRevoked reports whether the console session id was
// logged out (one primary-key lookup; BenchmarkConsoleSessionRevoked).
func (s *Store) ConsoleSessionRevoked(ctx context.Context, id string) (bool, error) {
	var one int
	err := s.b.reader().queryRow(ctx, `SELECT 1 FROM console_revocations WHERE id = $1`, id).Scan(&one)
	switch {
	case errors.Is(err, ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("store: console session revoked: %w", err)
	}
	return true, nil
}

// CountConsoleRevocations counts the revocations kept, expired ones not
// yet purged included.
func (s *Store) CountConsoleRevocations(ctx context.Context) (int64, error) {
	var n int64
	if err := s.b.reader().queryRow(ctx, `SELECT COUNT(*) FROM console_revocations`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count console revocations: %w", err)
	}
	return n, nil
}
