package channels

import (
	"sync"
	"time"
)

// maxSeen bounds the replay memory of one channel. A genuine sender making
// more than this many signed callbacks inside FreshnessWindow only makes
// the oldest ones forgettable early; nothing else can add entries, since
// only verified callbacks are remembered.
const maxSeen = 4096

// seenSet remembers the signatures of accepted callbacks for
// FreshnessWindow, so that the same signed request is accepted once per
// process. Entries are kept in arrival order: expiry and eviction both
// take from the front.
type seenSet struct {
	mu    sync.Mutex
	at    map[string]time.Time
	order []string
}

func newSeenSet() *seenSet {
	return &seenSet{at: make(map[string]time.Time)}
}

// first records key at now and reports whether it was new. Entries older
// than twice the window are dropped first (a request can be signed up to a
// window in the future and arrive up to a window late).
func (s *seenSet) first(key string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	cutoff := now.Add(-2 * FreshnessWindow)
	drop := 0
	for drop < len(s.order) {
		k := s.order[drop]
		if t, ok := s.at[k]; ok && t.After(cutoff) && len(s.order)-drop < maxSeen {
			break
		}
		delete(s.at, k)
		drop++
	}
	if drop > 0 {
		s.order = append(s.order[:0], s.order[drop:]...)
	}
	if _, ok := s.at[key]; ok {
		return false
	}
	s.at[key] = now
	s.order = append(s.order, key)
	return true
}
