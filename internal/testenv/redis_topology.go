package testenv

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis topologies a test starts for itself: a master watched by a
// Sentinel, or a three-node Cluster. Each runs Debian's redis-server (the
// same binary serves as a sentinel with --sentinel) on loopback ports a
// free-port helper found, from a temporary directory, and is killed when
// the test ends.

// startTimeout bounds how long a server, a sentinel or a cluster takes to
// answer; generous, for a loaded machine.
const startTimeout = 30 * time.Second

// RedisServer returns the path of redis-server, or skips t saying why.
// Under the test command (HOOKGATE_REQUIRE_SERVICES=1) or in CI (CI=true)
// a missing binary fails t instead.
func RedisServer(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err == nil {
		return path
	}
	if Required() || os.Getenv("CI") == "true" {
		t.Fatalf("redis-server is required (CI or %s=1) but is not on PATH: %v", requireEnv, err)
	}
	t.Skipf("SKIPPED: redis-server is not on PATH, so this Sentinel/Cluster test does not run; install Debian's redis-server package (scripts/services.sh does)")
	return ""
}

// FreePort returns a loopback TCP port nothing listened on a moment ago.
// With bus, port+10000 (a Cluster node's bus port) was free too.
func FreePort(t testing.TB, bus bool) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		if !bus {
			_ = l.Close()
			return port
		}
		if port+10000 > 65535 {
			_ = l.Close()
			continue
		}
		b, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000))
		_ = l.Close()
		if err != nil {
			continue
		}
		_ = b.Close()
		return port
	}
	t.Fatal("no free loopback port found")
	return 0
}

// running maps the address of each server a test started to what kills
// it.
var running sync.Map

// KillRedis kills the server a Start function of this package started on
// addr (a master, a sentinel, a Cluster node), and waits until it is gone.
func KillRedis(t testing.TB, addr string) {
	t.Helper()
	kill, ok := running.Load(addr)
	if !ok {
		t.Fatalf("no redis-server of this test on %s", addr)
	}
	kill.(func())()
}

// redisProcess runs redis-server from its own directory, with a
// configuration file of base settings and extra lines, and args, until the
// test ends; it waits until the server answers PING (auth: its password)
// and returns the address it listens on.
func redisProcess(t testing.TB, bin, name string, port int, auth string, extra []string, args ...string) string {
	t.Helper()
	return redisProcessTLS(t, bin, name, port, auth, nil, extra, args...)
}

