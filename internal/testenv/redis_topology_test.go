package testenv

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestMissingRedisServerFailsInCI runs a Sentinel test without
// redis-server on PATH in a child process: skipped loudly on a developer's
// machine, failed when CI=true or the test command requires services.
func TestMissingRedisServerFailsInCI(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		StartRedisSentinel(t, SentinelOptions{})
		t.Log("REACHED: the test went on without redis-server")
		return
	}
	run := func(env ...string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingRedisServerFailsInCI$", "-test.v")
		cmd.Env = append(os.Environ(), append([]string{"TESTENV_CHILD=1", "PATH=" + t.TempDir(), "CI=", requireEnv + "="}, env...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run()
	if err != nil || !strings.Contains(out, "--- SKIP") || !strings.Contains(out, "SKIPPED: redis-server is not on PATH") || strings.Contains(out, "REACHED") {
		t.Errorf("optional: err=%v, want a loud skip:\n%s", err, out)
	}
	for _, env := range []string{"CI=true", requireEnv + "=1"} {
		out, err = run(env)
		if err == nil || !strings.Contains(out, "--- FAIL") || !strings.Contains(out, "redis-server is required") || strings.Contains(out, "REACHED") {
			t.Errorf("%s: err=%v, want a failure:\n%s", env, err, out)
		}
	}
}

// FreePort's ports can be listened on, and with bus so can port+10000.
func TestFreePort(t *testing.T) {
	for _, bus := range []bool{false, true} {
		p := FreePort(t, bus)
		ports := []int{p}
		if bus {
			ports = append(ports, p+10000)
		}
		for _, port := range ports {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err != nil {
				t.Fatalf("bus=%v: port %d: %v", bus, port, err)
			}
			_ = l.Close()
		}
	}
}

// The cluster StartRedisCluster returns serves every slot.
func TestStartRedisCluster(t *testing.T) {
	nodes := StartRedisCluster(t)
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: nodes})
	defer func() { _ = c.Close() }()
	shards, err := c.ClusterShards(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	var covered int64
	for _, s := range shards {
		for _, r := range s.Slots {
			covered += r.End - r.Start + 1
		}
	}
	if len(nodes) != 3 || len(shards) != 3 || covered != 16384 {
		t.Fatalf("%d nodes, %d shards, %d slots served", len(nodes), len(shards), covered)
	}
}
