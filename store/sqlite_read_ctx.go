package store

import "context"

// readContext is the context for one short read on the reader pool.
//
// A read under a context that can be cancelled costs two goroutines
// (database/sql's watcher and the driver's), about 40 µs of a request's
// latency at concurrency 1, and SQLite bounds a read's own waits with its
// busy timeout; so while the pool has an idle connection the read runs
// without ctx's cancellation. When it has none, the read would wait for a
// connection, and that wait must stay bounded by ctx: then ctx itself is
// used (as it is once it is already done).
func (b *sqliteBackend) readContext(ctx context.Context) context.Context {
	if ctx.Err() != nil || b.r.Stats().Idle == 0 {
		return ctx
	}
	return context.WithoutCancel(ctx)
}
