package redisconn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		p    Params
		want string // "" for valid; else every ";"-separated part appears
	}{
		"default":             {p: Params{}},
		"addr_env":            {p: Params{AddrEnv: "X"}},
		"sentinel":            {p: Params{MasterName: "m", SentinelAddrs: []string{"127.0.0.1:26379", "[::1]:26379"}}},
		"cluster":             {p: Params{ClusterAddrs: []string{"10.0.0.1:6379"}}},
		"tls":                 {p: Params{ClusterAddrs: []string{"h:1"}, TLS: true, TLSServerName: "redis.internal"}},
		"both":                {p: Params{MasterName: "m", SentinelAddrs: []string{"h:1"}, ClusterAddrs: []string{"h:2"}}, want: "cluster_addrs: excludes sentinel_addrs and master_name"},
		"addr_env + sentinel": {p: Params{AddrEnv: "X", MasterName: "m", SentinelAddrs: []string{"h:1"}}, want: "addr_env: names a single server's address; leave it out with sentinel_addrs"},
		"addr_env + cluster":  {p: Params{AddrEnv: "X", ClusterAddrs: []string{"h:1"}}, want: "addr_env: names a single server's address; leave it out with cluster_addrs"},
		"no master":           {p: Params{SentinelAddrs: []string{"h:1"}}, want: "master_name: required"},
		"no sentinels":        {p: Params{MasterName: "m"}, want: "sentinel_addrs: required"},
		"empty cluster":       {p: Params{ClusterAddrs: []string{}}, want: "cluster_addrs: empty list"},
		"bad addrs":           {p: Params{ClusterAddrs: []string{"nohost", "h:0", "h:1", "h:1", ":5"}}, want: `cluster_addrs[0]: want host:port, got "nohost";cluster_addrs[1]: port of "h:0";cluster_addrs[3]: "h:1" is listed twice;cluster_addrs[4]: want host:port`},
		"sentinel pw alone":   {p: Params{SentinelPasswordEnv: "P"}, want: "sentinel_password_env: applies to Sentinel only"},
		"tls options alone":   {p: Params{TLSCAFile: "/ca.pem"}, want: "tls_ca_file and tls_server_name need tls: true"},
	} {
		t.Run(name, func(t *testing.T) {
			err := tc.p.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("valid, want %q", tc.want)
			}
			for _, part := range strings.Split(tc.want, ";") {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q lacks %q", err, part)
				}
			}
		})
	}
}

// New reads secrets from the variables the block names, and its errors
// name the variable, never the value.
func TestNewReadsVariables(t *testing.T) {
	t.Setenv("RC_TEST_URL", "redis://user:url-secret@127.0.0.1:6379/0")
	t.Setenv("RC_TEST_PW", "env-secret")
	t.Setenv("RC_TEST_BAD_URL", "redis://[bad-secret")
	for name, tc := range map[string]struct {
		p    Params
		want string
	}{
		"addr unset":       {p: Params{AddrEnv: "RC_TEST_UNSET"}, want: "addr_env: RC_TEST_UNSET is not set"},
		"password unset":   {p: Params{ClusterAddrs: []string{"h:1"}, PasswordEnv: "RC_TEST_UNSET_PW"}, want: "password_env: RC_TEST_UNSET_PW is not set"},
		"sentinel unset":   {p: Params{MasterName: "m", SentinelAddrs: []string{"h:1"}, SentinelPasswordEnv: "RC_TEST_UNSET_SPW"}, want: "sentinel_password_env: RC_TEST_UNSET_SPW is not set"},
		"bad url":          {p: Params{AddrEnv: "RC_TEST_BAD_URL"}, want: "addr_env: RC_TEST_BAD_URL does not hold a valid redis URL"},
		"two passwords":    {p: Params{AddrEnv: "RC_TEST_URL", PasswordEnv: "RC_TEST_PW"}, want: "password_env: RC_TEST_URL's URL holds a password already"},
		"ca file missing":  {p: Params{ClusterAddrs: []string{"h:1"}, TLS: true, TLSCAFile: filepath.Join(t.TempDir(), "none.pem")}, want: "tls_ca_file:"},
		"invalid is first": {p: Params{AddrEnv: "RC_TEST_UNSET", ClusterAddrs: []string{"h:1"}}, want: "addr_env: names a single server's address"},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := New(tc.p, Tuning{})
			if err == nil {
				c.Close()
				t.Fatalf("built, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("error %q shows a value", err)
			}
		})
	}
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Params{ClusterAddrs: []string{"h:1"}, TLS: true, TLSCAFile: notPEM}, Tuning{}); err == nil || !strings.Contains(err.Error(), "holds no PEM certificate") {
		t.Fatalf("a CA file without a certificate: %v", err)
	}
}

