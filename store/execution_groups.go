package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// DecisionDryRunDropped is the decision of a row that records a dry_run
// hook's run the observer pool dropped: the hook did not run, so no
// would-decision exists for that event. The row keeps the hook, event,
// tool, tenant, agent and session only: no input (its input_hash is that
// of no input, InputHash(nil)).
const DecisionDryRunDropped = "dry_run_dropped"

// dryRunDecisions are the decisions only dry_run hooks record, as an SQL
// list: the would-decisions and the drops.
const dryRunDecisions = `'would_block', 'would_rewrite', 'would_allow', 'would_ask', '` + DecisionDryRunDropped + `'`

// groupColumns are the keys executions can be grouped by, and the column
// each reads.
var groupColumns = map[string]string{
	"hook":     "hook_id",
	"tool":     "tool",
	"tenant":   "tenant",
	"agent":    "agent",
	"event":    "event",
	"decision": "decision",
	"session":  "session_id",
}

// GroupKeys lists the keys GroupExecutions accepts.
func GroupKeys() []string {
	return []string{"hook", "tool", "tenant", "agent", "event", "decision", "session"}
}

// ExecutionGroup is one group of executions: its key values (by the keys
// asked for, in order), how many there are, the newest's time and one of
// their reasons (the greatest, so that it is stable).
type ExecutionGroup struct {
	Keys   []string
	Count  int64
	Last   time.Time
	Reason string
}

// GroupExecutions counts the executions f selects by the keys in by (see
// GroupKeys), largest groups first (f.Limit keeps that many groups). An
// empty by is one group of everything.
func (s *Store) GroupExecutions(ctx context.Context, f ExecutionFilter, by []string) ([]ExecutionGroup, error) {
	cols := make([]string, 0, len(by))
	for _, k := range by {
		c, ok := groupColumns[k]
		if !ok {
			return nil, fmt.Errorf("store: group executions: unknown key %q (want %s)", k, strings.Join(GroupKeys(), ", "))
		}
		cols = append(cols, "COALESCE("+c+", '')")
	}
	where, args := s.where(f)
	sel := append(append([]string(nil), cols...), "COUNT(*)", "MAX(created_at)", "MAX(reason)")
	q := `SELECT ` + strings.Join(sel, ", ") + ` FROM hook_executions` + where
	if len(cols) > 0 {
		q += ` GROUP BY ` + strings.Join(cols, ", ")
	}
	q += ` ORDER BY COUNT(*) DESC`
	for i := range cols {
		q += fmt.Sprintf(", %d", i+1)
	}
	if f.Limit > 0 {
		args = append(args, f.Limit)
		q += fmt.Sprintf(` LIMIT $%d`, len(args))
	}
	rs, err := s.b.reader().query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: group executions: %w", err)
	}
	defer rs.Close()
	var out []ExecutionGroup
	for rs.Next() {
		g := ExecutionGroup{Keys: make([]string, len(cols))}
		var last timeCol
		var reason sql.NullString
		dest := make([]any, 0, len(cols)+3)
		for i := range g.Keys {
			dest = append(dest, &g.Keys[i])
		}
		dest = append(dest, &g.Count, &last, &reason)
		if err := rs.Scan(dest...); err != nil {
			return nil, fmt.Errorf("store: group executions: %w", err)
		}
		g.Last, g.Reason = last.Time, reason.String
		out = append(out, g)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: group executions: %w", err)
	}
	return out, nil
}
