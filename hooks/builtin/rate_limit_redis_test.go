package builtin

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/testenv"
	"github.com/redis/go-redis/v9"
)

// redisAddr returns the test server's address, or skips the test. CI sets
// HOOKGATE_REDIS_ADDR; locally, `eval "$(scripts/services.sh)"` starts a
// server and sets it.
func redisAddr(t *testing.T) string {
	t.Helper()
	return testenv.Redis(t)
}

// redisPrefix is a key prefix of the test's own, removed when it ends.
func redisPrefix(t *testing.T, addr string) string {
	t.Helper()
	prefix := fmt.Sprintf("hookgate-test:%s:%d:", t.Name(), time.Now().UnixNano())
	t.Cleanup(func() {
		c := redis.NewClient(&redis.Options{Addr: addr})
		defer c.Close()
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	return prefix
}

// newRedisRateLimit builds a rate_limit as one proxy instance would, from
// the same entry every instance has.
func newRedisRateLimit(t *testing.T, prefix string, with map[string]any) hooks.Handler {
	t.Helper()
	with["redis"] = map[string]any{"key_prefix": prefix} // addr_env defaults to HOOKGATE_REDIS_ADDR
	h, err := NewRateLimit(hooks.BuiltinConfig{HookID: "shared-limit", Event: hooks.PreToolUse, With: with})
	if err != nil {
		t.Fatalf("NewRateLimit: %v", err)
	}
	t.Cleanup(func() { h.(hooks.Closer).Close() })
	return h
}

// TestRedisSharedBudget runs two handlers, as two proxy instances would,
// against one budget.
func TestRedisSharedBudget(t *testing.T) {
	addr := redisAddr(t)
	prefix := redisPrefix(t, addr)
	with := func() map[string]any { return map[string]any{"limit": 5, "window": "1m"} }
	a, b := newRedisRateLimit(t, prefix, with()), newRedisRateLimit(t, prefix, with())
	for i, h := range []hooks.Handler{a, b, a, b, a} {
		if res := call(t, h, "acme", "", "exec"); res.Decision != hooks.Allow {
			t.Fatalf("call %d: %s", i, res.Reason)
		}
	}
	for name, h := range map[string]hooks.Handler{"a": a, "b": b} {
		res := call(t, h, "acme", "", "exec")
		if res.Decision != hooks.Block || !strings.Contains(res.Reason, "at most 5 calls") || !strings.Contains(res.Reason, "per 1m") || !strings.Contains(res.Reason, "retry after") {
			t.Fatalf("instance %s, call 6: %s %q", name, res.Decision, res.Reason)
		}
	}
	// Another tenant, another tool: their own budgets.
	if res := call(t, b, "other", "", "exec"); res.Decision != hooks.Allow {
		t.Fatal("another tenant shares acme's budget")
	}
	if res := call(t, a, "acme", "", "read"); res.Decision != hooks.Allow {
		t.Fatal("another tool shares exec's budget")
	}

	// The counter has the window's expiry.
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	keys, err := c.Keys(context.Background(), prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	// Three counters, each with its window's set of attempts.
	if len(keys) != 6 {
		t.Fatalf("keys %v, want 6", keys)
	}
	for _, k := range keys {
		ttl, err := c.PTTL(context.Background(), k).Result()
		if err != nil || ttl <= 0 || ttl > time.Minute {
			t.Fatalf("key %s has ttl %v (%v)", k, ttl, err)
		}
	}
}

// TestRedisConcurrentInstances hammers one budget from two instances at
// once: exactly the limit gets through.
func TestRedisConcurrentInstances(t *testing.T) {
	addr := redisAddr(t)
	prefix := redisPrefix(t, addr)
	instances := []hooks.Handler{
		newRedisRateLimit(t, prefix, map[string]any{"limit": 37, "window": "1m"}),
		newRedisRateLimit(t, prefix, map[string]any{"limit": 37, "window": "1m"}),
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for g := range 20 {
		wg.Go(func() {
			h := instances[g%2]
			for range 10 {
				res, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: "exec"})
				if err != nil {
					t.Error(err)
					return
				}
				if res.Decision == hooks.Allow {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if allowed != 37 {
		t.Fatalf("%d calls allowed, want exactly 37", allowed)
	}
}

// TestRedisWindowReset waits out a short window: the server's expiry ends
// it for every instance.
func TestRedisWindowReset(t *testing.T) {
	addr := redisAddr(t)
	prefix := redisPrefix(t, addr)
	a := newRedisRateLimit(t, prefix, map[string]any{"limit": 1, "window": "300ms"})
	b := newRedisRateLimit(t, prefix, map[string]any{"limit": 1, "window": "300ms"})
	if res := call(t, a, "acme", "", "exec"); res.Decision != hooks.Allow {
		t.Fatal(res.Reason)
	}
	res := call(t, b, "acme", "", "exec")
	if res.Decision != hooks.Block || !strings.Contains(res.Reason, "ms") {
		t.Fatalf("%s %q", res.Decision, res.Reason)
	}
	time.Sleep(350 * time.Millisecond)
	if res := call(t, b, "acme", "", "exec"); res.Decision != hooks.Allow {
		t.Fatalf("window did not reset: %s", res.Reason)
	}
}

func TestRedisPerAgent(t *testing.T) {
	addr := redisAddr(t)
	prefix := redisPrefix(t, addr)
	a := newRedisRateLimit(t, prefix, map[string]any{"limit": 1, "window": "1m", "per_agent": true})
	b := newRedisRateLimit(t, prefix, map[string]any{"limit": 1, "window": "1m", "per_agent": true})
	for i, tc := range []struct {
		h       hooks.Handler
		agent   string
		allowed bool
	}{
		{a, "x", true}, {b, "y", true}, {b, "x", false}, {a, "y", false}, {a, "x:y", true},
	} {
		if res := call(t, tc.h, "acme", tc.agent, "exec"); (res.Decision == hooks.Allow) != tc.allowed {
			t.Fatalf("call %d: %s %q", i, res.Decision, res.Reason)
		}
	}
}

// TestRedisURL accepts a redis:// URL in the variable.
func TestRedisURL(t *testing.T) {
	addr := redisAddr(t)
	prefix := redisPrefix(t, addr)
	t.Setenv("HG_TEST_REDIS_URL", "redis://"+addr+"/0")
	h, err := NewRateLimit(hooks.BuiltinConfig{HookID: "url", Event: hooks.PreToolUse, With: map[string]any{
		"limit": 1, "window": "1m", "redis": map[string]any{"addr_env": "HG_TEST_REDIS_URL", "key_prefix": prefix},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.(hooks.Closer).Close()
	if res := call(t, h, "acme", "", "exec"); res.Decision != hooks.Allow {
		t.Fatal(res.Reason)
	}
	if res := call(t, h, "acme", "", "exec"); res.Decision != hooks.Block {
		t.Fatal("second call allowed")
	}
}
