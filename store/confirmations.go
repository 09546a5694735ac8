package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// ConfirmationStatus is where a confirmation request stands.
type ConfirmationStatus string

// A request starts Pending and ends in exactly one of the others.
const (
	Pending  ConfirmationStatus = "pending"
	Approved ConfirmationStatus = "approved"
	Rejected ConfirmationStatus = "rejected"
	// Expired: nobody answered before ExpiresAt. It blocks like a
	// rejection but is not one.
	Expired ConfirmationStatus = "expired"
)

// Valid reports whether st is one of the four statuses.
func (st ConfirmationStatus) Valid() bool {
	switch st {
	case Pending, Approved, Rejected, Expired:
		return true
	}
	return false
}

// Confirmation is a row of confirmation_requests: one tool call waiting
// for a person's yes or no.
type Confirmation struct {
	ID        string // a UUID
	Status    ConfirmationStatus
	Tool      string
	SessionID string
	// ArgsHash identifies the call's arguments; a decision is bound to it.
	ArgsHash string
	// Payload is what the approver is shown (opaque to the store).
	Payload   string
	CreatedAt time.Time
	ExpiresAt time.Time
	// RespondedAt is when the request left Pending (decided or expired);
	// zero while pending.
	RespondedAt time.Time
	// RespondedBy names who decided (an admin token's name, a channel's
	// user id); empty while pending and for expired requests.
	RespondedBy string
	// Comment is the approver's optional note with the answer (at most
	// CommentMax characters); empty while pending and for expired
	// requests.
	Comment string
}

// CommentMax bounds an approver's comment, in characters.
const CommentMax = 500

// NewConfirmation is what CreateConfirmation needs.
type NewConfirmation struct {
	Tool, SessionID, ArgsHash, Payload string
	// ExpiresAt is when the request expires unanswered; it must be later
	// than now.
	ExpiresAt time.Time
}

// Verdict is a person's answer to a confirmation request.
type Verdict struct {
	ID string
	// Status is Approved or Rejected.
	Status ConfirmationStatus
	// Tool and ArgsHash must equal the request's: an answer given for one
	// call can never release another.
	Tool, ArgsHash string
	// By names who answered (recorded as responded_by).
	By string
	// Comment is the approver's optional note; longer than CommentMax
	// characters, it is cut.
	Comment string
}

const confirmationCols = `id, status, tool, session_id, args_hash, payload, created_at, expires_at, responded_at, responded_by, comment`

func scanConfirmation(r row) (Confirmation, error) {
	var c Confirmation
	var status string
	var created, expires, responded timeCol
	var by sql.NullString
	if err := r.Scan(&c.ID, &status, &c.Tool, &c.SessionID, &c.ArgsHash, &c.Payload, &created, &expires, &responded, &by, &c.Comment); err != nil {
		return Confirmation{}, err
	}
	c.Status = ConfirmationStatus(status)
	c.CreatedAt, c.ExpiresAt, c.RespondedAt, c.RespondedBy = created.Time, expires.Time, responded.Time, by.String
	return c, nil
}

// CreateConfirmation inserts a pending request, unless one is already
// pending for the same session, tool and arguments hash: then that one is
// returned with created false, so that a call retried after a restart (or
// reaching another instance) re-attaches to it instead of asking twice. A
// pending request for the same call that is past its expiry is marked
// expired first.
func (s *Store) CreateConfirmation(ctx context.Context, n NewConfirmation) (c Confirmation, created bool, err error) {
	now := s.clock()
	if !n.ExpiresAt.After(now) {
		return Confirmation{}, false, fmt.Errorf("store: create confirmation: expiry %s is not in the future", n.ExpiresAt.Format(time.RFC3339))
	}
	id := uuid.NewString()
	err = s.write(ctx, "create confirmation", func(q querier) error {
		if _, err := q.exec(ctx, `UPDATE confirmation_requests SET status = 'expired', responded_at = $4
WHERE session_id = $1 AND tool = $2 AND args_hash = $3 AND status = 'pending' AND expires_at <= $4`,
			n.SessionID, n.Tool, n.ArgsHash, s.at(now)); err != nil {
			return err
		}
		c, err = scanConfirmation(q.queryRow(ctx, `INSERT INTO confirmation_requests
	(id, status, tool, session_id, args_hash, payload, created_at, expires_at)
VALUES ($1, 'pending', $2, $3, $4, $5, $6, $7)
ON CONFLICT (session_id, tool, args_hash) WHERE status = 'pending' DO NOTHING
RETURNING `+confirmationCols,
			id, n.Tool, n.SessionID, n.ArgsHash, n.Payload, s.at(now), s.at(n.ExpiresAt)))
		if err == nil {
			created = true
			return nil
		}
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		c, err = scanConfirmation(q.queryRow(ctx, `SELECT `+confirmationCols+` FROM confirmation_requests
WHERE session_id = $1 AND tool = $2 AND args_hash = $3 AND status = 'pending'`, n.SessionID, n.Tool, n.ArgsHash))
		return err
	})
	return c, created, err
}

// GetConfirmation reads one request; ErrNotFound when there is none.
func (s *Store) GetConfirmation(ctx context.Context, id string) (Confirmation, error) {
	if uuid.Validate(id) != nil {
		return Confirmation{}, fmt.Errorf("store: confirmation %q: %w", id, ErrNotFound)
	}
	c, err := scanConfirmation(s.b.reader().queryRow(ctx, `SELECT `+confirmationCols+` FROM confirmation_requests WHERE id = $1`, id))
	if err != nil {
		return Confirmation{}, fmt.Errorf("store: confirmation %s: %w", id, err)
	}
	return c, nil
}

