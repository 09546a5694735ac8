package builtin

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookgate/hookgate/hooks"
	"github.com/redis/go-redis/v9"
)

// freezingProxy is a loopback TCP proxy in front of Redis that can freeze
// as a stopped server does: while frozen it reads what clients send but
// forwards nothing either way; on thaw it delivers everything it held, even
// for clients that have given up and closed their connection, as a resumed
// server runs what its sockets hold.
type freezingProxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	frozen bool
	thawed *sync.Cond
	wg     sync.WaitGroup
}

func newFreezingProxy(t *testing.T, target string) *freezingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &freezingProxy{ln: ln, target: target}
	p.thawed = sync.NewCond(&p.mu)
	go p.accept()
	t.Cleanup(func() {
		p.thaw()
		ln.Close()
		p.wg.Wait()
	})
	return p
}

func (p *freezingProxy) addr() string { return p.ln.Addr().String() }

func (p *freezingProxy) freeze() {
	p.mu.Lock()
	p.frozen = true
	p.mu.Unlock()
}

func (p *freezingProxy) thaw() {
	p.mu.Lock()
	p.frozen = false
	p.thawed.Broadcast()
	p.mu.Unlock()
}

func (p *freezingProxy) waitThawed() {
	p.mu.Lock()
	for p.frozen {
		p.thawed.Wait()
	}
	p.mu.Unlock()
}

func (p *freezingProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.wg.Add(2)
		go p.pipe(up, c, true)
		go p.pipe(c, up, false)
	}
}

// pipe copies src to dst, holding each read while frozen. Towards the
// server (toServer) it delivers everything before closing its write side,
// so commands a client sent before leaving still run.
func (p *freezingProxy) pipe(dst, src net.Conn, toServer bool) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.waitThawed()
			if _, werr := dst.Write(buf[:n]); werr != nil && !toServer {
				break
			}
		}
		if err != nil {
			break
		}
	}
	if toServer {
		p.waitThawed()
		// Give the server time to answer before the connection goes.
		time.Sleep(100 * time.Millisecond)
	}
	dst.Close()
	src.Close()
}

// counterValue reads the shared counter of tenant acme's exec calls.
func counterValue(t *testing.T, c *redis.Client, prefix string) int64 {
	t.Helper()
	keys, err := c.Keys(context.Background(), prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.HasSuffix(k, ":acme:exec}") { // the counter, its hash tag's end

			n, err := c.Get(context.Background(), k).Int64()
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	return 0
}

// TestRedisFrozenCallsDoNotSpendBudget freezes Redis while calls are
// counted: they time out and are blocked (fail closed), and once Redis
// resumes and runs the commands it held, none of them has spent the
// budget: the counter is back to zero, and the full limit of later calls
// is allowed, no more.
func TestRedisFrozenCallsDoNotSpendBudget(t *testing.T) {
	addr := redisAddr(t)
	prefix := redisPrefix(t, addr)
	proxy := newFreezingProxy(t, addr)
	t.Setenv("HG_TEST_FROZEN_REDIS", proxy.addr())
	h, err := NewRateLimit(hooks.BuiltinConfig{HookID: "frozen", Event: hooks.PreToolUse, With: map[string]any{
		"limit": 10, "window": "1m", "redis": map[string]any{"addr_env": "HG_TEST_FROZEN_REDIS", "key_prefix": prefix},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.(hooks.Closer).Close()
	direct := redis.NewClient(&redis.Options{Addr: addr})
	defer direct.Close()

	// Concurrent calls open connections (each frozen call below then
	// sends its script on one) and the window.
	const warmCalls = 6
	var wg sync.WaitGroup
	for range warmCalls {
		wg.Go(func() {
			res, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: "exec"})
			if err != nil || res.Decision != hooks.Allow {
				t.Errorf("warm-up call: %v %s", err, res.Reason)
			}
		})
	}
	wg.Wait()
	proxy.freeze()
	const frozenCalls = 6
	for range frozenCalls {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
			defer cancel()
			_, err := h.Handle(ctx, &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: "exec"})
			if err == nil {
				t.Error("a call against a frozen Redis got an answer")
			}
		})
	}
	wg.Wait()
	// Withdrawals tried while frozen time out too and are retried.
	time.Sleep(withdrawTimeout + 100*time.Millisecond)
	proxy.thaw()

	rl := h.(*rateLimit).counter.(*redisCounter)
	deadline := time.Now().Add(10 * time.Second)
	for rl.withdrawals.len() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := rl.withdrawals.len(); n != 0 {
		t.Fatalf("%d withdrawals still pending after Redis resumed", n)
	}
	// Let every held command land.
	time.Sleep(300 * time.Millisecond)
	if n := counterValue(t, direct, prefix); n != warmCalls {
		t.Fatalf("counter reads %d after %d allowed calls and %d calls blocked on a frozen Redis, want %d", n, warmCalls, frozenCalls, warmCalls)
	}
	for i := warmCalls; i < 10; i++ {
		if res := call(t, h, "acme", "", "exec"); res.Decision != hooks.Allow {
			t.Fatalf("call %d after the freeze: %s", i+1, res.Reason)
		}
	}
	if res := call(t, h, "acme", "", "exec"); res.Decision != hooks.Block {
		t.Fatal("call 11 allowed over a limit of 10")
	}
	if n := counterValue(t, direct, prefix); n != 11 {
		t.Fatalf("counter reads %d after 11 calls, want 11", n)
	}
}

