package app

import (
	"context"
	"sort"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks/builtin"
	"github.com/hookgate/hookgate/internal/redisconn"
)

// redisDependencies are the Redis deployments the operator's rate_limit
// hooks share their budgets through, one per distinct way of reaching one
// (redisconn.Params.Key), each named as redisconn.Params.Name says:
// "redis" for the default variable (HOOKGATE_REDIS_ADDR), "redis:NAME"
// for another variable (its name, never its value: a redis:// URL may hold
// a password), "redis:sentinel:MASTER" or "redis:cluster"; no name holds
// an address. A second deployment under a name taken gets ":2", and so on.
func redisDependencies(cfg *config.Config) []*dependency {
	blocks := map[string]redisconn.Params{}
	for _, h := range cfg.Hooks {
		if h.Handler.Type != "builtin" || h.Handler.Name != builtin.RateLimitName {
			continue
		}
		p, err := builtin.RateLimitRedis(h.Handler.With)
		if err != nil || p == nil {
			continue // the hook itself refuses a block it cannot read
		}
		if _, ok := blocks[p.Key()]; !ok {
			blocks[p.Key()] = *p
		}
	}
	keys := make([]string, 0, len(blocks))
	for k := range blocks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	deps := make([]*dependency, 0, len(keys))
	taken := map[string]int{}
	for _, k := range keys {
		p := blocks[k]
		name := p.Name()
		if taken[name]++; taken[name] > 1 {
			name += ":" + strconv.Itoa(taken[name])
		}
		deps = append(deps, redisDependency(name, p))
	}
	return deps
}

// redisDependency pings the Redis p reaches (the master through Sentinel,
// every master of a Cluster) over a client built as the rate limit's is, but of
// its own (one connection per node, bounded dials and replies), so that
// probes never take a connection a rate limit needs.
func redisDependency(name string, p redisconn.Params) *dependency {
	client, err := redisconn.New(p, redisconn.Tuning{
		PoolSize:     1,
		DialTimeout:  readinessCheckTimeout,
		ReadTimeout:  readinessCheckTimeout,
		WriteTimeout: readinessCheckTimeout,
	})
	if err != nil {
		return &dependency{name: name, check: newCachedCheck(func(context.Context) error { return err })}
	}
	ping := func(ctx context.Context) error { return client.Ping(ctx).Err() }
	if cc, ok := client.(*redis.ClusterClient); ok {
		// A Cluster is up when every master answers: a master down leaves
		// its slots' budgets unreachable.
		ping = func(ctx context.Context) error {
			return cc.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error { return n.Ping(ctx).Err() })
		}
	}
	return &dependency{
		name:  name,
		check: newCachedCheck(ping),
		close: func() { _ = client.Close() }, // a probe client: nothing to flush
	}
}
