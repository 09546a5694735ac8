package app

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hookgate/hookgate/internal/testenv"
)

// /readyz reports a Cluster and a master behind Sentinel through the
// rate limit's own `redis:` blocks: both up, a second Cluster that cannot
// be reached down under a name of its own, and no name holds an address.
func TestReadinessReportsSentinelAndCluster(t *testing.T) {
	nodes := testenv.StartRedisCluster(t)
	s := testenv.StartRedisSentinel(t, testenv.SentinelOptions{MasterPassword: "ready-master-pw"})
	t.Setenv("READY_TEST_TOKEN", "tok-ready")
	t.Setenv("READY_REDIS_PW", "ready-master-pw")
	dir := t.TempDir()
	path := filepath.Join(dir, "hookgate.yaml")
	writeFile(t, path, baseConfig(dir)+"store: {path: "+filepath.Join(dir, "h.db")+"}\n"+`hooks:
  - id: cluster-budget
    event: pre_tool_use
    handler: {type: builtin, name: rate_limit, with: {limit: 5, window: 1m, redis: {cluster_addrs: [`+strings.Join(nodes, ", ")+`]}}}
  - id: cluster-budget-again
    event: pre_tool_use
    handler: {type: builtin, name: rate_limit, with: {limit: 9, window: 1m, redis: {cluster_addrs: [`+nodes[2]+", "+nodes[0]+", "+nodes[1]+`]}}}
  - id: dead-cluster
    event: pre_tool_use
    handler: {type: builtin, name: rate_limit, with: {limit: 5, window: 1m, redis: {cluster_addrs: ["127.0.0.1:1"]}}}
  - id: sentinel-budget
    event: pre_tool_use
    handler: {type: builtin, name: rate_limit, with: {limit: 5, window: 1m, redis: {master_name: `+s.MasterName+`, sentinel_addrs: [`+s.SentinelAddr+`], password_env: READY_REDIS_PW}}}
`)
	a := startFile(t, path)
	status, rep := getJSON(t, a.AdminURL()+"/readyz", "")
	deps, _ := rep["dependencies"].(map[string]any)
	up := func(name string) any {
		d, _ := deps[name].(map[string]any)
		return d["up"]
	}
	// Two Clusters: which one is "redis:cluster" follows the order of
	// their seeds; one is up, the other down.
	live, dead := "redis:cluster", "redis:cluster:2"
	if up(live) == false {
		live, dead = dead, live
	}
	if status != 200 || rep["status"] != "ready" || len(deps) != 3 ||
		up(live) != true || up(dead) != false || up("redis:sentinel:hookgate-test") != true {
		t.Fatalf("/readyz: %d %v", status, rep)
	}
	if b, _ := json.Marshal(rep); strings.Contains(string(b), "127.0.0.1") || strings.Contains(string(b), "ready-master-pw") {
		t.Errorf("/readyz names an address or a secret: %s", b)
	}
	want := `
# HELP hookgate_dependency_up Whether a shared dependency (postgres, redis) answered its last check: 1 up, 0 down. Reported, never a cause of unreadiness.
# TYPE hookgate_dependency_up gauge
hookgate_dependency_up{dependency="redis:cluster"} ` + map[bool]string{true: "1", false: "0"}[live == "redis:cluster"] + `
hookgate_dependency_up{dependency="redis:cluster:2"} ` + map[bool]string{true: "1", false: "0"}[live == "redis:cluster:2"] + `
hookgate_dependency_up{dependency="redis:sentinel:hookgate-test"} 1
`
	if err := testutil.GatherAndCompare(a.Registry, strings.NewReader(want), "hookgate_dependency_up"); err != nil {
		t.Error(err)
	}

	// One master of the live Cluster dies: its slots are unreachable, so
	// the Cluster is down, and the instance stays ready.
	testenv.KillRedis(t, nodes[1])
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, rep = getJSON(t, a.AdminURL()+"/readyz", "")
		deps, _ = rep["dependencies"].(map[string]any)
		if up(live) == false {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a Cluster with a master down is still reported up: %v", rep)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if status != 200 || rep["status"] != "ready" || up("redis:sentinel:hookgate-test") != true {
		t.Fatalf("/readyz with a Cluster node down: %d %v", status, rep)
	}
}
