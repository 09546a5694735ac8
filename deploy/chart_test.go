package deploy

import (
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const productionValues = "helm/hookgate/ci/production-values.yaml"

// TestChartDefaults renders the chart with its own values: one pod on
// SQLite, no optional object, edits reloaded in place.
func TestChartDefaults(t *testing.T) {
	objs := mustRender(t, "", nil)
	w := checkWorkload(t, objs)
	validateWorkload(t, "the chart's defaults", w)

	d := w.Deployment
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
		t.Errorf("replicas = %v, want 1", deref(d.Spec.Replicas))
	}
	if got := *d.Spec.Template.Spec.TerminationGracePeriodSeconds; got != 5+30+5 {
		t.Errorf("terminationGracePeriodSeconds = %d, want 40 (drain 5 + grace 30 + 5)", got)
	}
	if _, ok := d.Spec.Template.Annotations["checksum/config"]; ok {
		t.Errorf("rollOnChange is false but the pods carry a checksum/config annotation")
	}
	if str(w.Config, "store", "driver") != "sqlite" || str(w.Config, "store", "path") != "/data/hookgate.db" {
		t.Errorf("store = %v, want sqlite at /data/hookgate.db", w.Config["store"])
	}
	if _, ok := w.Config["timeouts"].(map[string]any)["drain_delay"]; ok {
		t.Errorf("drainDelaySeconds is null but the config sets timeouts.drain_delay")
	}
	if len(objs.HPAs)+len(objs.PDBs)+len(objs.ServiceMonitors) != 0 {
		t.Errorf("optional objects rendered though disabled: %d HPA, %d PDB, %d ServiceMonitor",
			len(objs.HPAs), len(objs.PDBs), len(objs.ServiceMonitors))
	}
	if len(objs.Secrets) != 0 {
		t.Errorf("the chart created %d Secrets; it only references existing ones", len(objs.Secrets))
	}
	if len(objs.ServiceAccounts) != 1 || objs.ServiceAccounts[0].Name != d.Spec.Template.Spec.ServiceAccountName {
		t.Errorf("want the pods' ServiceAccount rendered")
	}
	for _, want := range []string{"hookgate-admin", "emptyDir", "40s"} {
		if !strings.Contains(objs.Notes, want) {
			t.Errorf("NOTES.txt does not mention %q:\n%s", want, objs.Notes)
		}
	}
}

