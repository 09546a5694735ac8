package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Topic is a kind of change that every instance on a PostgreSQL store
// hears about at once (LISTEN/NOTIFY), whichever instance or process made
// it.
type Topic string

// The topics a watcher receives.
const (
	// TopicApproval: a confirmation request was answered. The payload is
	// the request's id, nothing else (never its tool or arguments).
	TopicApproval Topic = "approval"
	// TopicSettings: a tenant's run-time settings (the read-only switch)
	// changed. The payload is the tenant ("" for the organisation).
	TopicSettings Topic = "settings"
	// TopicResync: notifications are heard again after a time without
	// them (the first connection, or a reconnection). Anything may have
	// changed meanwhile, so a watcher looks at what it caches or waits for
	// once. The payload is empty.
	TopicResync Topic = "resync"
)

// notifyTopics are the topics sent through PostgreSQL.
var notifyTopics = []Topic{TopicApproval, TopicSettings}

// Change is one notification.
type Change struct {
	Topic   Topic
	Payload string
}

// Defaults of the listener.
const (
	// DefaultListenRetry is the first wait before the listener
	// reconnects; it doubles up to maxListenRetry while reconnecting
	// fails.
	DefaultListenRetry = 250 * time.Millisecond
	maxListenRetry     = 10 * time.Second
	// listenPing is how long the listener waits for a notification before
	// it checks that its connection still answers: a connection cut
	// without a word (a network partition) is noticed within twice this
	// long, and waiting calls go back to polling.
	listenPing = 5 * time.Second
)

// notifier holds the watchers of a store and whether notifications are
// heard.
type notifier struct {
	mu       sync.Mutex
	watchers map[uint64]func(Change)
	next     uint64
	live     atomic.Bool
	stop     context.CancelFunc
	done     chan struct{}
}

// Watch calls fn with every change heard, from the store's listener
// goroutine, until cancel is called: fn must not block (wake a waiter,
// drop a cache entry). On SQLite, and on a store opened without
// Options.Listen, nothing is ever heard.
func (s *Store) Watch(fn func(Change)) (cancel func()) {
	n := &s.notes
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.watchers == nil {
		n.watchers = map[uint64]func(Change){}
	}
	id := n.next
	n.next++
	n.watchers[id] = fn
	return func() {
		n.mu.Lock()
		delete(n.watchers, id)
		n.mu.Unlock()
	}
}

// Live reports whether the store hears other instances' changes as they
// happen. While it is false (SQLite, no listener, or the listener's
// connection lost and not yet back), whoever waits for a change polls.
func (s *Store) Live() bool { return s.notes.live.Load() }

func (n *notifier) dispatch(c Change) {
	n.mu.Lock()
	fns := make([]func(Change), 0, len(n.watchers))
	for _, fn := range n.watchers {
		fns = append(fns, fn)
	}
	n.mu.Unlock()
	for _, fn := range fns {
		fn(c)
	}
}

// notifyChannel is topic's PostgreSQL channel for this store's schema:
// two deployments in two schemas of one database never hear each other.
func (s *Store) notifyChannel(t Topic) string { return "hookgate_" + string(t) + "_" + s.pg.tag }

// notify sends a change to every listening instance when q's transaction
// commits (PostgreSQL delivers notifications at commit, never for a
// rolled-back one). It does nothing on SQLite.
func (s *Store) notify(ctx context.Context, q querier, t Topic, payload string) error {
	if s.pg == nil {
		return nil
	}
	_, err := q.exec(ctx, `SELECT pg_notify($1, $2)`, s.notifyChannel(t), payload)
	return err
}

// schemaTag names the schema the pool's connections use, shortened to a
// fixed length so that channel names stay under PostgreSQL's 63 bytes.
func schemaTag(ctx context.Context, b *pgBackend) (string, error) {
	var schema string
	if err := b.pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(schema))
	return hex.EncodeToString(sum[:6]), nil
}

// startListening runs the listener until Close.
func (s *Store) startListening(retry time.Duration) {
	if retry <= 0 {
		retry = DefaultListenRetry
	}
	ctx, stop := context.WithCancel(context.Background())
	s.notes.stop, s.notes.done = stop, make(chan struct{})
	go s.listen(ctx, retry)
}

// stopListening ends the listener and waits for it.
func (s *Store) stopListening() {
	if s.notes.stop == nil {
		return
	}
	s.notes.stop()
	<-s.notes.done
}

// listen keeps a connection of its own listening, reconnecting after a
// loss with a growing wait.
func (s *Store) listen(ctx context.Context, retry time.Duration) {
	defer close(s.notes.done)
	wait := retry
	for {
		err := s.listenOnce(ctx, func() { wait = retry })
		s.notes.live.Store(false)
		if ctx.Err() != nil {
			return
		}
		s.log.Warn("store notifications lost; waiting approvals poll the store and switches are re-read every second until they are back", "retry_in", wait, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(wait*2, max(retry, maxListenRetry))
	}
}

// errNotDelivered: a notification sent through the pool never reached
// the listener.
var errNotDelivered = errors.New("a test notification sent through the pool did not reach the listener within 5s (is the DSN a transaction-pooling proxy? LISTEN needs a session of its own)")

// probe sends a notification through the pool and waits for it on conn,
// so that a path that accepts LISTEN but delivers nothing (a
// transaction-pooling proxy) is never taken for a live one.
func (s *Store) probe(ctx context.Context, conn *pgx.Conn) error {
	ch := "hookgate_probe_" + s.pg.tag
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
		return err
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	nonce := hex.EncodeToString(b[:])
	if _, err := s.pg.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, ch, nonce); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, listenPing)
	defer cancel()
	for {
		n, err := conn.WaitForNotification(wctx)
		switch {
		case err == nil && n.Channel == ch && n.Payload == nonce:
			_, err = conn.Exec(ctx, "UNLISTEN "+pgx.Identifier{ch}.Sanitize())
			return err
		case err == nil:
			continue // a change before live; the resync that follows covers it
		case ctx.Err() == nil && (errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)):
			return errNotDelivered
		default:
			return err
		}
	}
}

// listenOnce connects, listens on every topic, and hands notifications to
// the watchers until the connection fails or ctx ends. connected is called
// once it listens.
func (s *Store) listenOnce(ctx context.Context, connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, s.pg.ownConnConfig("notify"))
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }() // its error says nothing the caller acts on
	topics := make(map[string]Topic, len(notifyTopics))
	for _, t := range notifyTopics {
		ch := s.notifyChannel(t)
		topics[ch] = t
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return err
		}
	}
	if err := s.probe(ctx, conn); err != nil {
		return err
	}
	s.notes.live.Store(true)
	connected()
	s.log.Info("store notifications heard", "topics", len(topics))
	// Whatever was answered or switched while nobody listened is looked
	// at once.
	s.notes.dispatch(Change{Topic: TopicResync})
	for {
		wctx, cancel := context.WithTimeout(ctx, listenPing)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			if t, ok := topics[n.Channel]; ok {
				s.notes.dispatch(Change{Topic: t, Payload: n.Payload})
			}
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err):
			pctx, cancel := context.WithTimeout(ctx, listenPing)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return err
			}
		default:
			return err
		}
	}
}
