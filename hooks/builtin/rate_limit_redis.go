package builtin

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hookgate/hookgate/internal/redisconn"
)

// redisCounter keeps fixed-window counters in Redis, so that every
// instance configured with the same hook id and key prefix spends one
// budget.
type redisCounter struct {
	client redis.UniversalClient
	// prefix is the operator's key prefix; scope is the hook id and the
	// window: a reload that changes the window starts afresh instead of
	// inheriting a key whose expiry was set for the old one.
	prefix, scope string
	windowMS      int64
	perAgent      bool
	// withdrawals takes back, in the background, the counts of attempts
	// whose answer did not come.
	withdrawals *withdrawals
}

// rateScript counts a call and gives its key the window's expiry when it
// has none, in one step: the count and its expiry can never disagree, even
// when an instance dies between them. The window is the server's: clocks
// of the instances do not matter.
//
// Each attempt has its own id. The script marks that id in the window's
// set of attempts (a hash expiring with the counter), so that
// withdrawScript can take the count back when the caller gave up before
// the answer came; and it counts nothing when a withdrawal of that id got
// there first (a tombstone), as happens when a frozen server runs the two
// in the other order once it resumes.
//
// An attempt already marked is not counted again: a Cluster client resends
// a command whose connection broke, and the resent script then answers
// what the first one counted.
//
// KEYS: counter, attempts, tombstone (one hash slot: see attempt). ARGV:
// window in ms, attempt id. It returns {count, milliseconds left}, or
// {-1, 0} when the attempt was withdrawn.
var rateScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[3]) == 1 then
  return {-1, 0}
end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then
  return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}
end
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
redis.call('HSET', KEYS[2], ARGV[2], '1')
if redis.call('PTTL', KEYS[2]) < 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
end
return {n, ttl}
`)

// withdrawScript takes back the count of an attempt whose caller did not
// get the answer. The mark says the attempt was counted in the window that
// still lives (the set of attempts expires with its counter): then the
// count goes down by one and the mark goes, so a repeated withdrawal
// changes nothing. Without a mark the attempt has not run yet (or its
// window is over): a tombstone makes it count nothing when it lands.
//
// KEYS: counter, attempts, tombstone. ARGV: tombstone lifetime in ms,
// attempt id. It returns 1 when a count was taken back, 0 when a tombstone
// was left.
var withdrawScript = redis.NewScript(`
if redis.call('HDEL', KEYS[2], ARGV[2]) == 1 then
  if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('DECR', KEYS[1])
  end
  return 1
end
redis.call('SET', KEYS[3], '1', 'PX', ARGV[1])
return 0
`)

// newRedisCounter builds the client; it does not connect (the first call
// does), so a configuration loads while Redis is down and its calls then
// fail closed. The hook's timeout bounds every call.
func newRedisCounter(hookID string, window time.Duration, perAgent bool, p *redisParams) (*redisCounter, error) {
	if strings.ContainsAny(p.KeyPrefix, "{}") {
		return nil, errors.New("key_prefix: holds { or }: hookgate puts each counter's own {hash tag} in its keys, so that a Cluster keeps one counter's keys in one slot")
	}
	client, err := redisconn.New(p.Params, redisconn.Tuning{DialTimeout: 2 * time.Second})
	if err != nil {
		return nil, err
	}

	prefix := p.KeyPrefix
	if prefix == "" {
		prefix = DefaultRedisKeyPrefix
	}
	ms := window.Milliseconds()
	c := &redisCounter{
		client:   client,
		prefix:   prefix,
		scope:    url.QueryEscape(hookID) + ":" + strconv.FormatInt(ms, 10) + "ms:",
		windowMS: ms,
		perAgent: perAgent,
	}
	c.withdrawals = newWithdrawals(c.withdraw, tombstoneLifetime(window))
	return c, nil
}

// key is the counter's Redis key: the prefix, then the counter's identity
// as a hash tag ({hook:window:tenant:tool[:agent]}), so that on a Cluster
// the keys of one counter share a slot while counters spread over the
// nodes. Each part is escaped, so ids holding the separator or a brace
// cannot collide or end the tag.
func (c *redisCounter) key(k rateKey) string {
	s := c.prefix + "{" + c.scope + url.QueryEscape(k.tenant) + ":" + url.QueryEscape(k.tool)
	if c.perAgent {
		s += ":" + url.QueryEscape(k.agent)
	}
	return s + "}"
}

// attempt is one counting attempt: its id and the keys it touches (its
// counter, the window's set of attempts, its tombstone), all after the
// counter's hash tag so that one script call stays in one Cluster slot.
type attempt struct {
	id   string
	keys [3]string
}

func (c *redisCounter) attempt(k rateKey, id string) attempt {
	counter := c.key(k)
	return attempt{id: id, keys: [3]string{counter, counter + ":attempts", counter + ":withdrawn:" + id}}
}

// hit counts one attempt. When Redis does not answer in time, the caller
// blocks the call (fail closed), so the attempt must not spend the budget
// either: it is withdrawn, which holds whether the count never landed,
// already landed, or lands later.
func (c *redisCounter) hit(ctx context.Context, k rateKey) (int64, time.Duration, error) {
	a := c.attempt(k, newAttemptID())
	v, err := rateScript.Run(ctx, c.client, a.keys[:], c.windowMS, a.id).Int64Slice()
	if err != nil {
		if !isRedisReply(err) {
			c.withdrawals.add(a)
		}
		return 0, 0, fmt.Errorf("redis: %w", err)
	}
	if len(v) != 2 || v[0] < 0 {
		return 0, 0, errors.New("redis: unexpected reply to the counting script")
	}
	return v[0], time.Duration(v[1]) * time.Millisecond, nil
}

// isRedisReply reports an error the server answered with (the script
// failed there, or the key holds another type): the script did not count.
func isRedisReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

// withdraw runs withdrawScript once for one attempt.
func (c *redisCounter) withdraw(ctx context.Context, a attempt, tombstone time.Duration) error {
	return withdrawScript.Run(ctx, c.client, a.keys[:], tombstone.Milliseconds(), a.id).Err()
}

// Close stops the withdrawals and closes the client's connections.
// Withdrawals still pending are given up: their calls keep their count,
// which spends budget but never lets a call through.
func (c *redisCounter) Close() error {
	c.withdrawals.close()
	return c.client.Close()
}