// TestChartProduction renders ci/production-values.yaml: PostgreSQL and
// Redis, secrets for every key and token, rolling on a config change, and
// every optional object.
func TestChartProduction(t *testing.T) {
	objs := mustRender(t, productionValues, nil)
	w := checkWorkload(t, objs)
	validateWorkload(t, productionValues, w)
	d := w.Deployment
	podLabels := labels.Set(d.Spec.Template.Labels)

	if d.Spec.Replicas != nil {
		t.Errorf("replicas = %d although the HorizontalPodAutoscaler owns the count", *d.Spec.Replicas)
	}
	if got := *d.Spec.Template.Spec.TerminationGracePeriodSeconds; got != 5+60+5 {
		t.Errorf("terminationGracePeriodSeconds = %d, want 70 (drain 5 + grace 60 + 5)", got)
	}
	if s := d.Spec.Strategy; s.RollingUpdate == nil || s.RollingUpdate.MaxUnavailable == nil || s.RollingUpdate.MaxUnavailable.IntValue() != 0 {
		t.Errorf("want a rolling update that keeps every pod until its replacement is ready, got %+v", s)
	}

	// rollOnChange: the annotation is the digest of the config the pods mount.
	sum := sha256.Sum256([]byte(strings.TrimSuffix(w.ConfigText, "\n")))
	if got := d.Spec.Template.Annotations["checksum/config"]; got != hex.EncodeToString(sum[:]) {
		t.Errorf("checksum/config = %q, want the sha256 of the ConfigMap's hookgate.yaml (%x)", got, sum)
	}
	edited := mustRender(t, productionValues, map[string]any{"config": map[string]any{"log": map[string]any{"level": "debug"}}})
	if edited.Deployments[0].Spec.Template.Annotations["checksum/config"] == d.Spec.Template.Annotations["checksum/config"] {
		t.Errorf("a config edit left checksum/config as it was: the pods would not roll")
	}

	wantEnv := map[string]string{
		"OPENAI_API_KEY":             "secret hookgate-upstream/openai",
		"ANTHROPIC_API_KEY":          "secret hookgate-upstream/anthropic",
		"HOOKGATE_ADMIN_TOKEN":       "secret hookgate-admin/token",
		"HOOKGATE_ADMIN_TOKEN_ALICE": "secret hookgate-approvers/alice",
		"HOOKGATE_ADMIN_TOKEN_BOB":   "secret hookgate-approvers/bob",
		"HOOKGATE_AUDIT_KEY":         "secret hookgate-audit/key",
		"HOOKGATE_SESSION_KEY":       "secret hookgate-console/session-key",
		"HOOKGATE_PG_DSN":            "secret hookgate-postgres/dsn",
		"HOOKGATE_REDIS_ADDR":        "redis-master.platform.svc:6379",
		"HOOKGATE_REDIS_PASSWORD":    "secret hookgate-redis/password",
	}
	for k, v := range wantEnv {
		if w.Env[k] != v {
			t.Errorf("env %s = %q, want %q", k, w.Env[k], v)
		}
	}
	if str(w.Config, "admin", "token_env") != "HOOKGATE_ADMIN_TOKEN" || str(w.Config, "audit", "key_env") != "HOOKGATE_AUDIT_KEY" {
		t.Errorf("admin.token_env / audit.key_env not set from the secrets: %v %v", w.Config["admin"], w.Config["audit"])
	}
	if str(w.Config, "admin", "session_key_env") != "HOOKGATE_SESSION_KEY" {
		t.Errorf("admin.session_key_env not set from secrets.sessionKey: %v", w.Config["admin"])
	}
	if str(w.Config, "audit", "on_full") != "block" {
		t.Errorf("the values' audit.on_full was lost when the chart set audit.key_env")
	}

	if len(objs.HPAs) != 1 {
		t.Fatalf("want one HorizontalPodAutoscaler, got %d", len(objs.HPAs))
	}
	hpa := objs.HPAs[0]
	if ref := hpa.Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.Name != d.Name || ref.APIVersion != "apps/v1" {
		t.Errorf("HPA targets %+v, want the Deployment %s", ref, d.Name)
	}
	if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas != 3 || hpa.Spec.MaxReplicas != 12 {
		t.Errorf("HPA bounds %v..%d, want 3..12", deref(hpa.Spec.MinReplicas), hpa.Spec.MaxReplicas)
	}

	if len(objs.PDBs) != 1 {
		t.Fatalf("want one PodDisruptionBudget, got %d", len(objs.PDBs))
	}
	pdb := objs.PDBs[0]
	if pdb.Spec.MinAvailable == nil || *pdb.Spec.MinAvailable != intstr.FromInt32(2) {
		t.Errorf("PDB minAvailable = %v, want 2", pdb.Spec.MinAvailable)
	}
	if pdb.Spec.Selector == nil || !labels.SelectorFromSet(pdb.Spec.Selector.MatchLabels).Matches(podLabels) {
		t.Errorf("PDB selector does not select the pods")
	}

	if len(objs.ServiceMonitors) != 1 {
		t.Fatalf("want one ServiceMonitor, got %d", len(objs.ServiceMonitors))
	}
	sm := objs.ServiceMonitors[0]
	if sm.Labels["release"] != "prometheus" {
		t.Errorf("ServiceMonitor labels %v lack the values' release=prometheus", sm.Labels)
	}
	if len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != "admin" || sm.Spec.Endpoints[0].Path != "/metrics" {
		t.Errorf("ServiceMonitor endpoints %+v, want /metrics on port admin", sm.Spec.Endpoints)
	}
	var scraped []string
	for _, s := range objs.Services {
		if labels.SelectorFromSet(sm.Spec.Selector.MatchLabels).Matches(labels.Set(s.Labels)) {
			scraped = append(scraped, s.Name+":"+s.Spec.Ports[0].Name)
		}
	}
	if len(scraped) != 1 || scraped[0] != "hookgate-admin:admin" {
		t.Errorf("the ServiceMonitor selects %v, want the admin Service alone", scraped)
	}
}

