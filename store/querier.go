package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// querier runs statements on either driver, on a connection pool or inside
// a transaction. Statements use $1, $2 ... placeholders: SQLite binds them
// by position exactly as PostgreSQL does, so most statements are shared.
type querier interface {
	exec(ctx context.Context, q string, args ...any) (int64, error)
	query(ctx context.Context, q string, args ...any) (rows, error)
	// queryRow's Scan returns ErrNotFound when there is no row.
	queryRow(ctx context.Context, q string, args ...any) row
}

type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

type row interface {
	Scan(dest ...any) error
}

// sqlRunner is what *sql.DB and *sql.Tx have in common.
type sqlRunner interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// sqlQuerier runs statements on a SQLite pool or transaction. With a
// cache, data statements are prepared once per connection and reused (see
// stmtCache); tx is set when r is a transaction of the cache's database.
type sqlQuerier struct {
	r     sqlRunner
	cache *stmtCache
	tx    *sql.Tx
}

// prepared returns the cached statement for s, bound to the transaction
// when there is one, or nil to run s unprepared.
func (q sqlQuerier) prepared(ctx context.Context, s string) *sql.Stmt {
	st := q.cache.get(ctx, s, q.tx != nil)
	if st == nil || q.tx == nil {
		return st
	}
	return q.tx.StmtContext(ctx, st)
}

func (q sqlQuerier) exec(ctx context.Context, s string, args ...any) (int64, error) {
	var res sql.Result
	var err error
	if st := q.prepared(ctx, s); st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = q.r.ExecContext(ctx, s, args...)
	}
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("rows affected: %w", err)
	}
	return n, nil
}

func (q sqlQuerier) query(ctx context.Context, s string, args ...any) (rows, error) {
	var rs *sql.Rows
	var err error
	if st := q.prepared(ctx, s); st != nil {
		rs, err = st.QueryContext(ctx, args...)
	} else {
		rs, err = q.r.QueryContext(ctx, s, args...)
	}
	if err != nil {
		return nil, err
	}
	return sqlRows{rs}, nil
}

func (q sqlQuerier) queryRow(ctx context.Context, s string, args ...any) row {
	if st := q.prepared(ctx, s); st != nil {
		return sqlRow{st.QueryRowContext(ctx, args...)}
	}
	return sqlRow{q.r.QueryRowContext(ctx, s, args...)}
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

type sqlRow struct{ r *sql.Row }

func (r sqlRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// pgRunner is what *pgxpool.Pool, *pgxpool.Conn and pgx.Tx have in common.
type pgRunner interface {
	Exec(ctx context.Context, q string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, q string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, q string, args ...any) pgx.Row
}

type pgQuerier struct{ r pgRunner }

func (q pgQuerier) exec(ctx context.Context, s string, args ...any) (int64, error) {
	tag, err := q.r.Exec(ctx, s, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (q pgQuerier) query(ctx context.Context, s string, args ...any) (rows, error) {
	return q.r.Query(ctx, s, args...)
}

func (q pgQuerier) queryRow(ctx context.Context, s string, args ...any) row {
	return pgRow{q.r.QueryRow(ctx, s, args...)}
}

type pgRow struct{ r pgx.Row }

func (r pgRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	return err
}
