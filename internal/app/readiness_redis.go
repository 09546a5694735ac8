package app

import (
	"context"
	"errors"
	"os"
	"sort"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks/builtin"
)

// redisDependencies are the Redis servers the operator's rate_limit hooks
// share their budgets through, one per variable naming an address. Each is
// called "redis" when it is the default variable (HOOKGATE_REDIS_ADDR),
// "redis:NAME" otherwise: the name of the variable, never its value (a
// redis:// URL may hold a password).
func redisDependencies(cfg *config.Config) []*dependency {
	envs := map[string]bool{}
	for _, h := range cfg.Hooks {
		if h.Handler.Type != "builtin" || h.Handler.Name != "rate_limit" {
			continue
		}
		r, ok := h.Handler.With["redis"].(map[string]any)
		if !ok {
			continue
		}
		env, _ := r["addr_env"].(string)
		if env == "" {
			env = builtin.DefaultRedisAddrEnv
		}
		envs[env] = true
	}
	names := make([]string, 0, len(envs))
	for env := range envs {
		names = append(names, env)
	}
	sort.Strings(names)
	deps := make([]*dependency, 0, len(names))
	for _, env := range names {
		name := "redis"
		if env != builtin.DefaultRedisAddrEnv {
			name += ":" + env
		}
		deps = append(deps, redisDependency(name, env))
	}
	return deps
}

// redisDependency pings the Redis server the variable env names, over a
// client of its own (one connection, no retries, bounded dials), so that
// probes never take a connection a rate limit needs.
func redisDependency(name, env string) *dependency {
	addr := strings.TrimSpace(os.Getenv(env))
	var opt *redis.Options
	var bad error
	switch {
	case addr == "":
		bad = errors.New(env + " is not set")
	case strings.Contains(addr, "://"):
		var err error
		if opt, err = redis.ParseURL(addr); err != nil {
			bad = errors.New(env + " does not hold a valid redis URL")
		}
	default:
		opt = &redis.Options{Addr: addr}
	}
	if bad != nil {
		return &dependency{name: name, check: newCachedCheck(func(context.Context) error { return bad })}
	}
	opt.ContextTimeoutEnabled = true
	opt.MaxRetries = -1
	opt.PoolSize = 1
	opt.DialTimeout = readinessCheckTimeout
	opt.DialerRetries = 1
	opt.ReadTimeout, opt.WriteTimeout = readinessCheckTimeout, readinessCheckTimeout
	opt.DisableIdentity = true
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	client := redis.NewClient(opt)
	return &dependency{
		name:  name,
		check: newCachedCheck(func(ctx context.Context) error { return client.Ping(ctx).Err() }),
		close: func() { _ = client.Close() }, // a probe client: nothing to flush
	}
}
