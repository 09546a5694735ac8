package redisconn

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Every mode's client carries the one shared option set (Tuning.universal):
// calls bounded by the caller's context, one dial, no retried command, no
// identity, maintenance notifications off where go-redis has them, and the
// caller's tuning.
func TestEveryModeSharesTheOptionSet(t *testing.T) {
	t.Setenv("RC_SHARED_ADDR", "redis://127.0.0.1:6379/2")
	t.Setenv("RC_SHARED_PW", "pw")
	t.Setenv("RC_SHARED_SPW", "spw")
	tune := Tuning{PoolSize: 3, ReadTimeout: 700 * time.Millisecond, WriteTimeout: 800 * time.Millisecond}
	// noRetry: go-redis reads MaxRetries -1 as none and keeps it as 0 in
	// a client's options, -1 in a cluster's.
	type shared struct {
		ctx               bool
		noRetry           bool
		dials             int
		dial, read, write time.Duration
		pool              int
		noIdentity        bool
		maintOff          bool
		password          string
	}
	want := shared{ctx: true, noRetry: true, dials: 1, dial: 2 * time.Second, read: tune.ReadTimeout, write: tune.WriteTimeout, pool: 3, noIdentity: true, maintOff: true, password: "pw"}
	off := func(c *maintnotifications.Config) bool { return c != nil && c.Mode == maintnotifications.ModeDisabled }
	for _, tc := range []struct {
		name string
		p    Params
		read func(t *testing.T, c redis.UniversalClient) shared
	}{
		{"single", Params{AddrEnv: "RC_SHARED_ADDR", PasswordEnv: "RC_SHARED_PW"}, func(t *testing.T, c redis.UniversalClient) shared {
			o := c.(*redis.Client).Options()
			if o.DB != 2 {
				t.Errorf("single: db %d, want the URL's 2", o.DB)
			}
			return shared{o.ContextTimeoutEnabled, o.MaxRetries <= 0, o.DialerRetries, o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolSize, o.DisableIdentity, off(o.MaintNotificationsConfig), o.Password}
		}},
		{"cluster", Params{ClusterAddrs: []string{"127.0.0.1:7000"}, PasswordEnv: "RC_SHARED_PW"}, func(t *testing.T, c redis.UniversalClient) shared {
			o := c.(*redis.ClusterClient).Options()
			return shared{o.ContextTimeoutEnabled, o.MaxRetries <= 0, o.DialerRetries, o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolSize, o.DisableIdentity, off(o.MaintNotificationsConfig), o.Password}
		}},
		{"sentinel", Params{MasterName: "m", SentinelAddrs: []string{"127.0.0.1:26379"}, PasswordEnv: "RC_SHARED_PW", SentinelPasswordEnv: "RC_SHARED_SPW"}, func(t *testing.T, c redis.UniversalClient) shared {
			o := c.(*redis.Client).Options()
			// go-redis gives a failover client no maintenance
			// notifications at all: count that as off.
			return shared{o.ContextTimeoutEnabled, o.MaxRetries <= 0, o.DialerRetries, o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolSize, o.DisableIdentity, o.MaintNotificationsConfig == nil || off(o.MaintNotificationsConfig), o.Password}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(tc.p, tune)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if got := tc.read(t, c); got != want {
				t.Errorf("options %+v, want %+v", got, want)
			}
		})
	}
}