// TestChartDrainDelay: a drain delay in the values reaches the config and
// lengthens the pods' grace period by as much.
func TestChartDrainDelay(t *testing.T) {
	objs := mustRender(t, "", map[string]any{"timeouts": map[string]any{"drainDelaySeconds": 12, "shutdownGraceSeconds": 20}})
	w := checkWorkload(t, objs)
	if got := str(w.Config, "timeouts", "drain_delay"); got != "12s" {
		t.Errorf("timeouts.drain_delay = %q, want 12s", got)
	}
	if got := str(w.Config, "timeouts", "shutdown_grace"); got != "20s" {
		t.Errorf("timeouts.shutdown_grace = %q, want 20s", got)
	}
	if got := *w.Deployment.Spec.Template.Spec.TerminationGracePeriodSeconds; got != 12+20+5 {
		t.Errorf("terminationGracePeriodSeconds = %d, want 37", got)
	}
	// drain_delay 0 is kept (no drain), not taken for "unset".
	objs = mustRender(t, "", map[string]any{"timeouts": map[string]any{"drainDelaySeconds": 0}})
	if got := *objs.Deployments[0].Spec.Template.Spec.TerminationGracePeriodSeconds; got != 0+30+5 {
		t.Errorf("drainDelaySeconds 0: terminationGracePeriodSeconds = %d, want 35", got)
	}
}

// TestChartPersistence: a claim for /data replaces the pod instead of
// rolling it (two pods cannot hold one ReadWriteOnce claim).
func TestChartPersistence(t *testing.T) {
	objs := mustRender(t, "", map[string]any{"persistence": map[string]any{"enabled": true, "existingClaim": "hookgate-data"}})
	w := checkWorkload(t, objs)
	if w.Deployment.Spec.Strategy.Type != "Recreate" {
		t.Errorf("strategy = %q, want Recreate with a claim", w.Deployment.Spec.Strategy.Type)
	}
	found := false
	for _, v := range w.Deployment.Spec.Template.Spec.Volumes {
		if v.Name == "data" && v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == "hookgate-data" {
			found = true
		}
	}
	if !found {
		t.Errorf("the data volume is not the claim hookgate-data")
	}
}

// rateLimitHook is a rate_limit hook whose counters live in Redis, the
// redis: block left to the chart's redis values.
func rateLimitHook(redis map[string]any) map[string]any {
	return map[string]any{"config": map[string]any{"hooks": []any{map[string]any{
		"id": "exec-budget", "event": "pre_tool_use", "matcher": "^exec$",
		"handler": map[string]any{"type": "builtin", "name": "rate_limit", "with": map[string]any{
			"limit": 10, "window": "1m", "redis": redis,
		}},
	}}}}
}

// hookRedis is the redis: block of the config's first hook.
func hookRedis(t *testing.T, cfg map[string]any) map[string]any {
	t.Helper()
	hooks, _ := cfg["hooks"].([]any)
	if len(hooks) == 0 {
		t.Fatalf("no hooks in the config")
	}
	h, _ := hooks[0].(map[string]any)
	handler, _ := h["handler"].(map[string]any)
	with, _ := handler["with"].(map[string]any)
	r, _ := with["redis"].(map[string]any)
	return r
}

