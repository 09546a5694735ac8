package builtin

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// memoryCounter keeps fixed-window counters in memory, for one instance.
//
// It cannot grow without bound: a counter is dropped once its window has
// passed, and at most maxKeys counters live at once. Every window has the
// same length and starts when it is created, so windows end in the order
// they started: a queue of starts finds the expired ones without scanning
// the map. When maxKeys counters are live, a call that would need a new one
// is an error (the hook fails closed) rather than evicting a live counter,
// which would hand its budget back.
type memoryCounter struct {
	window  time.Duration
	maxKeys int
	now     func() time.Time

	mu     sync.Mutex
	counts map[rateKey]memWindow
	starts []windowStart // in start order; starts[head:] are pending
	head   int
}

type memWindow struct {
	start time.Time
	count int64
}

// windowStart records when a key's window started. A key whose window was
// restarted has a newer entry later in the queue; the older one is then
// stale and skipped.
type windowStart struct {
	key   rateKey
	start time.Time
}

func newMemoryCounter(window time.Duration, maxKeys int, now func() time.Time) *memoryCounter {
	return &memoryCounter{window: window, maxKeys: maxKeys, now: now, counts: map[rateKey]memWindow{}}
}

func (c *memoryCounter) hit(_ context.Context, k rateKey) (int64, time.Duration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Read the clock under the lock so that starts enter the queue in
	// order.
	now := c.now()
	c.expire(now)
	w, ok := c.counts[k]
	if !ok || now.Sub(w.start) >= c.window {
		if !ok && len(c.counts) >= c.maxKeys {
			return 0, 0, fmt.Errorf("in-memory counters full (%d live keys, max_keys)", len(c.counts))
		}
		w = memWindow{start: now}
		c.starts = append(c.starts, windowStart{key: k, start: now})
	}
	w.count++
	c.counts[k] = w
	return w.count, w.start.Add(c.window).Sub(now), nil
}

// expire drops the counters whose window has ended.
func (c *memoryCounter) expire(now time.Time) {
	for c.head < len(c.starts) {
		s := c.starts[c.head]
		if now.Sub(s.start) < c.window {
			break
		}
		if w, ok := c.counts[s.key]; ok && w.start.Equal(s.start) {
			delete(c.counts, s.key)
		}
		c.starts[c.head] = windowStart{}
		c.head++
	}
	// Reuse the queue's space once most of it has been consumed.
	if c.head > 64 && c.head*2 >= len(c.starts) {
		n := copy(c.starts, c.starts[c.head:])
		clear(c.starts[n:])
		c.starts = c.starts[:n]
		c.head = 0
	}
}

// size reports the live counters and queued starts, for tests.
func (c *memoryCounter) size() (keys, queued int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.counts), len(c.starts) - c.head
}
