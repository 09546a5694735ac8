package builtin

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookgate/hookgate/hooks"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newMemoryRateLimit builds an in-memory rate_limit on a fake clock.
func newMemoryRateLimit(t *testing.T, with map[string]any, clock *fakeClock) *rateLimit {
	t.Helper()
	h, err := NewRateLimit(hooks.BuiltinConfig{HookID: "rl", Event: hooks.PreToolUse, With: with})
	if err != nil {
		t.Fatalf("NewRateLimit: %v", err)
	}
	r := h.(*rateLimit)
	mc := r.counter.(*memoryCounter)
	r.counter = newMemoryCounter(mc.window, mc.maxKeys, clock.Now)
	return r
}

func call(t *testing.T, h hooks.Handler, tenant, agent, tool string) hooks.Result {
	t.Helper()
	res, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: tenant, Agent: agent, ToolName: tool})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestRateLimitWindow(t *testing.T) {
	clock := newFakeClock()
	h := newMemoryRateLimit(t, map[string]any{"limit": 3, "window": "1m"}, clock)
	type step struct {
		advance time.Duration
		allowed bool
		retry   string // in the reason when blocked
	}
	for i, s := range []step{
		{0, true, ""},
		{10 * time.Second, true, ""},
		{10 * time.Second, true, ""},
		{0, false, "retry after 40s"},
		{39*time.Second + 500*time.Millisecond, false, "retry after 500ms"},
		// The window started at the first call; it ends 60s later.
		{500 * time.Millisecond, true, ""},
		{0, true, ""},
		{0, true, ""},
		{59 * time.Second, false, "retry after 1s"},
		{time.Second, true, ""},
	} {
		clock.Advance(s.advance)
		res := call(t, h, "acme", "", "exec")
		if (res.Decision == hooks.Allow) != s.allowed {
			t.Fatalf("step %d: %s %q", i, res.Decision, res.Reason)
		}
		if !s.allowed && !strings.Contains(res.Reason, s.retry) {
			t.Fatalf("step %d: reason %q, want %q", i, res.Reason, s.retry)
		}
	}
}

func TestRateLimitReason(t *testing.T) {
	clock := newFakeClock()
	h := newMemoryRateLimit(t, map[string]any{"limit": 1, "window": "1h", "per_agent": true}, clock)
	call(t, h, "acme", "bot-1", "deploy")
	res := call(t, h, "acme", "bot-1", "deploy")
	want := `rate limit: at most 1 calls of "deploy" per 1h for tenant "acme", agent "bot-1"; retry after 1h`
	if res.Decision != hooks.Block || res.Reason != want {
		t.Fatalf("got %s %q\nwant %q", res.Decision, res.Reason, want)
	}
	h = newMemoryRateLimit(t, map[string]any{"limit": 1, "window": "90s"}, clock)
	call(t, h, "", "", "exec")
	if res := call(t, h, "", "", "exec"); res.Reason != `rate limit: at most 1 calls of "exec" per 1m30s; retry after 1m30s` {
		t.Fatalf("%q", res.Reason)
	}
}

func TestRateLimitKeys(t *testing.T) {
	type c struct{ tenant, agent, tool string }
	for _, tc := range []struct {
		name    string
		with    map[string]any
		calls   []c
		allowed []bool
	}{
		{
			name:    "tenants and tools have their own budgets",
			with:    map[string]any{"limit": 1, "window": "1m"},
			calls:   []c{{"a", "", "exec"}, {"b", "", "exec"}, {"a", "", "read"}, {"a", "", "exec"}, {"b", "", "read"}},
			allowed: []bool{true, true, true, false, true},
		},
		{
			name:    "agents share their tenant's budget",
			with:    map[string]any{"limit": 1, "window": "1m"},
			calls:   []c{{"a", "x", "exec"}, {"a", "y", "exec"}},
			allowed: []bool{true, false},
		},
		{
			name:    "per_agent",
			with:    map[string]any{"limit": 1, "window": "1m", "per_agent": true},
			calls:   []c{{"a", "x", "exec"}, {"a", "y", "exec"}, {"a", "x", "exec"}, {"b", "x", "exec"}},
			allowed: []bool{true, true, false, true},
		},
		{
			name:    "tools not listed are not counted",
			with:    map[string]any{"limit": 1, "window": "1m", "tools": []any{"deploy"}},
			calls:   []c{{"a", "", "read"}, {"a", "", "read"}, {"a", "", "deploy"}, {"a", "", "deploy"}, {"a", "", "read"}},
			allowed: []bool{true, true, true, false, true},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newMemoryRateLimit(t, tc.with, newFakeClock())
			for i, k := range tc.calls {
				res := call(t, h, k.tenant, k.agent, k.tool)
				if (res.Decision == hooks.Allow) != tc.allowed[i] {
					t.Fatalf("call %d %+v: %s %q", i, k, res.Decision, res.Reason)
				}
			}
		})
	}
}

