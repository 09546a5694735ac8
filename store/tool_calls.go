package store

import (
	"context"
	"fmt"
	"time"
)

// ToolCall is a row of tool_calls: one tool call whose result came back,
// written by the audit_log built-in so that every call is on record
// whether or not anyone remembered to log it.
type ToolCall struct {
	// ID identifies the call (session and tool call id): a resent result
	// is not recorded twice.
	ID          string
	Tenant      string
	SessionID   string
	Tool        string
	ArgsHash    string
	ResultBytes int64
	// Latency is the time from the call reaching the agent to its result
	// reaching hookgate; negative when unknown.
	Latency   time.Duration
	CreatedAt time.Time
}

// InsertToolCalls records tool calls; rows whose id exists are skipped.
func (s *Store) InsertToolCalls(ctx context.Context, rows []ToolCall) (int64, error) {
	var inserted int64
	err := s.write(ctx, "insert tool calls", func(q querier) error {
		for _, r := range rows {
			var latency any
			if r.Latency >= 0 {
				latency = float64(r.Latency) / float64(time.Millisecond)
			}
			n, err := q.exec(ctx, `INSERT INTO tool_calls (id, tenant, session_id, tool, args_hash, result_bytes, latency_ms, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
				r.ID, r.Tenant, r.SessionID, r.Tool, r.ArgsHash, r.ResultBytes, latency, s.at(r.CreatedAt))
			if err != nil {
				return err
			}
			inserted += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	return inserted, nil
}

// ListToolCalls returns a session's recorded tool calls ("" for all),
// oldest first.
func (s *Store) ListToolCalls(ctx context.Context, sessionID string) ([]ToolCall, error) {
	rs, err := s.b.reader().query(ctx, `SELECT id, tenant, session_id, tool, args_hash, result_bytes, latency_ms, created_at
FROM tool_calls WHERE ($1 = '' OR session_id = $1) ORDER BY created_at, id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: list tool calls: %w", err)
	}
	defer rs.Close()
	var out []ToolCall
	for rs.Next() {
		var r ToolCall
		var latency *float64
		var created timeCol
		if err := rs.Scan(&r.ID, &r.Tenant, &r.SessionID, &r.Tool, &r.ArgsHash, &r.ResultBytes, &latency, &created); err != nil {
			return nil, fmt.Errorf("store: list tool calls: %w", err)
		}
		r.Latency = -1
		if latency != nil {
			r.Latency = time.Duration(*latency * float64(time.Millisecond))
		}
		r.CreatedAt = created.Time
		out = append(out, r)
	}
	return out, rs.Err()
}
