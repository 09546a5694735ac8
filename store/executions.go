package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Execution is a row of hook_executions: one hook's run on one event.
// AuditWriter builds these; most callers only read them.
type Execution struct {
	ID string
	// HookID is empty once the hook has left the configuration.
	HookID    string
	SessionID string
	Event     string
	// InputHash is the hex SHA-256 of the hook's input in RFC 8785
	// canonical form (InputHash); the input itself is never stored.
	InputHash string
	// Decision is what the hook ended in: allow, rewrite, block, error,
	// timeout, expired or bypassed; a dry_run hook's would_block,
	// would_rewrite, would_allow or would_ask, or dry_run_dropped when the
	// observer pool dropped its run (DecisionDryRunDropped).
	Decision    string
	HookVersion string
	SideEffects []string
	Duration    time.Duration
	// DedupKey is unique: hook id, event id and the execution's id
	// (RunKey), so every run has its own row and a batch written twice
	// is recorded once.
	DedupKey string
	// Error is the error's text cut to ErrorMax characters; empty when the
	// hook did not fail.
	Error string
	// ErrorDetail is the whole error text sealed under the audit key
	// (AuditKey.Open reads it); nil when there was no error or no key.
	ErrorDetail []byte
	CreatedAt   time.Time
	// Tool is the tool's name on a tool event (never its arguments);
	// empty on other events.
	Tool string
	// Tenant and Agent are the event's (empty without tenants, or when
	// no agent id was given).
	Tenant string
	Agent  string
	// Reason is the hook's own reason (for a failure, the note the agent
	// read), cut to ErrorMax characters, credentials removed.
	Reason string
}

// DedupKey is the dedup_key of hook hookID's execution on event eventID.
// The hook id's length leads, so that no two pairs share a key whatever
// characters the ids hold.
func DedupKey(hookID, eventID string) string {
	return strconv.Itoa(len(hookID)) + ":" + hookID + ":" + eventID
}

// RunKey is the dedup_key of one run of hook hookID on event eventID,
// execution id the row's own. Every run has its own row, a resent event
// judged again included: a run may have side effects (a card, a message,
// a call to a service), and the decision that took effect must be on
// record even when an earlier attempt at the same event ended otherwise
// (the attempt whose client left, then the resent one that was approved).
// What the key still deduplicates is the writer's own redelivery of a
// batch whose first write landed unacknowledged.
func RunKey(hookID, eventID, executionID string) string {
	return DedupKey(hookID, eventID) + "|" + executionID
}

// maxInsertRows bounds one INSERT statement (execArgs arguments a row
// stays far below SQLite's and PostgreSQL's limits on arguments).
const maxInsertRows = 500

const executionCols = `id, hook_id, session_id, event, input_hash, decision, hook_version, side_effects, duration_ms, dedup_key, error, error_detail, created_at, tool, tenant, agent, reason`

// execArgs is the number of executionCols.
const execArgs = 17

// InsertExecutions writes rows in one transaction. A row whose dedup_key
// is already present is skipped (a retried delivery). It returns how many
// rows were new.
func (s *Store) InsertExecutions(ctx context.Context, xs []Execution) (int64, error) {
	var inserted int64
	err := s.write(ctx, "insert executions", func(q querier) error {
		for start := 0; start < len(xs); start += maxInsertRows {
			chunk := xs[start:min(start+maxInsertRows, len(xs))]
			stmt, args := s.insertExecutions(chunk)
			n, err := q.exec(ctx, stmt, args...)
			if err != nil {
				return err
			}
			inserted += n
		}
		return nil
	})
	return inserted, err
}

func (s *Store) insertExecutions(xs []Execution) (string, []any) {
	var b strings.Builder
	b.Grow(160 + len(xs)*64)
	b.WriteString(`INSERT INTO hook_executions (` + executionCols + `) VALUES `)
	args := make([]any, 0, len(xs)*execArgs)
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range execArgs {
			if c > 0 {
				b.WriteString(", ")
			}
			// SQLite looks $N up by name, in time linear in the number of
			// parameters; plain ? is positional and free.
			if s.driver == SQLite {
				b.WriteByte('?')
				continue
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(i*execArgs + c + 1))
		}
		b.WriteByte(')')
		var effects any
		if len(x.SideEffects) > 0 {
			j, _ := json.Marshal(x.SideEffects) // []string always marshals
			effects = string(j)
		}
		var detail any
		if x.ErrorDetail != nil {
			detail = x.ErrorDetail
		}
		args = append(args, x.ID, nullString(x.HookID), x.SessionID, x.Event, x.InputHash, x.Decision,
			nullString(x.HookVersion), effects, float64(x.Duration)/float64(time.Millisecond), x.DedupKey,
			nullString(x.Error), detail, s.at(x.CreatedAt), x.Tool, x.Tenant, x.Agent, x.Reason)
	}
	b.WriteString(` ON CONFLICT (dedup_key) DO NOTHING`)
	return b.String(), args
}

