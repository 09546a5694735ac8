package store

import (
	"context"
	"database/sql"
	"strings"
	"sync"
)

// stmtCache keeps one *sql.Stmt per data statement (SELECT, INSERT,
// UPDATE, DELETE) of one SQLite pool. database/sql prepares a Stmt on
// each connection the first time it runs there and reuses it after, and
// the driver keeps the compiled statement: without the cache every query
// compiled its SQL again (sqlite3_prepare_v2 and finalize were a third of
// a session lookup's time). Schema statements are not cached: they run
// once, at migration.
//
// A statement first met inside a transaction is not prepared there: the
// writer pool has one connection, which the transaction holds, so
// preparing on the pool would wait for it forever. It is noted and
// prepared once the transaction has ended (preparePending).
type stmtCache struct {
	db      *sql.DB
	mu      sync.RWMutex
	m       map[string]*sql.Stmt
	pending map[string]bool
}

// maxCachedStmts bounds the cache. The statements are the store's own
// constants plus a few filter combinations; past the bound a statement is
// prepared per query, as without a cache.
const maxCachedStmts = 128

// maxCachedStmtArgs keeps statements of many placeholders out of the
// cache: the audit's multi-row INSERTs, a different text for every batch
// size, would fill it with one-off statements (each compiled twice) and
// keep the store's own out.
const maxCachedStmtArgs = 16

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, m: map[string]*sql.Stmt{}}
}

// get returns the prepared statement for q, or nil when q is not a data
// statement, the cache is full or closed, preparing failed (running q
// unprepared then reports the error as before), or q is met for the first
// time inside a transaction (inTx; see stmtCache). A nil cache caches
// nothing.
func (c *stmtCache) get(ctx context.Context, q string, inTx bool) *sql.Stmt {
	if c == nil || !dataStatement(q) || strings.Count(q, "$")+strings.Count(q, "?") > maxCachedStmtArgs {
		return nil
	}
	c.mu.RLock()
	st, ok := c.m[q]
	full := c.m == nil || len(c.m)+len(c.pending) >= maxCachedStmts
	c.mu.RUnlock()
	if ok || full {
		return st
	}
	if inTx {
		c.mu.Lock()
		if c.pending == nil {
			c.pending = map[string]bool{}
		}
		c.pending[q] = true
		c.mu.Unlock()
		return nil
	}
	return c.prepare(ctx, q)
}

// prepare prepares q on the pool and caches it. No lock is held while
// preparing: it may wait for a connection, and a holder of that
// connection may be asking the cache for another statement.
func (c *stmtCache) prepare(ctx context.Context, q string) *sql.Stmt {
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[q]; ok || c.m == nil {
		// Prepared meanwhile by another caller, or the cache closed.
		st.Close()
		return old
	}
	c.m[q] = st
	return st
}

// preparePending prepares the statements first met inside a transaction.
// Call it with no transaction of this process open on the pool's
// connection (after commit or rollback).
func (c *stmtCache) preparePending(ctx context.Context) {
	if c == nil {
		return
	}
	c.mu.Lock()
	qs := make([]string, 0, len(c.pending))
	for q := range c.pending {
		qs = append(qs, q)
	}
	clear(c.pending)
	c.mu.Unlock()
	for _, q := range qs {
		c.prepare(ctx, q)
	}
}

// close closes the cached statements; later gets cache nothing.
func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m, c.pending = nil, nil
}

// dataStatement reports a statement that reads or writes rows.
func dataStatement(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n")
	if len(q) < 6 {
		return false
	}
	switch strings.ToUpper(q[:6]) {
	case "SELECT", "INSERT", "UPDATE", "DELETE":
		return true
	}
	return false
}