// ListConfirmations lists requests with the given status ("" for all),
// oldest first, at most limit of them (limit <= 0: all).
func (s *Store) ListConfirmations(ctx context.Context, status ConfirmationStatus, limit int) ([]Confirmation, error) {
	q := `SELECT ` + confirmationCols + ` FROM confirmation_requests WHERE ($1 = '' OR status = $1) ORDER BY created_at, id`
	args := []any{string(status)}
	if limit > 0 {
		q += ` LIMIT $2`
		args = append(args, limit)
	}
	rs, err := s.b.reader().query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list confirmations: %w", err)
	}
	defer rs.Close()
	var out []Confirmation
	for rs.Next() {
		c, err := scanConfirmation(rs)
		if err != nil {
			return nil, fmt.Errorf("store: list confirmations: %w", err)
		}
		out = append(out, c)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: list confirmations: %w", err)
	}
	return out, nil
}

// findPendingConfirmation returns the unexpired pending request for a
// session's call, or ErrNotFound.
func (s *Store) findPendingConfirmation(ctx context.Context, sessionID, tool, argsHash string) (Confirmation, error) {
	c, err := scanConfirmation(s.b.reader().queryRow(ctx, `SELECT `+confirmationCols+` FROM confirmation_requests
WHERE session_id = $1 AND tool = $2 AND args_hash = $3 AND status = 'pending' AND expires_at > $4`,
		sessionID, tool, argsHash, s.at(s.clock())))
	if err != nil {
		return Confirmation{}, fmt.Errorf("store: find pending confirmation: %w", err)
	}
	return c, nil
}

// DecideConfirmation records an approver's answer. It is one conditional
// UPDATE (the request must be pending, unexpired, and for v.Tool and
// v.ArgsHash), so of two concurrent answers exactly one wins, on any
// number of instances. On PostgreSQL the winning answer is notified
// (TopicApproval, the id only) in the same transaction, so every
// instance's listener hears it as it commits. It returns the decided
// request, or:
//   - ErrNotFound: no request has the id;
//   - ErrNotPending: it was already decided or expired (the returned
//     request says how and by whom);
//   - ErrMismatch: the tool or arguments hash differ;
//   - ErrExpired: it passed its expiry unanswered (now recorded as
//     expired).
func (s *Store) DecideConfirmation(ctx context.Context, v Verdict) (Confirmation, error) {
	if v.Status != Approved && v.Status != Rejected {
		return Confirmation{}, fmt.Errorf("store: decide confirmation: status %q is not approved or rejected", v.Status)
	}
	if uuid.Validate(v.ID) != nil {
		return Confirmation{}, fmt.Errorf("store: decide confirmation %q: %w", v.ID, ErrNotFound)
	}
	now := s.clock()
	var c Confirmation
	var outcome error
	err := s.write(ctx, "decide confirmation", func(q querier) error {
		var err error
		c, err = scanConfirmation(q.queryRow(ctx, `UPDATE confirmation_requests
SET status = $2, responded_at = $3, responded_by = $4, comment = $7
WHERE id = $1 AND status = 'pending' AND tool = $5 AND args_hash = $6 AND expires_at > $3
RETURNING `+confirmationCols, v.ID, string(v.Status), s.at(now), v.By, v.Tool, v.ArgsHash, cutComment(v.Comment)))
		if err == nil {
			// Every instance holding the call hears it at commit.
			return s.notify(ctx, q, TopicApproval, v.ID)
		}
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		// Lost: say why, from the row as it is now.
		c, err = scanConfirmation(q.queryRow(ctx, `SELECT `+confirmationCols+` FROM confirmation_requests WHERE id = $1`, v.ID))
		if err != nil {
			return err
		}
		switch {
		case c.Status != Pending:
			outcome = ErrNotPending
		case c.Tool != v.Tool || c.ArgsHash != v.ArgsHash:
			outcome = ErrMismatch
		default:
			outcome = ErrExpired
			c, err = scanConfirmation(q.queryRow(ctx, `UPDATE confirmation_requests SET status = 'expired', responded_at = $2
WHERE id = $1 AND status = 'pending' RETURNING `+confirmationCols, v.ID, s.at(now)))
			if errors.Is(err, ErrNotFound) {
				// Someone else moved it on in between: report that instead.
				c, err = scanConfirmation(q.queryRow(ctx, `SELECT `+confirmationCols+` FROM confirmation_requests WHERE id = $1`, v.ID))
				outcome = ErrNotPending
			}
			return err
		}
		return nil
	})
	if err != nil {
		return Confirmation{}, fmt.Errorf("store: decide confirmation %s: %w", v.ID, err)
	}
	if outcome != nil {
		return c, fmt.Errorf("store: decide confirmation %s (%s): %w", v.ID, c.Status, outcome)
	}
	return c, nil
}

// ExpireConfirmations marks every pending request past its expiry as
// expired and returns their ids.
func (s *Store) ExpireConfirmations(ctx context.Context) ([]string, error) {
	var ids []string
	err := s.write(ctx, "expire confirmations", func(q querier) error {
		rs, err := q.query(ctx, `UPDATE confirmation_requests SET status = 'expired', responded_at = $1
WHERE status = 'pending' AND expires_at <= $1 RETURNING id`, s.at(s.clock()))
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var id string
			if err := rs.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rs.Err()
	})
	return ids, err
}

// cutComment keeps the first CommentMax characters of a comment, on a
// character boundary.
func cutComment(s string) string {
	n := 0
	for i := range s {
		if n == CommentMax {
			return s[:i]
		}
		n++
	}
	return s
}
