package deploy

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// hookgateDefaultDrain is timeouts.drain_delay when the file leaves it out.
const hookgateDefaultDrain = 5 * time.Second

// workload is what checkWorkload found: the one Deployment, its hookgate
// container, and the configuration its ConfigMap holds.
type workload struct {
	Deployment *appsv1.Deployment
	Container  *corev1.Container
	ConfigText string
	Config     map[string]any
	// Env maps each variable the container gets to its source: a Secret
	// ("secret NAME/KEY") or its literal value.
	Env map[string]string
}

// checkWorkload holds a set of manifests (the chart's rendering or the
// plain ones) to what running hookgate in a cluster needs, and returns the
// workload for checks of its own.
func checkWorkload(t *testing.T, objs *objects) *workload {
	t.Helper()
	if len(objs.Deployments) != 1 {
		t.Fatalf("want one Deployment, got %d", len(objs.Deployments))
	}
	d := objs.Deployments[0]
	pod := &d.Spec.Template.Spec
	if len(pod.Containers) != 1 || pod.Containers[0].Name != "hookgate" {
		t.Fatalf("want one container named hookgate, got %d", len(pod.Containers))
	}
	c := &pod.Containers[0]
	w := &workload{Deployment: d, Container: c, Env: map[string]string{}}

	sel, err := metaSelector(d)
	if err != nil {
		t.Fatalf("Deployment selector: %v", err)
	}
	if !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("the Deployment's selector %s does not match its pods' labels %v", sel, d.Spec.Template.Labels)
	}

	// Ports, by name: the probes and the Services name them.
	ports := map[string]int32{}
	for _, p := range c.Ports {
		if errs := validation.IsValidPortName(p.Name); len(errs) > 0 {
			t.Errorf("container port name %q: %v", p.Name, errs)
		}
		ports[p.Name] = p.ContainerPort
	}
	if len(ports) != 2 || ports["agent"] == 0 || ports["admin"] == 0 {
		t.Fatalf("want container ports agent and admin, got %v", ports)
	}

	checkProbe(t, "liveness", c.LivenessProbe, "/healthz")
	checkProbe(t, "readiness", c.ReadinessProbe, "/readyz")
	checkSecurity(t, pod, c)

	// The configuration: a ConfigMap mounted as a directory at
	// /etc/hookgate (a subPath mount is never updated, so hot reload would
	// never see an edit), read by serve --config.
	if len(c.Args) < 3 || !slices.Equal(c.Args[:3], []string{"serve", "--config", "/etc/hookgate/hookgate.yaml"}) {
		t.Errorf("args = %q, want serve --config /etc/hookgate/hookgate.yaml ...", c.Args)
	}
	cmName := ""
	for _, m := range c.VolumeMounts {
		if m.SubPath != "" || m.SubPathExpr != "" {
			t.Errorf("volume %s is mounted with a subPath (%q): the kubelet never updates such a mount", m.Name, m.SubPath+m.SubPathExpr)
		}
		if m.MountPath != "/etc/hookgate" {
			continue
		}
		if !m.ReadOnly {
			t.Errorf("the configuration is mounted writable")
		}
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.ConfigMap != nil {
				cmName = v.ConfigMap.Name
				if len(v.ConfigMap.Items) > 0 {
					t.Errorf("the config volume picks items; mount the whole ConfigMap")
				}
			}
		}
	}
	if cmName == "" {
		t.Fatalf("no ConfigMap volume mounted at /etc/hookgate")
	}
	mounts := map[string]bool{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = true
	}
	if !mounts["/data"] || !mounts["/tmp"] {
		t.Errorf("want writable mounts at /data and /tmp beside the read-only root, got %v", mounts)
	}
	for _, cm := range objs.ConfigMaps {
		if cm.Name == cmName {
			w.ConfigText = cm.Data["hookgate.yaml"]
		}
	}
	if w.ConfigText == "" {
		t.Fatalf("ConfigMap %s has no hookgate.yaml", cmName)
	}
	if err := yaml.Unmarshal([]byte(w.ConfigText), &w.Config); err != nil {
		t.Fatalf("hookgate.yaml: %v", err)
	}

	// Listeners reachable in the pod, on the container's ports.
	if got, want := str(w.Config, "listen"), fmt.Sprintf("0.0.0.0:%d", ports["agent"]); got != want {
		t.Errorf("listen = %q, want %q", got, want)
	}
	if got, want := str(w.Config, "admin", "listen"), fmt.Sprintf("0.0.0.0:%d", ports["admin"]); got != want {
		t.Errorf("admin.listen = %q, want %q", got, want)
	}
	switch str(w.Config, "store", "driver") {
	case "postgres":
		if got := str(w.Config, "store", "dsn"); got != "${HOOKGATE_PG_DSN}" {
			t.Errorf("store.dsn = %q, want it from the environment", got)
		}
	case "sqlite":
		if got := str(w.Config, "store", "path"); !strings.HasPrefix(got, "/data/") {
			t.Errorf("store.path = %q, want it on the /data volume", got)
		}
	default:
		t.Errorf("store.driver = %q", str(w.Config, "store", "driver"))
	}

	// Stopping: drain, then shutdown_grace, then 5 s to exit.
	drain, grace := hookgateDefaultDrain, 30*time.Second
	if s := str(w.Config, "timeouts", "drain_delay"); s != "" {
		drain = mustDuration(t, "timeouts.drain_delay", s)
	}
	if s := str(w.Config, "timeouts", "shutdown_grace"); s != "" {
		grace = mustDuration(t, "timeouts.shutdown_grace", s)
	}
	want := int64((drain + grace + 5*time.Second) / time.Second)
	if pod.TerminationGracePeriodSeconds == nil || *pod.TerminationGracePeriodSeconds < want {
		t.Errorf("terminationGracePeriodSeconds = %v, want at least drain %v + shutdown_grace %v + 5s = %d",
			deref(pod.TerminationGracePeriodSeconds), drain, grace, want)
	}

	// Secrets come as environment variables, named as the config names them.
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			w.Env[e.Name] = "secret " + e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
		case e.ValueFrom == nil:
			w.Env[e.Name] = e.Value
		default:
			w.Env[e.Name] = "from elsewhere"
		}
	}
	for _, name := range envNames(w.Config) {
		src, ok := w.Env[name]
		if !ok {
			t.Errorf("the configuration reads %s, which the container does not get", name)
			continue
		}
		if name != "HOOKGATE_REDIS_ADDR" && !strings.HasPrefix(src, "secret ") {
			t.Errorf("%s is a literal value in the manifest, want it from a Secret", name)
		}
	}

	checkServices(t, objs, d)
	return w
}