// redisProcessTLS is redisProcess for a server that speaks TLS on port,
// pinged over tlsCfg.
func redisProcessTLS(t testing.TB, bin, name string, port int, auth string, tlsCfg *tls.Config, extra []string, args ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A configuration file of its own: a sentinel rewrites it.
	conf := filepath.Join(dir, "redis.conf")
	listen := "port " + strconv.Itoa(port)
	if tlsCfg != nil {
		listen = "port 0\ntls-port " + strconv.Itoa(port)
	}
	lines := []string{
		"bind 127.0.0.1",
		listen,
		"dir " + dir,
		"save \"\"",
		"appendonly no",
		"logfile " + filepath.Join(dir, "redis.log"),
	}
	lines = append(lines, extra...)
	if err := os.WriteFile(conf, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{conf}, args...)...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	kill := func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	running.Store(addr, kill)
	t.Cleanup(func() {
		running.Delete(addr)
		kill()
	})
	c := redis.NewClient(&redis.Options{Addr: addr, Password: auth, TLSConfig: tlsCfg, MaxRetries: -1, DialTimeout: time.Second})
	defer func() { _ = c.Close() }()
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return addr
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			t.Fatalf("%s on %s exited (%v) before answering:\n%s", name, addr, waitErr, log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s on %s did not answer within %s: %v", name, addr, startTimeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// RedisSentinel is a master, with a replica if asked for, and one
// sentinel watching it.
type RedisSentinel struct {
	MasterName   string
	MasterAddr   string
	ReplicaAddr  string // "" without a replica
	SentinelAddr string
	opt          SentinelOptions
}

// SentinelOptions say how StartRedisSentinel sets the servers up.
type SentinelOptions struct {
	MasterPassword   string // requirepass of the master and its replica; "" for none
	SentinelPassword string // the sentinel's requirepass; "" for none
	Replica          bool   // a replica the sentinel can promote (Failover)
}

// StartRedisSentinel starts a fresh master (and replica) and a sentinel
// that monitors it as "hookgate-test", and returns once the sentinel
// names the master (and knows the replica, in sync).
func StartRedisSentinel(t testing.TB, o SentinelOptions) RedisSentinel {
	t.Helper()
	bin := RedisServer(t)
	var masterConf []string
	if o.MasterPassword != "" {
		masterConf = []string{"requirepass " + o.MasterPassword, "masterauth " + o.MasterPassword}
	}
	s := RedisSentinel{MasterName: "hookgate-test", opt: o}
	s.MasterAddr = redisProcess(t, bin, "master", FreePort(t, false), o.MasterPassword, masterConf)
	host, port, _ := net.SplitHostPort(s.MasterAddr)
	if o.Replica {
		s.ReplicaAddr = redisProcess(t, bin, "replica", FreePort(t, false), o.MasterPassword,
			append(slices.Clone(masterConf), "replicaof "+host+" "+port))
		r := redis.NewClient(&redis.Options{Addr: s.ReplicaAddr, Password: o.MasterPassword, MaxRetries: -1})
		defer func() { _ = r.Close() }()
		waitFor(t, "the replica in sync", func(ctx context.Context) (bool, string) {
			info, err := r.Info(ctx, "replication").Result()
			return err == nil && strings.Contains(info, "master_link_status:up"), fmt.Sprint(info, err)
		})
	}
	conf := []string{"sentinel monitor " + s.MasterName + " " + host + " " + port + " 1"}
	if o.MasterPassword != "" {
		conf = append(conf, "sentinel auth-pass "+s.MasterName+" "+o.MasterPassword)
	}
	if o.SentinelPassword != "" {
		conf = append(conf, "requirepass "+o.SentinelPassword)
	}
	s.SentinelAddr = redisProcess(t, bin, "sentinel", FreePort(t, false), o.SentinelPassword, conf, "--sentinel")
	c := s.sentinelClient()
	defer func() { _ = c.Close() }()
	waitFor(t, "the sentinel naming the master", func(ctx context.Context) (bool, string) {
		got, err := c.GetMasterAddrByName(ctx, s.MasterName).Result()
		return err == nil && len(got) == 2 && net.JoinHostPort(got[0], got[1]) == s.MasterAddr, fmt.Sprint(got, err)
	})
	if o.Replica {
		waitFor(t, "the sentinel knowing the replica", func(ctx context.Context) (bool, string) {
			rs, err := c.Replicas(ctx, s.MasterName).Result()
			for _, r := range rs {
				if net.JoinHostPort(r["ip"], r["port"]) == s.ReplicaAddr && r["flags"] == "slave" && r["master-link-status"] == "ok" {
					return true, ""
				}
			}
			return false, fmt.Sprint(rs, err)
		})
	}
	return s
}

func (s RedisSentinel) sentinelClient() *redis.SentinelClient {
	return redis.NewSentinelClient(&redis.Options{Addr: s.SentinelAddr, Password: s.opt.SentinelPassword, MaxRetries: -1})
}

// Failover has the sentinel promote the replica (SENTINEL FAILOVER) and
// returns once the sentinel names it as the master.
func (s RedisSentinel) Failover(t testing.TB) {
	t.Helper()
	if s.ReplicaAddr == "" {
		t.Fatal("Failover needs SentinelOptions.Replica")
	}
	c := s.sentinelClient()
	defer func() { _ = c.Close() }()
	if err := c.Failover(context.Background(), s.MasterName).Err(); err != nil {
		t.Fatalf("SENTINEL FAILOVER: %v", err)
	}
	waitFor(t, "the sentinel naming the promoted replica", func(ctx context.Context) (bool, string) {
		got, err := c.GetMasterAddrByName(ctx, s.MasterName).Result()
		return err == nil && len(got) == 2 && net.JoinHostPort(got[0], got[1]) == s.ReplicaAddr, fmt.Sprint(got, err)
	})
}

// waitFor polls ok until it holds, failing t after startTimeout with what
// it saw last.
func waitFor(t testing.TB, what string, ok func(context.Context) (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		done, last := ok(ctx)
		cancel()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s; last: %s", startTimeout, what, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// StartRedisCluster starts three redis-server nodes in cluster mode, joins
// them with `redis-cli --cluster create` (no replicas), and returns their
// addresses once every node reports cluster_state:ok.
func StartRedisCluster(t testing.TB) []string {
	t.Helper()
	bin := RedisServer(t)
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		if Required() || os.Getenv("CI") == "true" {
			t.Fatalf("redis-cli is required (CI or %s=1) but is not on PATH: %v", requireEnv, err)
		}
		t.Skip("SKIPPED: redis-cli is not on PATH, so this Cluster test does not run; it comes with Debian's redis-server package")
	}
	addrs := make([]string, 3)
	for i := range addrs {
		addrs[i] = redisProcess(t, bin, fmt.Sprintf("node%d", i), FreePort(t, true), "",
			[]string{"cluster-enabled yes", "cluster-config-file nodes.conf", "cluster-node-timeout 5000"})
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	deadline := time.Now().Add(startTimeout)
	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a, MaxRetries: -1})
		for {
			info, err := c.ClusterInfo(context.Background()).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				_ = c.Close()
				t.Fatalf("node %s not ok within %s: %v\n%s", a, startTimeout, err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
		_ = c.Close()
	}
	return addrs
}
