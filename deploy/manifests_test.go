package deploy

import (
	"strings"
	"testing"
)

// TestPlainManifests holds deploy/kubernetes to what the chart is held to,
// runs hookgate validate on its ConfigMap, and checks that the example
// Secret has every key the Deployment reads.
func TestPlainManifests(t *testing.T) {
	objs := decodeDir(t, "kubernetes")
	w := checkWorkload(t, objs)
	validateWorkload(t, "kubernetes/configmap.yaml", w)

	if len(objs.Secrets) != 1 {
		t.Fatalf("want one example Secret, got %d", len(objs.Secrets))
	}
	sec := objs.Secrets[0]
	for name, src := range w.Env {
		ref, ok := strings.CutPrefix(src, "secret ")
		if !ok {
			continue
		}
		secret, key, _ := strings.Cut(ref, "/")
		if secret != sec.Name {
			t.Errorf("%s comes from Secret %s, not the example's %s", name, secret, sec.Name)
			continue
		}
		if _, ok := sec.StringData[key]; !ok {
			t.Errorf("the example Secret lacks key %s (read into %s)", key, name)
		}
	}
	if len(objs.HPAs)+len(objs.PDBs)+len(objs.ServiceMonitors) != 0 {
		t.Errorf("the plain manifests are the minimum: no HPA, PDB or ServiceMonitor")
	}
}