// TestChartRedisSecrets: the Redis password (and Sentinel's) come from
// Secrets as variables that the rate_limit hook's redis: block names;
// Sentinel and Cluster addresses reach the block; no password is ever
// written into the ConfigMap. hookgate validate accepts every rendering.
func TestChartRedisSecrets(t *testing.T) {
	merge := func(a, b map[string]any) map[string]any {
		for k, v := range b {
			a[k] = v
		}
		return a
	}
	cases := []struct {
		name      string
		redis     map[string]any // the values' redis:
		hookBlock map[string]any // the hook's own redis: block
		extra     map[string]any // other values
		wantEnv   map[string]string
		wantKeys  map[string]any
	}{
		{
			name:      "password for one server",
			redis:     map[string]any{"addr": "redis.platform.svc:6379", "passwordSecret": map[string]any{"name": "hookgate-redis", "key": "password"}},
			hookBlock: map[string]any{"key_prefix": "hg:"},
			wantEnv:   map[string]string{"HOOKGATE_REDIS_ADDR": "redis.platform.svc:6379", "HOOKGATE_REDIS_PASSWORD": "secret hookgate-redis/password"},
			wantKeys:  map[string]any{"password_env": "HOOKGATE_REDIS_PASSWORD", "key_prefix": "hg:"},
		},
		{
			name: "sentinel",
			redis: map[string]any{"passwordSecret": map[string]any{"name": "hookgate-redis", "key": "password"}, "sentinel": map[string]any{
				"masterName": "mymaster", "addrs": []any{"s0.platform.svc:26379", "s1.platform.svc:26379"},
				"passwordSecret": map[string]any{"name": "hookgate-redis", "key": "sentinel-password"},
			}},
			hookBlock: map[string]any{},
			wantEnv:   map[string]string{"HOOKGATE_REDIS_PASSWORD": "secret hookgate-redis/password", "HOOKGATE_REDIS_SENTINEL_PASSWORD": "secret hookgate-redis/sentinel-password"},
			wantKeys: map[string]any{"password_env": "HOOKGATE_REDIS_PASSWORD", "sentinel_password_env": "HOOKGATE_REDIS_SENTINEL_PASSWORD",
				"master_name": "mymaster", "sentinel_addrs": []any{"s0.platform.svc:26379", "s1.platform.svc:26379"}},
		},
		{
			name:      "cluster",
			redis:     map[string]any{"cluster": map[string]any{"addrs": []any{"c0.platform.svc:6379"}}, "passwordSecret": map[string]any{"name": "hookgate-redis", "key": "password"}},
			hookBlock: map[string]any{"password_env": "MY_OWN_REDIS_PASSWORD"},
			// The hook's own key wins over the chart's.
			extra:    map[string]any{"secrets": map[string]any{"env": []any{map[string]any{"env": "MY_OWN_REDIS_PASSWORD", "secretName": "own", "secretKey": "pw"}}}},
			wantEnv:  map[string]string{"HOOKGATE_REDIS_PASSWORD": "secret hookgate-redis/password"},
			wantKeys: map[string]any{"password_env": "MY_OWN_REDIS_PASSWORD", "cluster_addrs": []any{"c0.platform.svc:6379"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs := mustRender(t, "", merge(merge(rateLimitHook(tc.hookBlock), map[string]any{"redis": tc.redis}), tc.extra))
			w := checkWorkload(t, objs)
			for k, v := range tc.wantEnv {
				if w.Env[k] != v {
					t.Errorf("env %s = %q, want %q", k, w.Env[k], v)
				}
			}
			for k := range w.Env {
				if _, ok := tc.wantEnv[k]; strings.HasPrefix(k, "HOOKGATE_REDIS") && !ok {
					t.Errorf("env %s set, want only %v", k, tc.wantEnv)
				}
			}
			got := hookRedis(t, w.Config)
			if !reflect.DeepEqual(got, tc.wantKeys) {
				t.Errorf("the hook's redis: block = %v, want %v", got, tc.wantKeys)
			}
			// The ConfigMap names variables only: no password key, no
			// Secret's name or key.
			for _, leak := range []string{"password:", "hookgate-redis", "sentinel-password"} {
				if strings.Contains(w.ConfigText, leak) {
					t.Errorf("the ConfigMap holds %q:\n%s", leak, w.ConfigText)
				}
			}
			env := map[string]string{}
			for k, src := range w.Env {
				env[k] = src
				if strings.HasPrefix(src, "secret ") {
					env[k] = "s3cret-" + strings.ToLower(k)
				}
			}
			validateConfig(t, tc.name, w.ConfigText, env)
		})
	}

	// A rate_limit hook without a redis: block keeps its counters in
	// memory: the chart adds none.
	hook := rateLimitHook(nil)
	delete(hook["config"].(map[string]any)["hooks"].([]any)[0].(map[string]any)["handler"].(map[string]any)["with"].(map[string]any), "redis")
	objs := mustRender(t, "", merge(hook, map[string]any{"redis": cases[0].redis}))
	if r := hookRedis(t, checkWorkload(t, objs).Config); r != nil {
		t.Errorf("a hook without redis: got %v from the chart", r)
	}
}

// TestChartRefusesUnsafeValues: values that would run hookgate wrongly
// fail the rendering with a reason, instead of deploying.
func TestChartRefusesUnsafeValues(t *testing.T) {
	cases := []struct {
		name   string
		values map[string]any
		want   string
	}{
		{"replicas on SQLite", map[string]any{"replicaCount": 3}, "needs postgres.enabled"},
		{"autoscaling on SQLite", map[string]any{"autoscaling": map[string]any{"enabled": true}}, "needs postgres.enabled"},
		{"postgres without a DSN secret", map[string]any{"postgres": map[string]any{"enabled": true}}, "postgres.dsnSecret"},
		{"persistence without a claim", map[string]any{"persistence": map[string]any{"enabled": true}}, "existingClaim"},
		{"listen in config", map[string]any{"config": map[string]any{"listen": "127.0.0.1:1"}}, "config.listen is set by the chart"},
		{"store in config", map[string]any{"config": map[string]any{"store": map[string]any{"driver": "sqlite"}}}, "config.store is set by the chart"},
		// values.schema.json: a misspelt or mistyped value is refused, not ignored.
		{"misspelt value", map[string]any{"replicaCont": 2}, "replicaCont"},
		{"misspelt nested value", map[string]any{"timeouts": map[string]any{"shutdownGrace": 10}}, "shutdownGrace"},
		{"a duration for seconds", map[string]any{"timeouts": map[string]any{"drainDelaySeconds": "5s"}}, "drainDelaySeconds"},
		{"a secret without its key", map[string]any{"secrets": map[string]any{"env": []any{map[string]any{"env": "OPENAI_API_KEY", "secretName": "upstream"}}}}, "secretKey"},
		{"redis addr and sentinel", map[string]any{"redis": map[string]any{"addr": "r:6379", "sentinel": map[string]any{"masterName": "m", "addrs": []any{"s:26379"}}}}, "set one of addr/addrSecret, sentinel and cluster"},
		{"redis sentinel and cluster", map[string]any{"redis": map[string]any{"cluster": map[string]any{"addrs": []any{"c:6379"}}, "sentinel": map[string]any{"masterName": "m", "addrs": []any{"s:26379"}}}}, "set one of addr/addrSecret, sentinel and cluster"},
		{"sentinel without addrs", map[string]any{"redis": map[string]any{"sentinel": map[string]any{"masterName": "m"}}}, "needs both masterName and addrs"},
		{"a redis password without its key", map[string]any{"redis": map[string]any{"passwordSecret": map[string]any{"name": "r"}}}, "key"},
		{"an admin token without its key", map[string]any{"secrets": map[string]any{"adminToken": map[string]any{"secretName": "admin"}}}, "secretKey"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := renderChart(t, "", tc.values)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("rendering = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