// metaSelector is the Deployment's label selector.
func metaSelector(d *appsv1.Deployment) (labels.Selector, error) {
	if d.Spec.Selector == nil || len(d.Spec.Selector.MatchLabels) == 0 {
		return nil, fmt.Errorf("no matchLabels")
	}
	return labels.SelectorFromSet(d.Spec.Selector.MatchLabels), nil
}

func checkProbe(t *testing.T, kind string, p *corev1.Probe, path string) {
	t.Helper()
	if p == nil || p.HTTPGet == nil {
		t.Errorf("%s probe: want an HTTP GET of %s", kind, path)
		return
	}
	if p.HTTPGet.Path != path {
		t.Errorf("%s probe path = %q, want %q", kind, p.HTTPGet.Path, path)
	}
	if p.HTTPGet.Port.Type != intstr.String || p.HTTPGet.Port.StrVal != "admin" {
		t.Errorf("%s probe port = %s, want the port named admin", kind, p.HTTPGet.Port.String())
	}
}

func checkSecurity(t *testing.T, pod *corev1.PodSpec, c *corev1.Container) {
	t.Helper()
	ps := pod.SecurityContext
	if ps == nil {
		t.Fatalf("no pod securityContext")
	}
	if ps.RunAsNonRoot == nil || !*ps.RunAsNonRoot {
		t.Errorf("pod securityContext.runAsNonRoot is not true")
	}
	if ps.RunAsUser == nil || *ps.RunAsUser != 65532 {
		t.Errorf("pod securityContext.runAsUser = %v, want 65532 (the image's nonroot user)", deref(ps.RunAsUser))
	}
	if ps.SeccompProfile == nil || ps.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod seccompProfile is not RuntimeDefault")
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Errorf("the pod mounts a service account token; hookgate never calls the API")
	}
	cs := c.SecurityContext
	if cs == nil {
		t.Fatalf("no container securityContext")
	}
	if cs.RunAsNonRoot == nil || !*cs.RunAsNonRoot {
		t.Errorf("container runAsNonRoot is not true")
	}
	if cs.ReadOnlyRootFilesystem == nil || !*cs.ReadOnlyRootFilesystem {
		t.Errorf("container readOnlyRootFilesystem is not true")
	}
	if cs.AllowPrivilegeEscalation == nil || *cs.AllowPrivilegeEscalation {
		t.Errorf("container allowPrivilegeEscalation is not false")
	}
	if cs.Privileged != nil && *cs.Privileged {
		t.Errorf("container is privileged")
	}
	if cs.Capabilities == nil || !slices.Contains(cs.Capabilities.Drop, "ALL") || len(cs.Capabilities.Add) > 0 {
		t.Errorf("container capabilities = %+v, want drop [ALL] and nothing added", cs.Capabilities)
	}
	if cs.SeccompProfile != nil && cs.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("container seccompProfile = %s", cs.SeccompProfile.Type)
	}
}