// TestRateLimitMemoryBounded shows the counters cannot outgrow max_keys,
// that a full table fails closed rather than evicting a live budget, and
// that expired counters and their queue entries are reclaimed.
func TestRateLimitMemoryBounded(t *testing.T) {
	clock := newFakeClock()
	h := newMemoryRateLimit(t, map[string]any{"limit": 1, "window": "1m", "max_keys": 2}, clock)
	mc := h.counter.(*memoryCounter)
	call(t, h, "a", "", "t1")
	call(t, h, "a", "", "t2")
	if _, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: "a", ToolName: "t3"}); err == nil || !strings.Contains(err.Error(), "max_keys") {
		t.Fatalf("a third key was accepted: %v", err)
	}
	// A live key still counts (and is still over its budget).
	if res := call(t, h, "a", "", "t1"); res.Decision != hooks.Block {
		t.Fatal("a live budget was reset")
	}
	clock.Advance(time.Minute)
	if res := call(t, h, "a", "", "t3"); res.Decision != hooks.Allow {
		t.Fatal("expired keys were not reclaimed")
	}
	if keys, queued := mc.size(); keys != 1 || queued != 1 {
		t.Fatalf("keys %d queued %d after expiry, want 1 and 1", keys, queued)
	}

	// Many distinct keys over a long time: memory stays at one window's
	// worth.
	clock = newFakeClock()
	h = newMemoryRateLimit(t, map[string]any{"limit": 5, "window": "10s", "max_keys": 1000}, clock)
	mc = h.counter.(*memoryCounter)
	for i := range 100_000 {
		clock.Advance(100 * time.Millisecond)
		tool := "tool-" + string(rune('a'+i%26)) + string(rune('a'+(i/26)%26)) + string(rune('a'+(i/676)%26))
		if res := call(t, h, "t", "", tool); res.Decision != hooks.Allow {
			t.Fatalf("call %d blocked: %s", i, res.Reason)
		}
	}
	if keys, queued := mc.size(); keys > 100 || queued > 100 || cap(mc.starts) > 1000 {
		t.Fatalf("keys %d queued %d cap %d: not reclaimed", keys, queued, cap(mc.starts))
	}
}