// Each mode builds its own kind of client, with the secrets applied.
func TestNewModes(t *testing.T) {
	t.Setenv("RC_TEST_ADDR", "127.0.0.1:6379")
	t.Setenv("RC_TEST_USER", "hookgate")
	t.Setenv("RC_TEST_PW", "pw")
	single, err := New(Params{AddrEnv: "RC_TEST_ADDR", UsernameEnv: "RC_TEST_USER", PasswordEnv: "RC_TEST_PW", TLS: true}, Tuning{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer single.Close()
	c, ok := single.(*redis.Client)
	if !ok {
		t.Fatalf("single: %T", single)
	}
	if o := c.Options(); o.Addr != "127.0.0.1:6379" || o.Username != "hookgate" || o.Password != "pw" || o.TLSConfig == nil || o.PoolSize != 1 || o.MaxRetries > 0 {
		t.Fatalf("single options: addr %s user %s tls %v pool %d retries %d", o.Addr, o.Username, o.TLSConfig != nil, o.PoolSize, o.MaxRetries)
	}
	cluster, err := New(Params{ClusterAddrs: []string{"127.0.0.1:7000", "127.0.0.1:7001"}, PasswordEnv: "RC_TEST_PW"}, Tuning{})
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	if cc, ok := cluster.(*redis.ClusterClient); !ok || cc.Options().Password != "pw" {
		t.Fatalf("cluster: %T", cluster)
	}
	// One seed is still a Cluster, not a single server.
	one, err := New(Params{ClusterAddrs: []string{"127.0.0.1:7000"}}, Tuning{})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	if _, ok := one.(*redis.ClusterClient); !ok {
		t.Fatalf("one seed: %T", one)
	}
	failover, err := New(Params{MasterName: "m", SentinelAddrs: []string{"127.0.0.1:26379"}}, Tuning{})
	if err != nil {
		t.Fatal(err)
	}
	defer failover.Close()
	if _, ok := failover.(*redis.Client); !ok { // a failover client is a *redis.Client
		t.Fatalf("sentinel: %T", failover)
	}
}

func TestNameAndKey(t *testing.T) {
	for _, tc := range []struct {
		p    Params
		name string
	}{
		{Params{}, "redis"},
		{Params{AddrEnv: DefaultAddrEnv}, "redis"},
		{Params{AddrEnv: "OTHER"}, "redis:OTHER"},
		{Params{MasterName: "mymaster", SentinelAddrs: []string{"10.0.0.1:26379"}}, "redis:sentinel:mymaster"},
		{Params{ClusterAddrs: []string{"10.0.0.1:6379"}}, "redis:cluster"},
	} {
		if got := tc.p.Name(); got != tc.name {
			t.Errorf("%+v: name %q, want %q", tc.p, got, tc.name)
		}
	}
	a := Params{ClusterAddrs: []string{"h:1", "h:2"}}
	b := Params{ClusterAddrs: []string{"h:2", "h:1"}}
	c := Params{ClusterAddrs: []string{"h:1", "h:3"}}
	if a.Key() != b.Key() || a.Key() == c.Key() {
		t.Fatalf("keys: %q %q %q", a.Key(), b.Key(), c.Key())
	}
	if (&Params{}).Key() != (&Params{AddrEnv: DefaultAddrEnv}).Key() {
		t.Fatal("the default variable spelt out is another Redis")
	}
}