// TestRedisWithdrawEitherOrder runs the two scripts of one attempt in both
// orders, as a resumed server may: a withdrawal that lands first leaves a
// tombstone and the count that follows counts nothing; a withdrawal that
// lands second takes the count back; a repeated withdrawal changes nothing.
func TestRedisWithdrawEitherOrder(t *testing.T) {
	addr := redisAddr(t)
	prefix := redisPrefix(t, addr)
	c := newRedisRateLimit(t, prefix, map[string]any{"limit": 5, "window": "1m"}).(*rateLimit).counter.(*redisCounter)
	ctx := context.Background()
	k := rateKey{tenant: "acme", tool: "exec"}
	count := func(a attempt) []int64 {
		v, err := rateScript.Run(ctx, c.client, a.keys[:], c.windowMS, a.id).Int64Slice()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	value := func() int64 {
		n, err := c.client.Get(ctx, c.key(k)).Int64()
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		return n
	}

	kept := c.attempt(k, "kept")
	if v := count(kept); v[0] != 1 {
		t.Fatalf("first count %v", v)
	}
	late := c.attempt(k, "landed-late")
	if err := c.withdraw(ctx, late, time.Minute); err != nil {
		t.Fatal(err)
	}
	if v := count(late); v[0] != -1 {
		t.Fatalf("a withdrawn attempt counted: %v", v)
	}
	if n := value(); n != 1 {
		t.Fatalf("counter %d after a withdrawn attempt landed, want 1", n)
	}

	early := c.attempt(k, "landed-early")
	if v := count(early); v[0] != 2 {
		t.Fatalf("count %v, want 2", v)
	}
	for i := range 2 {
		if err := c.withdraw(ctx, early, time.Minute); err != nil {
			t.Fatal(err)
		}
		if n := value(); n != 1 {
			t.Fatalf("withdrawal %d: counter %d, want 1", i+1, n)
		}
	}
	marks, err := c.client.HKeys(ctx, kept.keys[1]).Result()
	if err != nil || len(marks) != 1 || marks[0] != "kept" {
		t.Fatalf("marks %v (%v), want only the kept attempt's", marks, err)
	}
	if ttl, err := c.client.PTTL(ctx, late.keys[2]).Result(); err != nil || ttl <= 0 || ttl > time.Minute {
		t.Fatalf("tombstone ttl %v (%v)", ttl, err)
	}
	// The marks expire with the window.
	ttl, _ := c.client.PTTL(ctx, kept.keys[1]).Result()
	cttl, _ := c.client.PTTL(ctx, kept.keys[0]).Result()
	if ttl <= 0 || cttl-ttl > time.Second || ttl-cttl > time.Second {
		t.Fatalf("mark ttl %v, counter ttl %v: they must expire together", ttl, cttl)
	}
}