func TestRateLimitConcurrent(t *testing.T) {
	h := newMemoryRateLimit(t, map[string]any{"limit": 100, "window": "1h"}, newFakeClock())
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 16 {
		wg.Go(func() {
			for range 50 {
				res, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, Tenant: "a", ToolName: "exec"})
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
	if allowed != 100 {
		t.Fatalf("%d calls allowed, want exactly 100", allowed)
	}
}

func TestRateLimitParams(t *testing.T) {
	t.Setenv("HG_TEST_UNSET_REDIS", "")
	for name, with := range map[string]map[string]any{
		"no limit":          {"window": "1m"},
		"zero limit":        {"limit": 0, "window": "1m"},
		"no window":         {"limit": 1},
		"bad window":        {"limit": 1, "window": "soon"},
		"window as number":  {"limit": 1, "window": 60},
		"tiny window":       {"limit": 1, "window": "1us"},
		"unknown key":       {"limit": 1, "window": "1m", "per_tenant": true},
		"empty tools":       {"limit": 1, "window": "1m", "tools": []any{}},
		"empty tool name":   {"limit": 1, "window": "1m", "tools": []any{""}},
		"max_keys 0":        {"limit": 1, "window": "1m", "max_keys": 0},
		"max_keys on redis": {"limit": 1, "window": "1m", "max_keys": 5, "redis": map[string]any{"addr_env": "HOOKGATE_REDIS_ADDR"}},
		"redis env unset":   {"limit": 1, "window": "1m", "redis": map[string]any{"addr_env": "HG_TEST_UNSET_REDIS"}},
		"redis unknown key": {"limit": 1, "window": "1m", "redis": map[string]any{"addr": "127.0.0.1:6379"}},
	} {
		if h, err := NewRateLimit(hooks.BuiltinConfig{Event: hooks.PreToolUse, With: with}); err == nil {
			t.Errorf("%s: accepted", name)
			h.(hooks.Closer).Close()
		}
	}
	if _, err := NewRateLimit(hooks.BuiltinConfig{Event: hooks.PostToolUse, With: map[string]any{"limit": 1, "window": "1m"}}); err == nil {
		t.Error("accepted on post_tool_use")
	}
	// Sentinel and Cluster blocks, refused with the field's path.
	t.Setenv("HG_TEST_SET_REDIS", "127.0.0.1:6379")
	for name, tc := range map[string]struct {
		redis map[string]any
		want  string
	}{
		"prefix with brace": {map[string]any{"addr_env": "HG_TEST_SET_REDIS", "key_prefix": "hg:{x}:"}, "with.redis: key_prefix: holds { or }"},
		"sentinel + cluster": {map[string]any{"master_name": "m", "sentinel_addrs": []any{"127.0.0.1:26379"}, "cluster_addrs": []any{"127.0.0.1:7000"}},
			"with.redis: cluster_addrs: excludes sentinel_addrs and master_name"},
		"sentinel no master": {map[string]any{"sentinel_addrs": []any{"127.0.0.1:26379"}}, "with.redis: master_name: required"},
		"cluster bad addr":   {map[string]any{"cluster_addrs": []any{"127.0.0.1"}}, `with.redis: cluster_addrs[0]: want host:port, got "127.0.0.1"`},
		"password unset":     {map[string]any{"cluster_addrs": []any{"127.0.0.1:7000"}, "password_env": "HG_TEST_UNSET_REDIS"}, "with.redis: password_env: HG_TEST_UNSET_REDIS is not set"},
	} {
		h, err := NewRateLimit(hooks.BuiltinConfig{Event: hooks.PreToolUse, With: map[string]any{"limit": 1, "window": "1m", "redis": tc.redis}})
		if err == nil {
			t.Errorf("%s: accepted", name)
			h.(hooks.Closer).Close()
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

// TestRateLimitRedisUnreachable needs no server: a closed port on loopback
// must make the handler fail, and the engine block.
func TestRateLimitRedisUnreachable(t *testing.T) {
	t.Setenv("HG_TEST_REDIS_DOWN", "127.0.0.1:1")
	with := map[string]any{"limit": 5, "window": "1m", "redis": map[string]any{"addr_env": "HG_TEST_REDIS_DOWN"}}
	h, err := NewRateLimit(hooks.BuiltinConfig{HookID: "rl", Event: hooks.PreToolUse, With: with})
	if err != nil {
		t.Fatal(err)
	}
	defer h.(hooks.Closer).Close()
	if _, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, ToolName: "exec"}); err == nil {
		t.Fatal("no error from an unreachable Redis")
	}

	e := compileOne(t, hooks.Spec{
		ID: "rl", Event: hooks.PreToolUse, Trusted: true, TimeoutMS: 2000,
		Handler: hooks.HandlerSpec{Type: "builtin", Name: RateLimitName, With: with},
	}, hooks.Deps{})
	out := e.Dispatch(context.Background(), &hooks.Event{Event: hooks.PreToolUse, ToolName: "exec"})
	if !out.Blocked() || out.Cause == nil || !strings.Contains(out.Cause.Error(), "redis") {
		t.Fatalf("not failed closed: %+v", out)
	}
}

func TestRetryAfter(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                       "0s",
		-time.Second:            "0s",
		time.Millisecond / 2:    "1ms",
		250 * time.Millisecond:  "250ms",
		time.Second:             "1s",
		time.Second + 1:         "2s",
		59*time.Second + 1:      "1m",
		time.Hour:               "1h",
		time.Hour + time.Minute: "1h1m",
	} {
		if got := retryAfter(d); got != want {
			t.Errorf("retryAfter(%v) = %q, want %q", d, got, want)
		}
	}
}

// errCounter fails every call.
type errCounter struct{}

func (errCounter) hit(context.Context, rateKey) (int64, time.Duration, error) {
	return 0, 0, errors.New("down")
}

func TestRateLimitCounterErrorIsAnError(t *testing.T) {
	h := newMemoryRateLimit(t, map[string]any{"limit": 1, "window": "1m"}, newFakeClock())
	h.counter = errCounter{}
	if _, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, ToolName: "x"}); err == nil {
		t.Fatal("counter error swallowed")
	}
}