// checkServices wants one Service for the agents (port agent alone) and
// one for admin (port admin alone), both selecting the pods.
func checkServices(t *testing.T, objs *objects, d *appsv1.Deployment) {
	t.Helper()
	byPort := map[string]*corev1.Service{}
	for _, s := range objs.Services {
		if len(s.Spec.Ports) != 1 {
			t.Errorf("Service %s has %d ports, want one (agent and admin are apart)", s.Name, len(s.Spec.Ports))
			continue
		}
		p := s.Spec.Ports[0]
		if p.TargetPort.Type != intstr.String || p.Name != p.TargetPort.StrVal {
			t.Errorf("Service %s port %q targets %s; want the container port of its name", s.Name, p.Name, p.TargetPort.String())
		}
		if !labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) || len(s.Spec.Selector) == 0 {
			t.Errorf("Service %s selector %v does not select the pods %v", s.Name, s.Spec.Selector, d.Spec.Template.Labels)
		}
		byPort[p.TargetPort.StrVal] = s
	}
	if byPort["agent"] == nil || byPort["admin"] == nil || len(byPort) != 2 {
		t.Errorf("want a Service for port agent and another for port admin, got %v", keys(byPort))
	}
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// envNames lists the environment variables a configuration reads: the
// values of its *_env keys and its ${NAME} references.
func envNames(cfg any) []string {
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && strings.HasSuffix(k, "_env") && s != "" {
					seen[s] = true
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			for _, m := range envRef.FindAllStringSubmatch(v, -1) {
				seen[m[1]] = true
			}
		}
	}
	walk(cfg)
	return keys(seen)
}

// validateWorkload runs hookgate validate on the workload's configuration
// with a stand-in value for each variable the container gets.
func validateWorkload(t *testing.T, name string, w *workload) {
	t.Helper()
	env := map[string]string{}
	for k, src := range w.Env {
		if strings.HasPrefix(src, "secret ") {
			env[k] = dummySecret(k)
		} else {
			env[k] = src
		}
	}
	validateConfig(t, name, w.ConfigText, env)
}

// str reads a string at a path of nested maps ("" when absent).
func str(m map[string]any, path ...string) string {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = mm[p]
	}
	s, _ := v.(string)
	return s
}

func mustDuration(t *testing.T, what, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return d
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
