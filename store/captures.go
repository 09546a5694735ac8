package store

import (
	"context"
	"fmt"
	"time"
)

// Capture is a row of captured_events: one dispatched event kept, sealed,
// for `hookgate replay` (audit.capture_events). Only the columns a report
// groups by are plain; the event's JSON and the reasons are in Sealed.
type Capture struct {
	// ID is time-ordered (UUID v7); it is the sealed blob's additional
	// data, so a blob moved to another row does not open.
	ID        string
	SessionID string
	Event     string
	Tenant    string
	Agent     string
	Tool      string
	// Decision is the chain's verdict (allow, rewrite, block, error) and
	// DecidedBy the hook that blocked or failed, if any.
	Decision  string
	DecidedBy string
	// Sealed is the captured record (JSON) sealed under the audit key
	// (AuditKey.OpenCapture reads it).
	Sealed    []byte
	CreatedAt time.Time
	ExpiresAt time.Time
}

// CaptureFilter selects captured events; zero fields select everything.
type CaptureFilter struct {
	SessionID string
	// Since keeps events captured at or after it.
	Since time.Time
}

const captureCols = `id, session_id, event, tenant, agent, tool, decision, decided_by, sealed, created_at, expires_at`

// InsertCaptures writes captured events in one transaction; a row whose id
// exists is skipped (a batch written twice). It returns how many were new.
func (s *Store) InsertCaptures(ctx context.Context, rows []Capture) (int64, error) {
	var inserted int64
	err := s.write(ctx, "insert captured events", func(q querier) error {
		for _, r := range rows {
			n, err := q.exec(ctx, `INSERT INTO captured_events (`+captureCols+`)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
				r.ID, r.SessionID, r.Event, r.Tenant, r.Agent, r.Tool, r.Decision, r.DecidedBy, r.Sealed,
				s.at(r.CreatedAt), s.at(r.ExpiresAt))
			if err != nil {
				return err
			}
			inserted += n
		}
		return nil
	})
	return inserted, err
}

// ListCaptures returns the captured events f selects that have not
// expired, oldest first (the order they were dispatched in).
func (s *Store) ListCaptures(ctx context.Context, f CaptureFilter) ([]Capture, error) {
	since := f.Since
	if since.IsZero() {
		since = time.Unix(0, 0)
	}
	rs, err := s.b.reader().query(ctx, `SELECT `+captureCols+` FROM captured_events
WHERE ($1 = '' OR session_id = $1) AND created_at >= $2 AND expires_at > $3
ORDER BY created_at, id`, f.SessionID, s.at(since), s.at(s.clock()))
	if err != nil {
		return nil, fmt.Errorf("store: list captured events: %w", err)
	}
	defer rs.Close()
	var out []Capture
	for rs.Next() {
		var r Capture
		var created, expires timeCol
		if err := rs.Scan(&r.ID, &r.SessionID, &r.Event, &r.Tenant, &r.Agent, &r.Tool, &r.Decision, &r.DecidedBy,
			&r.Sealed, &created, &expires); err != nil {
			return nil, fmt.Errorf("store: list captured events: %w", err)
		}
		r.CreatedAt, r.ExpiresAt = created.Time, expires.Time
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: list captured events: %w", err)
	}
	return out, nil
}

// PurgeCaptures deletes the captured events that have expired (all of
// them when all is true) and returns how many.
func (s *Store) PurgeCaptures(ctx context.Context, all bool) (int64, error) {
	q, args := `DELETE FROM captured_events WHERE expires_at <= $1`, []any{s.at(s.clock())}
	if all {
		q, args = `DELETE FROM captured_events`, nil
	}
	var n int64
	err := s.write(ctx, "purge captured events", func(qr querier) error {
		var err error
		n, err = qr.exec(ctx, q, args...)
		return err
	})
	return n, err
}

// CountCaptures counts the captured events kept, expired ones not yet
// purged included.
func (s *Store) CountCaptures(ctx context.Context) (int64, error) {
	var n int64
	if err := s.b.reader().queryRow(ctx, `SELECT COUNT(*) FROM captured_events`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count captured events: %w", err)
	}
	return n, nil
}
