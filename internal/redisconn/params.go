// Package redisconn builds hookgate's Redis clients (the shared rate
// limit's and readiness's) from one `redis:` block: a single server whose
// address or redis:// URL is in a variable, a master found through Redis
// Sentinel, or a Redis Cluster. Secrets come from variables the block
// names, never from the file.
package redisconn

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
)

// DefaultAddrEnv names the variable holding the single server's address
// when the block names neither a variable, Sentinel nor Cluster.
const DefaultAddrEnv = "HOOKGATE_REDIS_ADDR"

// Params say how to reach Redis. At most one of AddrEnv, the Sentinel pair
// (MasterName with SentinelAddrs) and ClusterAddrs is set; with none, the
// single server's address is in DefaultAddrEnv.
//
//	addr_env: HOOKGATE_REDIS_ADDR        # host:port or a redis:// / rediss:// URL
//	master_name: mymaster                # Sentinel: the monitored master's name
//	sentinel_addrs: [10.0.0.1:26379, 10.0.0.2:26379]
//	cluster_addrs: [10.0.0.1:6379, 10.0.0.2:6379]  # Cluster: seed nodes
//	username_env: HOOKGATE_REDIS_USERNAME  # ACL user of the data nodes
//	password_env: HOOKGATE_REDIS_PASSWORD
//	sentinel_username_env: ...           # Sentinel's own credentials, if any
//	sentinel_password_env: ...
//	tls: true                            # TLS to every node (and sentinel)
//	tls_ca_file: /etc/hookgate/redis-ca.pem   # default: the system's roots
//	tls_server_name: redis.internal      # default: the host dialled
type Params struct {
	AddrEnv             string   `json:"addr_env"`
	MasterName          string   `json:"master_name"`
	SentinelAddrs       []string `json:"sentinel_addrs"`
	ClusterAddrs        []string `json:"cluster_addrs"`
	UsernameEnv         string   `json:"username_env"`
	PasswordEnv         string   `json:"password_env"`
	SentinelUsernameEnv string   `json:"sentinel_username_env"`
	SentinelPasswordEnv string   `json:"sentinel_password_env"`
	TLS                 bool     `json:"tls"`
	TLSCAFile           string   `json:"tls_ca_file"`
	TLSServerName       string   `json:"tls_server_name"`
}

// Mode is how a block reaches Redis.
type Mode string

// The modes of a block.
const (
	Single   Mode = "single"
	Sentinel Mode = "sentinel"
	Cluster  Mode = "cluster"
)

// Mode says which way p reaches Redis; a block Validate rejects may still
// name one.
func (p *Params) Mode() Mode {
	switch {
	case len(p.ClusterAddrs) > 0:
		return Cluster
	case p.MasterName != "" || len(p.SentinelAddrs) > 0:
		return Sentinel
	default:
		return Single
	}
}

// addrEnv is the variable of a single server.
func (p *Params) addrEnv() string {
	if p.AddrEnv == "" {
		return DefaultAddrEnv
	}
	return p.AddrEnv
}

// Name names the Redis p reaches, for readiness and its metric label,
// without an address or a secret: "redis" for the default variable,
// "redis:VAR" for another (the variable's name, never its value: a URL may
// hold a password), "redis:sentinel:MASTER", or "redis:cluster".
func (p *Params) Name() string {
	switch p.Mode() {
	case Sentinel:
		return "redis:sentinel:" + p.MasterName
	case Cluster:
		return "redis:cluster"
	}
	if env := p.addrEnv(); env != DefaultAddrEnv {
		return "redis:" + env
	}
	return "redis"
}

// Key is the same for blocks that reach the same Redis the same way: the
// mode, the variable or the addresses (in any order) and the credentials'
// variables.
func (p *Params) Key() string {
	sentinels := slices.Clone(p.SentinelAddrs)
	slices.Sort(sentinels)
	seeds := slices.Clone(p.ClusterAddrs)
	slices.Sort(seeds)
	parts := []string{string(p.Mode()), p.MasterName, strings.Join(sentinels, ","), strings.Join(seeds, ","),
		p.UsernameEnv, p.PasswordEnv, p.SentinelUsernameEnv, p.SentinelPasswordEnv,
		strconv.FormatBool(p.TLS), p.TLSCAFile, p.TLSServerName}
	if p.Mode() == Single {
		parts[1] = p.addrEnv()
	}
	return strings.Join(parts, "|")
}

// Validate checks the block's shape, without reading any variable: each
// problem names its field.
func (p *Params) Validate() error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, a...)))
	}
	sentinel := p.MasterName != "" || len(p.SentinelAddrs) > 0
	cluster := len(p.ClusterAddrs) > 0
	if p.ClusterAddrs != nil && len(p.ClusterAddrs) == 0 {
		bad("cluster_addrs", "empty list (name the cluster's seed nodes, host:port)")
	}
	if p.SentinelAddrs != nil && len(p.SentinelAddrs) == 0 {
		bad("sentinel_addrs", "empty list (name the sentinels, host:port)")
	}
	switch {
	case sentinel && cluster:
		bad("cluster_addrs", "excludes sentinel_addrs and master_name: a block reaches either a Cluster or a master through Sentinel")
	case p.AddrEnv != "" && sentinel:
		bad("addr_env", "names a single server's address; leave it out with sentinel_addrs")
	case p.AddrEnv != "" && cluster:
		bad("addr_env", "names a single server's address; leave it out with cluster_addrs")
	}
	if sentinel && !cluster {
		if p.MasterName == "" {
			bad("master_name", "required with sentinel_addrs: the name the sentinels monitor the master by")
		}
		if p.SentinelAddrs == nil {
			bad("sentinel_addrs", "required with master_name")
		}
	}
	if !sentinel && (p.SentinelUsernameEnv != "" || p.SentinelPasswordEnv != "") {
		bad("sentinel_password_env", "applies to Sentinel only (set master_name and sentinel_addrs, or leave it out)")
	}
	checkAddrs("sentinel_addrs", p.SentinelAddrs, bad)
	checkAddrs("cluster_addrs", p.ClusterAddrs, bad)
	if !p.TLS && (p.TLSCAFile != "" || p.TLSServerName != "") {
		bad("tls", "tls_ca_file and tls_server_name need tls: true")
	}
	return errors.Join(errs...)
}

// checkAddrs wants host:port, each once.
func checkAddrs(field string, addrs []string, bad func(field, format string, a ...any)) {
	seen := map[string]bool{}
	for i, a := range addrs {
		f := fmt.Sprintf("%s[%d]", field, i)
		host, port, err := net.SplitHostPort(a)
		if err != nil || host == "" {
			bad(f, "want host:port, got %q", a)
			continue
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			bad(f, "port of %q is not 1-65535", a)
			continue
		}
		if seen[a] {
			bad(f, "%q is listed twice", a)
		}
		seen[a] = true
	}
}
