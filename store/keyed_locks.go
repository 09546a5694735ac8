package store

import (
	"context"
	"sync"
)

// keyedLocks is one mutex per key, created on first use and forgotten when
// nobody holds or waits for it. Waiting honours the context.
type keyedLocks struct {
	mu sync.Mutex
	m  map[string]*keyedLock
}

type keyedLock struct {
	ch   chan struct{} // holds a token while the lock is held
	refs int           // holders and waiters
}

// lock takes the key's lock; the returned func releases it once.
func (k *keyedLocks) lock(ctx context.Context, key string) (func(), error) {
	k.mu.Lock()
	if k.m == nil {
		k.m = map[string]*keyedLock{}
	}
	l := k.m[key]
	if l == nil {
		l = &keyedLock{ch: make(chan struct{}, 1)}
		k.m[key] = l
	}
	l.refs++
	k.mu.Unlock()

	select {
	case l.ch <- struct{}{}:
	case <-ctx.Done():
		k.forget(key, l)
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-l.ch
			k.forget(key, l)
		})
	}, nil
}

func (k *keyedLocks) forget(key string, l *keyedLock) {
	k.mu.Lock()
	l.refs--
	if l.refs == 0 {
		delete(k.m, key)
	}
	k.mu.Unlock()
}

// len is the number of keys held or waited for (tests).
func (k *keyedLocks) len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.m)
}
