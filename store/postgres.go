package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultPostgresConns is the size of each of the two pools when the DSN
// sets no pool_max_conns. A session's lock holds a connection while its
// hooks run, so the session pool bounds the sessions one instance serves
// at once; pgx's own default (four, or the number of CPUs) is far too
// small for that.
const DefaultPostgresConns = 32

// pgBackend has two pools: one for statements, one for the transactions
// that hold session locks, so that many sessions waiting on slow hooks can
// never starve the audit writer or an approval of connections.
type pgBackend struct {
	pool *pgxpool.Pool
	held *pgxpool.Pool
	// conn is the pools' connection settings, for the connections of
	// its own the listener and an advisory lock keep (ownConnConfig).
	conn *pgx.ConnConfig
	// tag names the schema in use, in notification channels and
	// advisory lock keys (notify.go, lead.go).
	tag string
}

func openPostgres(ctx context.Context, dsn string, maxConns int32) (*pgBackend, error) {
	if dsn == "" {
		return nil, fmt.Errorf("postgres: no dsn")
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx's message can quote the DSN, password included.
		return nil, fmt.Errorf("postgres: the dsn does not parse")
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		cfg.MaxConns = maxConns
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "hookgate"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect to %s:%d: %w", cfg.ConnConfig.Host, cfg.ConnConfig.Port, err)
	}
	held, err := pgxpool.NewWithConfig(ctx, cfg.Copy())
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	b := &pgBackend{pool: pool, held: held, conn: cfg.ConnConfig.Copy()}
	if b.tag, err = schemaTag(ctx, b); err != nil {
		_ = b.close() // the query's error is the one to report
		return nil, fmt.Errorf("postgres: current schema: %w", err)
	}
	return b, nil
}

// ownConnConfig is the settings of a connection kept outside the pools,
// named after its role in pg_stat_activity ("hookgate notify").
func (b *pgBackend) ownConnConfig(role string) *pgx.ConnConfig {
	c := b.conn.Copy()
	c.RuntimeParams["application_name"] += " " + role
	return c
}

func (b *pgBackend) reader() querier { return pgQuerier{b.pool} }

// write runs fn in a read-committed transaction.
func (b *pgBackend) write(ctx context.Context, fn func(querier) error) error {
	tx, err := b.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(pgQuerier{tx}); err != nil {
		tx.Rollback(ctx)
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// begin starts a transaction the caller keeps (a session's lock), on the
// pool kept for those.
func (b *pgBackend) begin(ctx context.Context) (pgx.Tx, error) {
	return b.held.Begin(ctx)
}

func (b *pgBackend) ping(ctx context.Context) error { return b.pool.Ping(ctx) }

func (b *pgBackend) close() error {
	b.pool.Close()
	b.held.Close()
	return nil
}