func nullString(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// ExecutionFilter selects executions; zero fields select everything.
type ExecutionFilter struct {
	SessionID string
	HookID    string
	Decision  string
	Tool      string
	Tenant    string
	Agent     string
	// DryRun keeps only the would-decisions of dry_run hooks.
	DryRun bool
	// Since keeps executions created at or after it.
	Since time.Time
	// Tenants, when not nil, keeps the executions of these tenants: a row
	// whose tenant column names one, or (for rows written before the
	// column existed) a session id the tenant's prefix ("tenant:") names,
	// or one the tool-call log (tool_calls) files under the tenant. An
	// empty, non-nil list keeps nothing.
	Tenants []string
	// Limit keeps the newest Limit rows (<= 0: all).
	Limit int
}

func (s *Store) where(f ExecutionFilter) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		conds = append(conds, strings.ReplaceAll(cond, "?", "$"+strconv.Itoa(len(args))))
	}
	if f.SessionID != "" {
		add("session_id = ?", f.SessionID)
	}
	if f.HookID != "" {
		add("hook_id = ?", f.HookID)
	}
	if f.Decision != "" {
		add("decision = ?", f.Decision)
	}
	if f.Tool != "" {
		add("tool = ?", f.Tool)
	}
	if f.Tenant != "" {
		add("tenant = ?", f.Tenant)
	}
	if f.Agent != "" {
		add("agent = ?", f.Agent)
	}
	if f.DryRun {
		conds = append(conds, "decision IN ("+dryRunDecisions+")")
	}
	if !f.Since.IsZero() {
		add("created_at >= ?", s.at(f.Since))
	}
	if f.Tenants != nil {
		var ors []string
		for _, t := range f.Tenants {
			prefix := t + ":"
			args = append(args, prefix, t)
			n := len(args)
			ors = append(ors, "tenant = $"+strconv.Itoa(n)+" OR substr(session_id, 1, "+strconv.Itoa(utf8.RuneCountInString(prefix))+") = $"+strconv.Itoa(n-1)+
				" OR session_id IN (SELECT session_id FROM tool_calls WHERE tenant = $"+strconv.Itoa(n)+")")
		}
		if len(ors) == 0 {
			ors = []string{"1 = 0"}
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// ListExecutions returns the executions f selects, newest first.
func (s *Store) ListExecutions(ctx context.Context, f ExecutionFilter) ([]Execution, error) {
	where, args := s.where(f)
	q := `SELECT ` + executionCols + ` FROM hook_executions` + where + ` ORDER BY created_at DESC, id DESC`
	if f.Limit > 0 {
		args = append(args, f.Limit)
		q += ` LIMIT $` + strconv.Itoa(len(args))
	}
	rs, err := s.b.reader().query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list executions: %w", err)
	}
	defer rs.Close()
	var out []Execution
	for rs.Next() {
		var x Execution
		var hookID, version, effects, errText sql.NullString
		var ms float64
		var created timeCol
		if err := rs.Scan(&x.ID, &hookID, &x.SessionID, &x.Event, &x.InputHash, &x.Decision, &version, &effects,
			&ms, &x.DedupKey, &errText, &x.ErrorDetail, &created, &x.Tool, &x.Tenant, &x.Agent, &x.Reason); err != nil {
			return nil, fmt.Errorf("store: list executions: %w", err)
		}
		x.HookID, x.HookVersion, x.Error, x.CreatedAt = hookID.String, version.String, errText.String, created.Time
		x.Duration = time.Duration(ms * float64(time.Millisecond))
		if effects.Valid {
			if err := json.Unmarshal([]byte(effects.String), &x.SideEffects); err != nil {
				return nil, fmt.Errorf("store: list executions: side_effects of %s: %w", x.ID, err)
			}
		}
		out = append(out, x)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: list executions: %w", err)
	}
	return out, nil
}

// CountExecutions counts the executions f selects (f.Limit is ignored).
func (s *Store) CountExecutions(ctx context.Context, f ExecutionFilter) (int64, error) {
	where, args := s.where(f)
	var n int64
	if err := s.b.reader().queryRow(ctx, `SELECT COUNT(*) FROM hook_executions`+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count executions: %w", err)
	}
	return n, nil
}

// DetachRemovedHooks sets hook_id to NULL on the executions of every hook
// that is not in current (the ids configured now), so that no record
// points at a hook that no longer exists; the records stay. Call it after
// a configuration is loaded or reloaded. It returns how many rows changed.
func (s *Store) DetachRemovedHooks(ctx context.Context, current []string) (int64, error) {
	if current == nil {
		current = []string{}
	}
	q := `UPDATE hook_executions SET hook_id = NULL
WHERE hook_id IS NOT NULL AND hook_id NOT IN (SELECT value FROM json_each($1))`
	var arg any
	if s.pg != nil {
		q = `UPDATE hook_executions SET hook_id = NULL WHERE hook_id IS NOT NULL AND NOT (hook_id = ANY($1))`
		arg = current
	} else {
		j, _ := json.Marshal(current) // []string always marshals
		arg = string(j)
	}
	var n int64
	err := s.write(ctx, "detach removed hooks", func(qr querier) error {
		var err error
		n, err = qr.exec(ctx, q, arg)
		return err
	})
	return n, err
}
