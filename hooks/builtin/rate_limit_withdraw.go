package builtin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// Bounds of the background withdrawals of the Redis counter.
const (
	// maxPendingWithdrawals bounds the attempts waiting to be withdrawn.
	// Past it a failed attempt keeps its count: budget is spent, no call
	// gets through.
	maxPendingWithdrawals = 10_000
	// withdrawRetry is the pause between rounds while Redis does not
	// answer, and withdrawTimeout bounds one withdrawal.
	withdrawRetry   = 250 * time.Millisecond
	withdrawTimeout = time.Second
	// minTombstone is the least time a tombstone waits for its attempt to
	// land: a frozen server runs what its sockets hold once it resumes,
	// however late.
	minTombstone = time.Hour
)

// tombstoneLifetime is how long a withdrawn attempt that has not landed
// is refused: an hour at least, two windows for longer windows.
func tombstoneLifetime(window time.Duration) time.Duration {
	return max(minTombstone, 2*window)
}

// newAttemptID names one counting attempt. Each attempt has its own id, so
// a resent call is counted (and withdrawn) on its own.
func newAttemptID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// withdrawals retries the withdrawal of failed attempts until Redis
// answers. The withdrawal script is idempotent, so a withdrawal whose
// answer was lost is simply run again.
type withdrawals struct {
	run       func(ctx context.Context, keys attempt, tombstone time.Duration) error
	tombstone time.Duration

	mu      sync.Mutex
	pending map[attempt]struct{}
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	started bool
	closed  bool
}

func newWithdrawals(run func(context.Context, attempt, time.Duration) error, tombstone time.Duration) *withdrawals {
	return &withdrawals{
		run:       run,
		tombstone: tombstone,
		pending:   map[attempt]struct{}{},
		wake:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
	}
}

// add queues one attempt's withdrawal; the worker starts with the first.
func (w *withdrawals) add(keys attempt) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || len(w.pending) >= maxPendingWithdrawals {
		return
	}
	w.pending[keys] = struct{}{}
	if !w.started {
		w.started = true
		go w.loop()
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// loop withdraws what is pending, in rounds, until closed.
func (w *withdrawals) loop() {
	defer close(w.done)
	for {
		select {
		case <-w.stop:
			return
		case <-w.wake:
		}
		for w.round() {
			select {
			case <-w.stop:
				return
			case <-time.After(withdrawRetry):
			}
		}
	}
}

// round tries every pending withdrawal once; it reports whether some are
// left.
func (w *withdrawals) round() bool {
	w.mu.Lock()
	batch := make([]attempt, 0, len(w.pending))
	for k := range w.pending {
		batch = append(batch, k)
	}
	w.mu.Unlock()
	for _, k := range batch {
		ctx, cancel := context.WithTimeout(context.Background(), withdrawTimeout)
		err := w.run(ctx, k, w.tombstone)
		cancel()
		if err != nil {
			// Redis still does not answer: the rest would wait as long.
			break
		}
		w.mu.Lock()
		delete(w.pending, k)
		w.mu.Unlock()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending) > 0
}

// len reports the pending withdrawals, for tests.
func (w *withdrawals) len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending)
}

// close stops the worker and waits for it.
func (w *withdrawals) close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	started := w.started
	w.mu.Unlock()
	close(w.stop)
	if started {
		<-w.done
	}
}
