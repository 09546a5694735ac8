package proxy

import "sync/atomic"

// requestBytesLimit names limits.max_inflight_request_bytes in
// hookgate_admission_refused_total and hookgate_admission_in_use.
const requestBytesLimit = "request_bytes"

// bodyBudget bounds the request body bytes one instance holds at once
// (limits.max_inflight_request_bytes). Bytes are counted as they are
// received, never from Content-Length, and given back when the request is
// done with its body (its response, stream included, has been written).
// A nil budget admits everything.
type bodyBudget struct {
	max  int64
	used atomic.Int64
}

// newBodyBudget is a budget of max bytes; zero or less is none (nil).
func newBodyBudget(max int64) *bodyBudget {
	if max <= 0 {
		return nil
	}
	return &bodyBudget{max: max}
}

// take counts n more bytes held, unless that would pass the bound.
func (b *bodyBudget) take(n int) bool {
	if b == nil {
		return true
	}
	if b.used.Add(int64(n)) > b.max {
		b.used.Add(-int64(n))
		return false
	}
	return true
}

// give hands back n bytes taken.
func (b *bodyBudget) give(n int) {
	if b != nil && n > 0 {
		b.used.Add(-int64(n))
	}
}

// inUse is the bytes held now.
func (b *bodyBudget) inUse() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}
