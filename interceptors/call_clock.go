package interceptors

import (
	"sync"
	"time"
)

// callClock remembers when each tool call reached its agent, so that
// post_tool_use can tell how long the tool took (metadata.toolCallAt). It
// is bounded: two generations of at most max entries each; the older
// generation is forgotten when the newer fills. It is process-local: a
// result that reaches another instance has no call time.
type callClock struct {
	mu       sync.Mutex
	max      int
	cur, old map[string]time.Time
}

func newCallClock(max int) *callClock {
	return &callClock{max: max, cur: map[string]time.Time{}}
}

func callKey(session, callID string) string { return session + "\x00" + callID }

// issued notes that a call reached its agent now.
func (c *callClock) issued(session, callID string) {
	if callID == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cur) >= c.max {
		c.old, c.cur = c.cur, make(map[string]time.Time, c.max)
	}
	c.cur[callKey(session, callID)] = time.Now()
}

// at reports when a call reached its agent, if this instance remembers.
func (c *callClock) at(session, callID string) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := callKey(session, callID)
	if t, ok := c.cur[k]; ok {
		return t, true
	}
	t, ok := c.old[k]
	return t, ok
}
