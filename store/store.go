package store

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"
)

// Driver names a database.
type Driver string

// The drivers.
const (
	SQLite   Driver = "sqlite"
	Postgres Driver = "postgres"
)

// DefaultBusyTimeout is how long a SQLite statement waits for another
// process's lock (the command line deciding an approval while the proxy
// writes) before it fails.
const DefaultBusyTimeout = 5 * time.Second

// Options say which database to open.
type Options struct {
	// Driver is SQLite or Postgres; "" means SQLite.
	Driver Driver
	// Path is the SQLite file (MemoryPath for a private in-memory
	// database). Relative paths are relative to the working directory.
	Path string
	// DSN is the PostgreSQL connection string. It is never logged.
	DSN string
	// BusyTimeout is SQLite's busy timeout; 0 means DefaultBusyTimeout.
	BusyTimeout time.Duration
	// MaxConns is the PostgreSQL pool size when the DSN sets no
	// pool_max_conns; 0 means DefaultPostgresConns.
	MaxConns int32
	// Now is the clock (tests move it); nil means time.Now.
	Now func() time.Time
	// Logger receives the store's log; nil means slog.Default().
	Logger *slog.Logger
	// Listen keeps a PostgreSQL connection listening for other instances'
	// changes (Watch, Live): a serving instance sets it, the command line
	// does not. Ignored on SQLite.
	Listen bool
	// ListenRetry is the first wait before the listener reconnects after
	// losing its connection (it doubles, up to 10 s, while reconnecting
	// fails); 0 means DefaultListenRetry.
	ListenRetry time.Duration
}

// backend is a driver's connections.
type backend interface {
	// reader runs reads (on SQLite, a read-only connection).
	reader() querier
	// write runs fn in a transaction; fn's error rolls it back.
	write(ctx context.Context, fn func(querier) error) error
	ping(ctx context.Context) error
	close() error
}

// Store is an open database with hookgate's schema. It is safe for
// concurrent use.
type Store struct {
	driver Driver
	b      backend
	pg     *pgBackend // nil on SQLite
	now    func() time.Time
	log    *slog.Logger
	locks  keyedLocks
	notes  notifier
	closed atomic.Bool
}

// Open connects and applies the schema migrations.
func Open(ctx context.Context, opts Options) (*Store, error) {
	s := &Store{driver: opts.Driver, now: opts.Now, log: opts.Logger}
	if s.driver == "" {
		s.driver = SQLite
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	switch s.driver {
	case SQLite:
		busy := opts.BusyTimeout
		if busy <= 0 {
			busy = DefaultBusyTimeout
		}
		b, err := openSQLite(ctx, opts.Path, busy)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		s.b = b
	case Postgres:
		conns := opts.MaxConns
		if conns <= 0 {
			conns = DefaultPostgresConns
		}
		b, err := openPostgres(ctx, opts.DSN, conns)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		s.b, s.pg = b, b
	default:
		return nil, fmt.Errorf("store: unknown driver %q (want sqlite or postgres)", s.driver)
	}
	if err := s.migrate(ctx); err != nil {
		_ = s.b.close() // the migration failed; that error is the one to report
		return nil, fmt.Errorf("store: migrate: %w", err)
	}
	if s.pg != nil && opts.Listen {
		s.startListening(opts.ListenRetry)
	}
	return s, nil
}

// Driver is the database in use.
func (s *Store) Driver() Driver { return s.driver }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.b.ping(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// Close releases the connections. Calls after Close fail.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	s.stopListening()
	if err := s.b.close(); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return nil
}

// write runs fn in a transaction, wrapping its error with what.
func (s *Store) write(ctx context.Context, what string, fn func(querier) error) error {
	if err := s.b.write(ctx, fn); err != nil {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	return nil
}
