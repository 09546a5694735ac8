package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/store"
)

// Session lock bounds: how long a request waits for its session (another
// request of the same session holds it while its hooks run) and how long
// a save may take.
const (
	sessionLockWait = 30 * time.Second
	sessionSaveWait = 10 * time.Second
)

// StoreMemory is interceptors.Memory in the store's sessions table, so
// that a restart, or another instance on the same PostgreSQL, neither
// re-fires a session's events nor forgets what its hooks added. A
// session's lock is the store's (process-local on SQLite, a row lock on
// PostgreSQL), held from Lock to Unlock.
//
// When the store fails, Lock (or Unlock's save) fails and the interceptors
// refuse the request with a 503 and Retry-After: a session kept anywhere
// else would never be written back, so its once-per-session events would
// fire again on every instance and once the store returns. A request waits
// at most sessionLockWait for a store that does not answer.
type StoreMemory struct {
	st  *store.Store
	ttl time.Duration
	log *slog.Logger

	mu   sync.Mutex
	held map[*interceptors.Session]*heldSession

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

var _ interceptors.Memory = (*StoreMemory)(nil)

type heldSession struct {
	lock     *store.LockedSession
	baseline []byte // the state as loaded, re-encoded
	expires  time.Time
}

// sessionState is the JSON of a session in the sessions table.
type sessionState struct {
	Started         bool               `json:"started,omitempty"`
	Context         string             `json:"context,omitempty"`
	SubagentStarted bool               `json:"subagentStarted,omitempty"`
	Prompts         map[string]string  `json:"prompts,omitempty"`
	Results         map[string]*string `json:"results,omitempty"`
}

// NewStoreMemory keeps sessions in st for ttl after their last request,
// and sweeps expired ones in the background until Close.
func NewStoreMemory(st *store.Store, ttl time.Duration, log *slog.Logger) *StoreMemory {
	if log == nil {
		log = slog.Default()
	}
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	m := &StoreMemory{
		st: st, ttl: ttl, log: log,
		held: map[*interceptors.Session]*heldSession{},
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go m.sweep()
	return m
}

// Lock loads the session and holds its lock until Unlock; it fails when
// the store does not answer.
func (m *StoreMemory) Lock(id string) (*interceptors.Session, error) {
	ctx, cancel := context.WithTimeout(context.Background(), sessionLockWait)
	l, err := m.st.LockSession(ctx, id)
	cancel()
	if err != nil {
		m.log.Warn("session memory: store unavailable; the request is refused", "err", err)
		return nil, fmt.Errorf("session memory: %w", err)
	}
	var st sessionState
	if l.State != nil {
		if err := json.Unmarshal(l.State, &st); err != nil {
			m.log.Warn("session memory: unreadable state; starting the session afresh", "err", err)
			st = sessionState{}
		}
	}
	s := &interceptors.Session{
		Started:         st.Started,
		Context:         st.Context,
		SubagentStarted: st.SubagentStarted,
		Prompts:         st.Prompts,
		Results:         st.Results,
	}
	if s.Prompts == nil {
		s.Prompts = map[string]string{}
	}
	if s.Results == nil {
		s.Results = map[string]*string{}
	}
	m.hold(s, &heldSession{lock: l, baseline: m.baseline(l.State, s), expires: l.ExpiresAt})
	return s, nil
}

// baseline is the state as loaded, in encodeSession's form, for Unlock to
// tell whether anything changed. SQLite keeps the text as saved, which is
// encodeSession's output, so it is used as it is (a state saved in another
// form only costs one save that rewrites it); PostgreSQL's jsonb
// normalises the text, so there the loaded state is encoded again.
func (m *StoreMemory) baseline(saved []byte, s *interceptors.Session) []byte {
	if saved != nil && m.st.Driver() == store.SQLite {
		return saved
	}
	return encodeSession(s)
}

func (m *StoreMemory) hold(s *interceptors.Session, h *heldSession) {
	m.mu.Lock()
	m.held[s] = h
	m.mu.Unlock()
}

// Unlock saves what changed (and refreshes the expiry once a quarter of
// the time to live has passed) and releases the session. An error means
// the change was not saved.
func (m *StoreMemory) Unlock(s *interceptors.Session) error {
	m.mu.Lock()
	h, ok := m.held[s]
	delete(m.held, s)
	m.mu.Unlock()
	if !ok {
		return nil
	}
	state := encodeSession(s)
	now := time.Now()
	if bytes.Equal(state, h.baseline) && h.expires.Sub(now) > m.ttl*3/4 {
		h.lock.Release()
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sessionSaveWait)
	defer cancel()
	if err := h.lock.Save(ctx, state, now.Add(m.ttl)); err != nil {
		m.log.Warn("session memory: state not saved; the request is refused", "err", err)
		return fmt.Errorf("session memory: %w", err)
	}
	return nil
}

func encodeSession(s *interceptors.Session) []byte {
	b, _ := json.Marshal(sessionState{ // strings and maps of strings always marshal
		Started:         s.Started,
		Context:         s.Context,
		SubagentStarted: s.SubagentStarted,
		Prompts:         s.Prompts,
		Results:         s.Results,
	})
	return b
}

// sweep deletes expired sessions now and then.
func (m *StoreMemory) sweep() {
	defer close(m.done)
	every := min(max(m.ttl/4, time.Minute), 10*time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if _, err := m.st.ExpireSessions(ctx); err != nil {
				m.log.Warn("session memory: expired sessions not swept", "err", err)
			}
			cancel()
		}
	}
}

// Close stops the sweeper. Sessions still locked stay valid until
// unlocked.
func (m *StoreMemory) Close() {
	m.once.Do(func() { close(m.stop) })
	<-m.done
}
