package proxy

import (
	"net"
	"strconv"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newFakeClock() *fakeClock           { return &fakeClock{t: time.Unix(1_700_000_000, 0)} }
func failN(t *loginThrottle, addr string, n int) {
	for range n {
		t.failed(addr)
	}
}

func TestLoginThrottlePerAddressEndsOnItsOwn(t *testing.T) {
	clk := newFakeClock()
	th := newLoginThrottle(clk.now)
	for i := range loginAddrBurst {
		if ok, _ := th.allow("10.0.0.1"); !ok {
			t.Fatalf("try %d refused before %d failures", i+1, loginAddrBurst)
		}
		empty := th.failed("10.0.0.1")
		if empty != (i == loginAddrBurst-1) {
			t.Fatalf("after failure %d the bucket is empty: %v", i+1, empty)
		}
	}
	ok, wait := th.allow("10.0.0.1")
	if ok || wait < time.Second || wait > loginAddrEvery {
		t.Fatalf("after %d failures: allowed %v, wait %v", loginAddrBurst, ok, wait)
	}
	if ok, _ := th.allow("10.0.0.2"); !ok {
		t.Fatal("another address is refused")
	}
	clk.add(wait)
	if ok, _ := th.allow("10.0.0.1"); !ok {
		t.Fatalf("still refused after the wait it was given (%v)", wait)
	}
	th.failed("10.0.0.1")
	if ok, _ := th.allow("10.0.0.1"); ok {
		t.Fatal("one token back, one failure, and the next try is allowed")
	}
	clk.add(loginAddrBurst * loginAddrEvery)
	for i := range loginAddrBurst {
		if ok, _ := th.allow("10.0.0.1"); !ok {
			t.Fatalf("after a long rest try %d is refused", i+1)
		}
		th.failed("10.0.0.1")
	}
}

// A flood of failures from many addresses empties the global bucket: the
// addresses that failed are refused, one that did not still tries, and
// the refusal ends.
func TestLoginThrottleGlobalSparesCleanAddresses(t *testing.T) {
	clk := newFakeClock()
	th := newLoginThrottle(clk.now)
	for i := range loginGlobalBurst {
		failN(th, "192.0.2."+strconv.Itoa(i%200), 1)
	}
	ok, wait := th.allow("192.0.2.1")
	if ok || wait < time.Second || wait > loginGlobalEvery+time.Second {
		t.Fatalf("an address that failed, with the global bucket empty: allowed %v, wait %v", ok, wait)
	}
	if ok, _ := th.allow("198.51.100.7"); !ok {
		t.Fatal("an address that never failed is refused while the global bucket is empty")
	}
	clk.add(wait)
	if ok, _ := th.allow("192.0.2.1"); !ok {
		t.Fatalf("still refused after the wait it was given (%v)", wait)
	}
}

func TestLoginThrottleKeepsBoundedAddresses(t *testing.T) {
	clk := newFakeClock()
	th := newLoginThrottle(clk.now)
	for i := range loginAddrsKept + 100 {
		th.failed(net.IPv4(10, byte(i>>16), byte(i>>8), byte(i)).String())
	}
	if n := len(th.addrs); n > loginAddrsKept {
		t.Fatalf("%d addresses kept, want at most %d", n, loginAddrsKept)
	}
}

func TestClientKeyGroupsIPv6By64(t *testing.T) {
	a := clientKey(net.ParseIP("2001:db8:1:2:aaaa::1"))
	b := clientKey(net.ParseIP("2001:db8:1:2:bbbb::9"))
	c := clientKey(net.ParseIP("2001:db8:1:3::1"))
	if a != b || a == c {
		t.Fatalf("keys %q %q %q", a, b, c)
	}
	if k := clientKey(net.ParseIP("::ffff:192.0.2.1")); k != "192.0.2.1" {
		t.Fatalf("a mapped IPv4 address is %q", k)
	}
}
