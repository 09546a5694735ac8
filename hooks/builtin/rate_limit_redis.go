package builtin

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// redisCounter keeps fixed-window counters in Redis, so that every
// instance configured with the same hook id and key prefix spends one
// budget.
type redisCounter struct {
	client *redis.Client
	// prefix is the key prefix, the hook id and the window: a reload that
	// changes the window starts afresh instead of inheriting a key whose
	// expiry was set for the old one.
	prefix   string
	windowMS int64
	perAgent bool
}

// rateScript counts a call and gives its key the window's expiry when it
// has none, in one step: the count and its expiry can never disagree, even
// when an instance dies between them. The window is the server's: clocks
// of the instances do not matter. It returns {count, milliseconds left}.
var rateScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
`)

// newRedisCounter builds the client; it does not connect (the first call
// does), so a configuration loads while Redis is down and its calls then
// fail closed.
func newRedisCounter(hookID string, window time.Duration, perAgent bool, p *redisParams) (*redisCounter, error) {
	env := p.AddrEnv
	if env == "" {
		env = DefaultRedisAddrEnv
	}
	addr := strings.TrimSpace(os.Getenv(env))
	if addr == "" {
		return nil, fmt.Errorf("addr_env: %s is not set", env)
	}
	var opt *redis.Options
	if strings.Contains(addr, "://") {
		var err error
		if opt, err = redis.ParseURL(addr); err != nil {
			// The URL may hold a password: name the variable, not its value.
			return nil, fmt.Errorf("addr_env: %s does not hold a valid redis URL", env)
		}
	} else {
		opt = &redis.Options{Addr: addr}
	}
	// The hook's timeout bounds every call; a retried INCR could count a
	// call twice, so there are no retries.
	opt.ContextTimeoutEnabled = true
	opt.MaxRetries = -1
	opt.DialTimeout = 2 * time.Second
	opt.DialerRetries = 1 // a refused connection fails the call at once
	opt.DisableIdentity = true
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}

	prefix := p.KeyPrefix
	if prefix == "" {
		prefix = DefaultRedisKeyPrefix
	}
	ms := window.Milliseconds()
	return &redisCounter{
		client:   redis.NewClient(opt),
		prefix:   prefix + url.QueryEscape(hookID) + ":" + strconv.FormatInt(ms, 10) + "ms:",
		windowMS: ms,
		perAgent: perAgent,
	}, nil
}

// key is the counter's Redis key; each part is escaped so that ids holding
// the separator cannot collide.
func (c *redisCounter) key(k rateKey) string {
	s := c.prefix + url.QueryEscape(k.tenant) + ":" + url.QueryEscape(k.tool)
	if c.perAgent {
		s += ":" + url.QueryEscape(k.agent)
	}
	return s
}

func (c *redisCounter) hit(ctx context.Context, k rateKey) (int64, time.Duration, error) {
	v, err := rateScript.Run(ctx, c.client, []string{c.key(k)}, c.windowMS).Int64Slice()
	if err != nil {
		return 0, 0, fmt.Errorf("redis: %w", err)
	}
	if len(v) != 2 {
		return 0, 0, errors.New("redis: unexpected reply to the counting script")
	}
	return v[0], time.Duration(v[1]) * time.Millisecond, nil
}

// Close closes the client's connections.
func (c *redisCounter) Close() error { return c.client.Close() }
