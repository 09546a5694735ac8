package proxy

import (
	"sync/atomic"
	"time"
)

// spacedLog lets a line that a flood would repeat through at most once
// per interval, and counts what it held back, so a client cannot fill the
// log while the operator still sees that, and how often, it happens.
type spacedLog struct {
	every   time.Duration
	last    atomic.Int64 // unix nanoseconds of the last line let through
	pending atomic.Int64 // events since then
}

// due counts one event and reports whether a line is due now, with the
// events it covers (this one included).
func (l *spacedLog) due() (int64, bool) {
	n := l.pending.Add(1)
	now := time.Now().UnixNano()
	last := l.last.Load()
	if now-last < int64(l.every) || !l.last.CompareAndSwap(last, now) {
		return 0, false
	}
	l.pending.Add(-n)
	return n, true
}
