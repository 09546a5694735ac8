package store

import (
	"context"
	"fmt"
	"time"
)

// FindAnsweredConfirmation returns the newest request for a session's call
// that a person answered (approved or rejected) at or after since, or
// ErrNotFound. The approval gate honours such an answer when the agent
// retries the call: an answer given while hookgate was down, or through
// another instance, is not lost, and no second card is posted.
func (s *Store) FindAnsweredConfirmation(ctx context.Context, sessionID, tool, argsHash string, since time.Time) (Confirmation, error) {
	c, err := scanConfirmation(s.b.reader().queryRow(ctx, `SELECT `+confirmationCols+` FROM confirmation_requests
WHERE session_id = $1 AND tool = $2 AND args_hash = $3 AND status IN ('approved', 'rejected') AND responded_at >= $4
ORDER BY responded_at DESC, id LIMIT 1`,
		sessionID, tool, argsHash, s.at(since.UTC().Truncate(time.Microsecond))))
	if err != nil {
		return Confirmation{}, fmt.Errorf("store: find answered confirmation: %w", err)
	}
	return c, nil
}
