package store

import (
	"context"
	"fmt"
)

// ListEndedConfirmations lists the requests that are no longer pending
// (answered or expired), newest first, at most limit of them.
func (s *Store) ListEndedConfirmations(ctx context.Context, limit int) ([]Confirmation, error) {
	rs, err := s.b.reader().query(ctx, `SELECT `+confirmationCols+` FROM confirmation_requests WHERE status <> $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
		string(Pending), limit)
	if err != nil {
		return nil, fmt.Errorf("store: list ended confirmations: %w", err)
	}
	defer rs.Close()
	var out []Confirmation
	for rs.Next() {
		c, err := scanConfirmation(rs)
		if err != nil {
			return nil, fmt.Errorf("store: list ended confirmations: %w", err)
		}
		out = append(out, c)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: list ended confirmations: %w", err)
	}
	return out, nil
}
