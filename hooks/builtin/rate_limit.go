package builtin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/redisconn"
)

// RateLimitName is the registry name of the rate_limit built-in.
const RateLimitName = "rate_limit"

// Defaults of rate_limit.
const (
	// DefaultRateMaxKeys bounds the in-memory counters (one per tenant,
	// tool and, with per_agent, agent, while its window lasts).
	DefaultRateMaxKeys = 100_000
	// DefaultRedisAddrEnv names the variable holding the Redis address
	// when `redis:` names neither a variable, Sentinel nor Cluster.
	DefaultRedisAddrEnv = redisconn.DefaultAddrEnv
	// DefaultRedisKeyPrefix starts every counter's key in Redis.
	DefaultRedisKeyPrefix = "hookgate:ratelimit:"
)

// rateParams are rate_limit's `with:` parameters.
//
//	with:
//	  limit: 10                  # calls allowed per window (required)
//	  window: 1m                 # the window (required)
//	  tools: [exec, deploy]      # tool names counted; default: every tool
//	  per_agent: false           # true: a budget per agent as well as per tenant and tool
//	  max_keys: 100000           # in-memory only: counters kept at most
//	  redis:                     # share the budget between instances
//	    addr_env: HOOKGATE_REDIS_ADDR   # variable holding host:port or a redis:// URL
//	    key_prefix: "hookgate:ratelimit:"
//	    # or master_name + sentinel_addrs, or cluster_addrs, and
//	    # username_env, password_env, tls: see redisconn.Params
type rateParams struct {
	Limit    int64        `json:"limit"`
	Window   duration     `json:"window"`
	Tools    []string     `json:"tools"`
	PerAgent bool         `json:"per_agent"`
	MaxKeys  *int         `json:"max_keys"`
	Redis    *redisParams `json:"redis"`
}

// redisParams are the `redis:` block: how to reach Redis, and the prefix
// of the counters' keys.
type redisParams struct {
	redisconn.Params
	KeyPrefix string `json:"key_prefix"`
}

// RateLimitRedis returns how a rate_limit entry's `with:` reaches Redis, or
// nil when it counts in memory. Readiness reports the same servers through
// it, so the two never read a block differently.
func RateLimitRedis(with map[string]any) (*redisconn.Params, error) {
	var p rateParams
	if err := hooks.DecodeWith(with, &p); err != nil {
		return nil, err
	}
	if p.Redis == nil {
		return nil, nil
	}
	return &p.Redis.Params, nil
}

// underField puts field before each of err's problems (an errors.Join of
// several says each on its own line).
func underField(field string, err error) error {
	var many interface{ Unwrap() []error }
	if !errors.As(err, &many) {
		return fmt.Errorf("%s: %w", field, err)
	}
	errs := many.Unwrap()
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = fmt.Errorf("%s: %w", field, e)
	}
	return errors.Join(out...)
}

// rateKey is what one budget is kept for.
type rateKey struct {
	tenant, tool, agent string
}

// rateCounter counts calls in fixed windows. A window starts at its key's
// first call and lasts the configured length; the next call after it
// starts a new one. hit counts one call and returns the calls counted in
// the current window, this one included, and the time until it ends.
type rateCounter interface {
	hit(ctx context.Context, k rateKey) (count int64, reset time.Duration, err error)
}

// rateLimit blocks calls over the budget of their tenant and tool.
type rateLimit struct {
	limit    int64
	window   time.Duration
	tools    []string // nil: every tool
	perAgent bool
	counter  rateCounter
}

// NewRateLimit is the factory of rate_limit. It accepts pre_tool_use hooks
// only. With `redis:` the address is read from the environment here; the
// server is first reached on the first call.
func NewRateLimit(cfg hooks.BuiltinConfig) (hooks.Handler, error) {
	if err := onlyOn(RateLimitName, cfg, hooks.PreToolUse, "counts tool calls"); err != nil {
		return nil, err
	}
	var p rateParams
	if err := hooks.DecodeWith(cfg.With, &p); err != nil {
		return nil, err
	}
	r := &rateLimit{limit: p.Limit, window: time.Duration(p.Window), perAgent: p.PerAgent}
	var errs []error
	if p.Limit < 1 {
		errs = append(errs, errors.New("with.limit: required, at least 1"))
	}
	if r.window < time.Millisecond {
		errs = append(errs, errors.New("with.window: required, at least 1ms (e.g. 1m)"))
	}
	if p.Tools != nil {
		if len(p.Tools) == 0 || slices.Contains(p.Tools, "") {
			errs = append(errs, errors.New("with.tools: empty list or name (omit it to count every tool)"))
		}
		r.tools = p.Tools
	}
	maxKeys := DefaultRateMaxKeys
	if p.MaxKeys != nil {
		switch {
		case p.Redis != nil:
			errs = append(errs, errors.New("with.max_keys: applies to the in-memory counters, not to redis"))
		case *p.MaxKeys < 1:
			errs = append(errs, fmt.Errorf("with.max_keys: %d is not positive", *p.MaxKeys))
		}
		maxKeys = *p.MaxKeys
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if p.Redis != nil {
		c, err := newRedisCounter(cfg.HookID, r.window, r.perAgent, p.Redis)
		if err != nil {
			return nil, underField("with.redis", err)
		}
		r.counter = c
	} else {
		r.counter = newMemoryCounter(r.window, maxKeys, time.Now)
	}
	return r, nil
}

// Handle counts the call and blocks it when it is over the budget. A
// counter that cannot answer (Redis unreachable) is an error, which the
// engine resolves through on_timeout: block by default.
func (r *rateLimit) Handle(ctx context.Context, ev *hooks.Event) (hooks.Result, error) {
	if r.tools != nil && !slices.Contains(r.tools, ev.ToolName) {
		return hooks.Result{Decision: hooks.Allow}, nil
	}
	k := rateKey{tenant: ev.Tenant, tool: ev.ToolName}
	if r.perAgent {
		k.agent = ev.Agent
	}
	n, reset, err := r.counter.hit(ctx, k)
	if err != nil {
		return hooks.Result{}, fmt.Errorf("rate_limit: %w", err)
	}
	if n <= r.limit {
		return hooks.Result{Decision: hooks.Allow}, nil
	}
	return hooks.Result{Decision: hooks.Block, Reason: r.reason(k, reset)}, nil
}

// reason says which budget is spent and when it comes back.
func (r *rateLimit) reason(k rateKey, reset time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "rate limit: at most %d calls of %q per %s", r.limit, k.tool, shortDuration(r.window))
	var who []string
	if k.tenant != "" {
		who = append(who, "tenant "+strconv.Quote(k.tenant))
	}
	if r.perAgent && k.agent != "" {
		who = append(who, "agent "+strconv.Quote(k.agent))
	}
	if len(who) > 0 {
		b.WriteString(" for ")
		b.WriteString(strings.Join(who, ", "))
	}
	fmt.Fprintf(&b, "; retry after %s", retryAfter(reset))
	return b.String()
}

// retryAfter rounds a wait up: to the second, or to the millisecond below
// one second.
func retryAfter(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	if d < time.Second {
		return shortDuration((d + time.Millisecond - 1).Truncate(time.Millisecond))
	}
	return shortDuration((d + time.Second - 1).Truncate(time.Second))
}

// Close releases the Redis client, if any.
func (r *rateLimit) Close() error {
	if c, ok := r.counter.(hooks.Closer); ok {
		return c.Close()
	}
	return nil
}
