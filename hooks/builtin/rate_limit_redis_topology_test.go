package builtin

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/testenv"
)

// topologyRateLimit builds one instance's rate_limit from a `redis:` block.
func topologyRateLimit(t *testing.T, id string, limit int, block map[string]any) hooks.Handler {
	t.Helper()
	h, err := NewRateLimit(hooks.BuiltinConfig{HookID: id, Event: hooks.PreToolUse, With: map[string]any{
		"limit": limit, "window": "1m", "per_agent": true, "redis": block,
	}})
	if err != nil {
		t.Fatalf("NewRateLimit: %v", err)
	}
	t.Cleanup(func() { h.(hooks.Closer).Close() })
	return h
}

// TestRedisSentinelSharedBudget reaches a password-protected master
// through a password-protected sentinel: two instances spend one budget,
// and the counter lives on the master the sentinel names.
func TestRedisSentinelSharedBudget(t *testing.T) {
	s := testenv.StartRedisSentinel(t, testenv.SentinelOptions{MasterPassword: "master-secret", SentinelPassword: "sentinel-secret"})
	t.Setenv("HG_TEST_REDIS_PASSWORD", "master-secret")
	t.Setenv("HG_TEST_SENTINEL_PASSWORD", "sentinel-secret")
	block := func() map[string]any {
		return map[string]any{
			"master_name": s.MasterName, "sentinel_addrs": []any{s.SentinelAddr},
			"password_env": "HG_TEST_REDIS_PASSWORD", "sentinel_password_env": "HG_TEST_SENTINEL_PASSWORD",
		}
	}
	a, b := topologyRateLimit(t, "sentinel-limit", 3, block()), topologyRateLimit(t, "sentinel-limit", 3, block())
	for i, h := range []hooks.Handler{a, b, a} {
		if res := call(t, h, "acme", "x", "exec"); res.Decision != hooks.Allow {
			t.Fatalf("call %d: %s", i+1, res.Reason)
		}
	}
	if res := call(t, b, "acme", "x", "exec"); res.Decision != hooks.Block || !strings.Contains(res.Reason, "at most 3 calls") {
		t.Fatalf("call 4: %s %q", res.Decision, res.Reason)
	}
	direct := redis.NewClient(&redis.Options{Addr: s.MasterAddr, Password: "master-secret"})
	defer direct.Close()
	keys, err := direct.Keys(context.Background(), DefaultRedisKeyPrefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	var counter string
	for _, k := range keys {
		if strings.HasSuffix(k, ":acme:exec:x}") {
			counter = k
		}
	}
	if counter == "" {
		t.Fatalf("no counter on the master; keys %v", keys)
	}
	if n, err := direct.Get(context.Background(), counter).Int64(); err != nil || n != 4 {
		t.Fatalf("counter %s = %d (%v), want 4", counter, n, err)
	}

	// A wrong sentinel password is refused there: the call fails (and the
	// engine blocks it), it is never allowed.
	t.Setenv("HG_TEST_SENTINEL_PASSWORD", "wrong")
	wrong := topologyRateLimit(t, "sentinel-limit", 3, block())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := wrong.Handle(ctx, &hooks.Event{Event: hooks.PreToolUse, Tenant: "other", ToolName: "exec"}); err == nil {
		t.Fatal("a wrong sentinel password got an answer")
	}
}

// TestRedisClusterSharedBudget spends budgets on a three-node Cluster from
// two instances. Counters of many tenants spread over the nodes, every
// script call keeps its keys in one slot (the hash tag), and a withdrawal
// (the other script, with its tombstone key) runs there too.
func TestRedisClusterSharedBudget(t *testing.T) {
	nodes := testenv.StartRedisCluster(t)
	block := func() map[string]any { return map[string]any{"cluster_addrs": []any{nodes[0], nodes[1], nodes[2]}} }
	a, b := topologyRateLimit(t, "cluster-limit", 2, block()), topologyRateLimit(t, "cluster-limit", 2, block())
	const tenants = 30
	for i := range tenants {
		tenant := fmt.Sprintf("tenant-%d", i)
		for j, h := range []hooks.Handler{a, b} {
			if res := call(t, h, tenant, "x", "exec"); res.Decision != hooks.Allow {
				t.Fatalf("%s call %d: %s", tenant, j+1, res.Reason)
			}
		}
		if res := call(t, a, tenant, "x", "exec"); res.Decision != hooks.Block {
			t.Fatalf("%s call 3 allowed on a budget of 2", tenant)
		}
	}

	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: nodes})
	defer cc.Close()
	ctx := context.Background()
	// ForEachMaster calls its function on every master at once.
	var mu sync.Mutex
	counters := 0
	mastersWithKeys := 0
	err := cc.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		keys, err := n.Keys(ctx, DefaultRedisKeyPrefix+"*").Result()
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if len(keys) > 0 {
			mastersWithKeys++
		}
		for _, k := range keys {
			if strings.HasSuffix(k, "}") {
				counters++
				if v, err := n.Get(ctx, k).Int64(); err != nil || v != 3 {
					return fmt.Errorf("counter %s = %d (%v), want 3", k, v, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if counters != tenants {
		t.Fatalf("%d counters on the cluster, want %d", counters, tenants)
	}
	if mastersWithKeys < 2 {
		t.Fatalf("counters of %d tenants on %d node(s): the hash tag does not spread them", tenants, mastersWithKeys)
	}

	// The withdrawal script on the cluster: counted attempts come back.
	rc := a.(*rateLimit).counter.(*redisCounter)
	k := rateKey{tenant: "withdrawn", tool: "exec", agent: "x"}
	at := rc.attempt(k, newAttemptID())
	if _, err := rateScript.Run(ctx, rc.client, at.keys[:], rc.windowMS, at.id).Int64Slice(); err != nil {
		t.Fatalf("counting script: %v", err)
	}
	if err := rc.withdraw(ctx, at, time.Minute); err != nil {
		t.Fatalf("withdrawal script: %v", err)
	}
	if n, err := cc.Get(ctx, at.keys[0]).Int64(); err != nil || n != 0 {
		t.Fatalf("counter after the withdrawal = %d (%v), want 0", n, err)
	}
	// A withdrawal that got there first leaves a tombstone, and the late
	// attempt counts nothing.
	late := rc.attempt(k, newAttemptID())
	if err := rc.withdraw(ctx, late, time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, err := rateScript.Run(ctx, rc.client, late.keys[:], rc.windowMS, late.id).Int64Slice(); err != nil || v[0] != -1 {
		t.Fatalf("late attempt: %v %v, want {-1 0}", v, err)
	}
}

// TestRedisCountingScriptIsIdempotent runs one attempt's script twice, as
// a Cluster client resending after a broken connection does: it counts
// once.
func TestRedisCountingScriptIsIdempotent(t *testing.T) {
	addr := redisAddr(t)
	prefix := redisPrefix(t, addr)
	h := newRedisRateLimit(t, prefix, map[string]any{"limit": 5, "window": "1m"})
	rc := h.(*rateLimit).counter.(*redisCounter)
	at := rc.attempt(rateKey{tenant: "acme", tool: "exec"}, newAttemptID())
	for i := range 2 {
		v, err := rateScript.Run(context.Background(), rc.client, at.keys[:], rc.windowMS, at.id).Int64Slice()
		if err != nil || v[0] != 1 || v[1] <= 0 {
			t.Fatalf("run %d: %v %v, want count 1 and the window left", i+1, v, err)
		}
	}
}

// TestRedisSentinelFailover promotes the replica while a budget is half
// spent: the rate limit finds the new master through the sentinel, the
// count carried over by replication goes on there, and calls in between
// fail (blocked by the engine), never allowed beyond the limit.
func TestRedisSentinelFailover(t *testing.T) {
	s := testenv.StartRedisSentinel(t, testenv.SentinelOptions{MasterPassword: "failover-secret", Replica: true})
	t.Setenv("HG_TEST_FAILOVER_PASSWORD", "failover-secret")
	h := topologyRateLimit(t, "failover-limit", 5, map[string]any{
		"master_name": s.MasterName, "sentinel_addrs": []any{s.SentinelAddr}, "password_env": "HG_TEST_FAILOVER_PASSWORD",
	})
	for i := range 3 {
		if res := call(t, h, "acme", "x", "exec"); res.Decision != hooks.Allow {
			t.Fatalf("call %d: %s", i+1, res.Reason)
		}
	}
	old := redis.NewClient(&redis.Options{Addr: s.MasterAddr, Password: "failover-secret"})
	defer old.Close()
	if n, err := old.Wait(context.Background(), 1, 10*time.Second).Result(); err != nil || n != 1 {
		t.Fatalf("WAIT for the replica: %d %v", n, err)
	}

	s.Failover(t)

	// The first calls may meet the old master (now a replica) or a closed
	// connection: they fail, which blocks them. One gets through once the
	// client has the new master.
	deadline := time.Now().Add(60 * time.Second)
	failed := 0
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := h.Handle(ctx, &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", Agent: "x", ToolName: "exec"})
		cancel()
		if err == nil {
			if res.Decision != hooks.Allow {
				t.Fatalf("call 4, after the failover and %d failed calls: %s", failed, res.Reason)
			}
			break
		}
		failed++
		if time.Now().After(deadline) {
			t.Fatalf("no answer within a minute of the failover: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	rc := h.(*rateLimit).counter.(*redisCounter)
	for rc.withdrawals.len() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if res := call(t, h, "acme", "x", "exec"); res.Decision != hooks.Allow {
		t.Fatalf("call 5: %s", res.Reason)
	}
	if res := call(t, h, "acme", "x", "exec"); res.Decision != hooks.Block {
		t.Fatal("call 6 allowed on a budget of 5: the count did not carry over to the new master")
	}
	promoted := redis.NewClient(&redis.Options{Addr: s.ReplicaAddr, Password: "failover-secret"})
	defer promoted.Close()
	info, err := promoted.Info(context.Background(), "replication").Result()
	if err != nil || !strings.Contains(info, "role:master") {
		t.Fatalf("the promoted replica: %v %s", err, info)
	}
}
