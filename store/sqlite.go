package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// MemoryPath is the SQLite path of a private in-memory database.
const MemoryPath = ":memory:"

// sqliteBackend is one SQLite file: a single writer connection, so that
// writes queue in this process instead of failing with SQLITE_BUSY, and a
// pool of read-only connections that WAL lets read while the writer writes.
type sqliteBackend struct {
	w *sql.DB
	r *sql.DB
	// wc and rc prepare w's and r's statements once per connection (one
	// cache when w and r are the same in-memory database).
	wc, rc *stmtCache
}

func newSQLiteBackend(w, r *sql.DB) *sqliteBackend {
	b := &sqliteBackend{w: w, r: r, wc: newStmtCache(w)}
	b.rc = b.wc
	if r != w {
		b.rc = newStmtCache(r)
	}
	return b
}

func openSQLite(ctx context.Context, path string, busy time.Duration) (*sqliteBackend, error) {
	if path == "" {
		return nil, fmt.Errorf("sqlite: no path")
	}
	ms := busy.Milliseconds()
	if path == MemoryPath {
		// One connection that never closes: an in-memory database lives
		// and dies with its connection.
		db, err := sql.Open("sqlite", fmt.Sprintf("file::memory:?_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)", ms))
		if err != nil {
			return nil, fmt.Errorf("sqlite: open memory database: %w", err)
		}
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		db.SetConnMaxLifetime(0)
		db.SetConnMaxIdleTime(0)
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("sqlite: open memory database: %w", err)
		}
		return newSQLiteBackend(db, db), nil
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: create directory for %s: %w", path, err)
		}
	}
	// SQLite decodes %XX in file: URIs; escape what would end the path.
	name := "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	common := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)", ms)

	w, err := sql.Open("sqlite", name+"?"+common+"&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	// The writer comes up first: it switches the file to WAL before any
	// reader opens it.
	if err := pingSwitchingToWAL(ctx, w, busy); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", name+"?"+common+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s for reading: %w", path, err)
	}
	readers := max(4, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	return newSQLiteBackend(w, r), nil
}

// pingSwitchingToWAL opens the writer's connection, whose pragmas switch
// a new file to WAL. Two processes (or stores) doing so at once on a fresh
// file can each hold a shared lock the other's switch waits for: SQLite
// answers SQLITE_BUSY at once instead of calling the busy handler, so the
// open is retried, within the busy timeout.
func pingSwitchingToWAL(ctx context.Context, w *sql.DB, busy time.Duration) error {
	deadline := time.Now().Add(busy)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := w.PingContext(ctx)
		var coded interface{ Code() int }
		if err == nil || !errors.As(err, &coded) || coded.Code()&0xff != sqliteBusy || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// sqliteBusy is SQLITE_BUSY, the primary result code of a lock not taken.
const sqliteBusy = 5

func (b *sqliteBackend) reader() querier { return sqlQuerier{r: b.r, cache: b.rc} }

// write runs fn in an immediate transaction on the writer connection.
func (b *sqliteBackend) write(ctx context.Context, fn func(querier) error) error {
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	err = fn(sqlQuerier{r: tx, cache: b.wc, tx: tx})
	if err != nil {
		tx.Rollback()
	} else if err = tx.Commit(); err != nil {
		err = fmt.Errorf("commit: %w", err)
	}
	// The connection is free again: prepare what the transaction met
	// for the first time (at most once per statement).
	b.wc.preparePending(ctx)
	return err
}

func (b *sqliteBackend) ping(ctx context.Context) error {
	if err := b.w.PingContext(ctx); err != nil {
		return err
	}
	return b.r.PingContext(ctx)
}

func (b *sqliteBackend) close() error {
	b.rc.close()
	b.wc.close()
	err := b.r.Close()
	if b.w != b.r {
		if werr := b.w.Close(); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}
