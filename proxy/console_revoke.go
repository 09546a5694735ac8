package proxy

import (
	"context"
	"sync"
	"time"
)

// ConsoleRevocations keeps the console sessions that were logged out
// where every instance sees them (the store): a copied cookie is refused
// after its logout by whichever instance it is presented to.
type ConsoleRevocations interface {
	// RevokeConsoleSession records id as logged out until expires (the
	// cookie's own expiry; it is refused anyway after that).
	RevokeConsoleSession(ctx context.Context, id, by string, expires time.Time) error
	// ConsoleSessionRevoked reports whether id was logged out.
	ConsoleSessionRevoked(ctx context.Context, id string) (bool, error)
}

// revocations checks every console request's session against the
// store. Only revocations are cached: once logged out a session never
// comes back, so a cached "revoked" is always right, while a session
// still live is looked up again on each request (one primary-key read;
// BenchmarkConsoleSessionRevoked in store), and a logout on any instance
// is refused at once everywhere. With no store (nil), logouts are kept
// in this process only.
type revocations struct {
	store ConsoleRevocations

	mu    sync.Mutex
	known map[string]time.Time // revoked ids and their cookies' expiry
}

// revokedKept is how many revoked ids are cached before the expired ones
// are dropped.
const revokedKept = 1024

func newRevocations(store ConsoleRevocations) *revocations {
	return &revocations{store: store, known: map[string]time.Time{}}
}

// check returns errNoSession when s was logged out, the store's error
// when that could not be looked up, nil otherwise.
func (r *revocations) check(ctx context.Context, s consoleSession) error {
	r.mu.Lock()
	_, known := r.known[s.id]
	r.mu.Unlock()
	if known {
		return errNoSession
	}
	if r.store == nil {
		return nil
	}
	revoked, err := r.store.ConsoleSessionRevoked(ctx, s.id)
	if err != nil {
		return err
	}
	if revoked {
		r.remember(s)
		return errNoSession
	}
	return nil
}

// revoke logs s out: in the store first, so that a failure leaves the
// session as it was and is reported.
func (r *revocations) revoke(ctx context.Context, s consoleSession, by string) error {
	if r.store != nil {
		if err := r.store.RevokeConsoleSession(ctx, s.id, by, s.expires); err != nil {
			return err
		}
	}
	r.remember(s)
	return nil
}

func (r *revocations) remember(s consoleSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.known) >= revokedKept {
		now := time.Now()
		for id, exp := range r.known {
			if !now.Before(exp) {
				delete(r.known, id)
			}
		}
	}
	r.known[s.id] = s.expires
}
