package interceptors

import (
	"sync"
	"time"
)

// Session is what hookgate remembers of one agent session, so that the
// history an agent resends every turn neither fires its events again nor
// loses what hooks added: injected context, context added to prompts, and
// rewritten tool results are re-applied identically on every resend (the
// prefix stays stable for prompt caching).
//
// A session's lock is held while its request-side events fire, so two
// concurrent requests of one session cannot both fire the same event.
type Session struct {
	mu sync.Mutex

	// Started is set once session_start has fired; Context is what its
	// hooks contributed.
	Started bool
	Context string
	// SubagentStarted is set once subagent_start has fired (and allowed).
	SubagentStarted bool
	// Prompts maps a user message's key to the context hooks added to it
	// ("" when none); presence means user_prompt_submit has fired for it.
	Prompts map[string]string
	// Results maps a tool_call_id to its rewritten result (nil when not
	// rewritten); presence means post_tool_use has fired for it.
	Results map[string]*string

	expires time.Time
}

// Memory holds sessions. The in-memory implementation forgets a session
// after its time to live without use; the store-backed one (with the audit
// store) survives restarts and is shared between instances.
//
// A store-backed memory can be unreachable. It then fails Lock (or
// Unlock's save) instead of serving a session from somewhere else: a
// session kept elsewhere is never written back, so its once-per-session
// events would fire again on every instance and after the store returns.
// The interceptors answer such a request with a 503 and Retry-After
// (session_memory_unavailable) before any request-side hook runs.
type Memory interface {
	// Lock returns the session with the given id, created empty if needed,
	// with its lock held; or an error, with nothing held, when the memory
	// cannot be reached. After a nil error the caller must call Unlock,
	// after which it must not touch the session.
	Lock(id string) (*Session, error)
	// Unlock saves what the caller changed and releases the session. An
	// error means the change was not saved (the session is released
	// anyway).
	Unlock(s *Session) error
}

// localMemory is Memory in this process, with expiry.
type localMemory struct {
	ttl      time.Duration
	now      func() time.Time
	mu       sync.Mutex
	sessions map[string]*Session
	lastGC   time.Time
}

// NewLocalMemory returns a Memory that keeps sessions in this process and
// forgets one after ttl without a request.
func NewLocalMemory(ttl time.Duration) Memory {
	return &localMemory{ttl: ttl, now: time.Now, sessions: map[string]*Session{}}
}

func (m *localMemory) Lock(id string) (*Session, error) {
	now := m.now()
	m.mu.Lock()
	s, ok := m.sessions[id]
	if !ok || now.After(s.expires) {
		s = &Session{Prompts: map[string]string{}, Results: map[string]*string{}}
		m.sessions[id] = s
	}
	s.expires = now.Add(m.ttl)
	if now.Sub(m.lastGC) > m.ttl/4+time.Second {
		m.collect(now)
	}
	m.mu.Unlock()
	s.mu.Lock()
	return s, nil
}

func (m *localMemory) Unlock(s *Session) error {
	s.mu.Unlock()
	return nil
}

// collect forgets expired sessions; m.mu is held.
func (m *localMemory) collect(now time.Time) {
	m.lastGC = now
	for id, s := range m.sessions {
		if now.After(s.expires) && s.mu.TryLock() {
			delete(m.sessions, id)
			s.mu.Unlock()
		}
	}
}

// Len is the number of sessions remembered (for tests and metrics).
func (m *localMemory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}
