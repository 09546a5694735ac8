package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/store"
)

// StoreOptions turns the store section into store.Options; sqlitePath
// says where a SQLite store lives.
func StoreOptions(cfg *config.Config, log *slog.Logger) store.Options {
	path := ""
	if cfg.Store.Driver == "" || cfg.Store.Driver == string(store.SQLite) {
		path = sqlitePath(cfg)
	}
	return store.Options{
		Driver: store.Driver(cfg.Store.Driver),
		Path:   path,
		DSN:    cfg.Store.DSN,
		Logger: log,
	}
}

// OpenStore opens the configured store and applies its migrations.
// The default folder of a SQLite store (the user's state folder) is
// created, readable by its owner only. It does not listen for other
// instances' changes (the command line needs none); OpenPersistence does.
func OpenStore(ctx context.Context, cfg *config.Config, log *slog.Logger) (*store.Store, error) {
	return openStore(ctx, cfg, log, false)
}

func openStore(ctx context.Context, cfg *config.Config, log *slog.Logger, listen bool) (*store.Store, error) {
	opts := StoreOptions(cfg, log)
	opts.Listen = listen
	if opts.Driver == store.SQLite && cfg.Store.Path == "" && opts.Path != store.MemoryPath {
		if err := os.MkdirAll(filepath.Dir(opts.Path), 0o700); err != nil {
			return nil, fmt.Errorf("store folder: %w", err)
		}
	}
	return store.Open(ctx, opts)
}

// Persistence is what hookgate keeps in its store: the audit log of hook
// executions and session memory, over one connection pool.
//
// In Build:
//
//	p, err := OpenPersistence(ctx, cfg, reg, log)
//	engine, err := buildEngine(cfg, log, newHookMetrics(reg, p.Audit))
//	err = p.HooksConfigured(ctx, engine.Hooks())
//	chat := interceptors.NewChat(interceptors.Options{Memory: p.Memory, ...})
//	// before a request's hooks run: if err := p.Audit.Admit(ctx); err != nil { 503 }
//
// and in Shutdown, after the engine is closed (its last executions are
// recorded): p.Close(ctx).
type Persistence struct {
	Store  *store.Store
	Audit  *AuditRecorder
	Memory *StoreMemory

	// purger deletes expired captured events; nil without capture_events.
	purger *capturePurger
}

// OpenPersistence opens the store, listening for other instances'
// changes on PostgreSQL, and starts the audit writer and the store-backed
// session memory. reg receives the audit metrics.
func OpenPersistence(ctx context.Context, cfg *config.Config, reg prometheus.Registerer, log *slog.Logger) (*Persistence, error) {
	if log == nil {
		log = slog.Default()
	}
	st, err := openStore(ctx, cfg, log, true)
	if err != nil {
		return nil, err
	}
	audit, err := NewAuditRecorder(cfg, st, reg, log)
	if err != nil {
		_ = st.Close() // the recorder could not be built; that error is the one to report
		return nil, err
	}
	p := &Persistence{Store: st, Audit: audit, Memory: NewStoreMemory(st, cfg.Interception.SessionTTL.D(), log)}
	if cfg.Audit.CaptureEvents {
		p.purger = startCapturePurger(st, purgeEvery(cfg.Audit.CaptureTTL.D()), log)
	}
	return p, nil
}

// HooksConfigured marks the audit records of hooks no longer configured
// (hook_id becomes NULL; the records stay). Call it after the engine for
// a configuration is compiled, at start and on every reload.
func (p *Persistence) HooksConfigured(ctx context.Context, configured []hooks.HookInfo) error {
	return DetachRemovedHooks(ctx, p.Store, configured)
}

// DetachRemovedHooks sets hook_id to NULL on the executions of hooks that
// are not in configured (hookgate's own, hooks.IncidentHookID, excepted).
func DetachRemovedHooks(ctx context.Context, st *store.Store, configured []hooks.HookInfo) error {
	// hookgate's own records (a truncated stream) keep their id: it is
	// never configured, and never removed.
	ids := make([]string, len(configured), len(configured)+1)
	for i, h := range configured {
		ids[i] = h.ID
	}
	ids = append(ids, hooks.IncidentHookID)
	if _, err := st.DetachRemovedHooks(ctx, ids); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// Close stops the session sweeper, writes the queued audit records (until
// ctx ends) and closes the store.
func (p *Persistence) Close(ctx context.Context) error {
	p.Memory.Close()
	p.purger.Close()
	err := p.Audit.Close(ctx)
	return errors.Join(err, p.Store.Close())
}
