package proxy

import (
	"math"
	"net"
	"sync"
	"time"
)

// Limits of the console's failed logins (wrong tokens), as token
// buckets: a client address may fail loginAddrBurst times in a row, then
// once every loginAddrEvery; all addresses together loginGlobalBurst
// times, then once every loginGlobalEvery. A bucket refills on its own,
// so every refusal ends: an address left alone for
// loginAddrBurst*loginAddrEvery is back to a full bucket.
const (
	loginAddrBurst   = 5
	loginAddrEvery   = 30 * time.Second
	loginGlobalBurst = 50
	loginGlobalEvery = 2 * time.Second
	// loginAddrsKept bounds how many client addresses are remembered; past
	// it, addresses whose buckets are full again are forgotten first.
	loginAddrsKept = 4096
)

// loginThrottle counts failed console logins per client address and
// over all of them, in this process (each instance counts its own).
//
// An address whose bucket is empty is refused (429) before its token is
// looked at, so a guesser learns nothing more until it refills. When only
// the global bucket is empty, the addresses that failed lately are
// refused and the others still get their try: a flood of wrong tokens
// from elsewhere does not keep the real approver out.
type loginThrottle struct {
	now func() time.Time

	mu     sync.Mutex
	addrs  map[string]*loginBucket
	global loginBucket
}

// loginBucket is a token bucket of failures left: tokens as of at.
type loginBucket struct {
	tokens float64
	at     time.Time
}

func newLoginThrottle(now func() time.Time) *loginThrottle {
	if now == nil {
		now = time.Now
	}
	return &loginThrottle{now: now, addrs: map[string]*loginBucket{}, global: loginBucket{tokens: loginGlobalBurst, at: now()}}
}

// level refills b up to now and returns its tokens.
func (b *loginBucket) level(now time.Time, burst float64, every time.Duration) float64 {
	if d := now.Sub(b.at); d > 0 {
		b.tokens = math.Min(burst, b.tokens+float64(d)/float64(every))
	}
	b.at = now
	return b.tokens
}

// wait is how long until b holds one token again.
func (b *loginBucket) wait(every time.Duration) time.Duration {
	return time.Duration((1 - b.tokens) * float64(every))
}

// allow reports whether a login from addr may be tried now; if not, how
// long to wait (at least a second, for Retry-After).
func (t *loginThrottle) allow(addr string) (bool, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	b := t.addrs[addr]
	if b == nil {
		// An address with no failure kept tries even when the global
		// bucket is empty.
		return true, 0
	}
	if b.level(now, loginAddrBurst, loginAddrEvery) < 1 {
		return false, max(time.Second, b.wait(loginAddrEvery))
	}
	if b.tokens < loginAddrBurst && t.global.level(now, loginGlobalBurst, loginGlobalEvery) < 1 {
		return false, max(time.Second, t.global.wait(loginGlobalEvery))
	}
	return true, 0
}

// failed takes one token from addr's bucket and the global one; it
// reports whether addr's bucket is now empty (its next try is refused).
func (t *loginThrottle) failed(addr string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	t.global.level(now, loginGlobalBurst, loginGlobalEvery)
	t.global.tokens = math.Max(0, t.global.tokens-1)
	b := t.addrs[addr]
	if b == nil {
		t.forgetFull(now)
		b = &loginBucket{tokens: loginAddrBurst, at: now}
		t.addrs[addr] = b
	}
	b.level(now, loginAddrBurst, loginAddrEvery)
	b.tokens = math.Max(0, b.tokens-1)
	return b.tokens < 1
}

// forgetFull makes room for a new address when loginAddrsKept are kept:
// addresses whose buckets refilled go first, then any one (its failures
// still count in the global bucket).
func (t *loginThrottle) forgetFull(now time.Time) {
	if len(t.addrs) < loginAddrsKept {
		return
	}
	for k, b := range t.addrs {
		if b.level(now, loginAddrBurst, loginAddrEvery) >= loginAddrBurst {
			delete(t.addrs, k)
		}
	}
	for k := range t.addrs {
		if len(t.addrs) < loginAddrsKept {
			break
		}
		delete(t.addrs, k)
	}
}

// clientKey is the address a login is counted under: an IPv4 address
// whole, an IPv6 address by its /64 (one host usually holds the whole
// prefix).
func clientKey(ip net.IP) string {
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	if len(ip) == net.IPv6len {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}
