package deploy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

const chartDir = "helm/hookgate"

// objects are the manifests of one rendering (or one folder of plain
// manifests), decoded.
type objects struct {
	Deployments     []*appsv1.Deployment
	Services        []*corev1.Service
	ConfigMaps      []*corev1.ConfigMap
	Secrets         []*corev1.Secret
	ServiceAccounts []*corev1.ServiceAccount
	HPAs            []*autoscalingv2.HorizontalPodAutoscaler
	PDBs            []*policyv1.PodDisruptionBudget
	ServiceMonitors []*monitoringv1.ServiceMonitor
	// Notes is the rendered NOTES.txt ("" for plain manifests).
	Notes string
}

// renderChart renders the chart as `helm template` would for release
// "hookgate" in namespace "agents", with the values file (none: the
// chart's defaults) and overrides merged over it. It returns the error of
// a rendering the chart refuses.
func renderChart(t *testing.T, valuesFile string, overrides map[string]any) (map[string]string, error) {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("loading the chart: %v", err)
	}
	if err := ch.Validate(); err != nil {
		t.Fatalf("the chart's metadata: %v", err)
	}
	vals := map[string]any{}
	if valuesFile != "" {
		raw, err := os.ReadFile(valuesFile)
		if err != nil {
			t.Fatal(err)
		}
		if vals, err = loader.LoadValues(bytes.NewReader(raw)); err != nil {
			t.Fatalf("%s: %v", valuesFile, err)
		}
	}
	vals = loader.MergeMaps(vals, overrides)
	return renderValues(ch, vals)
}

func renderValues(ch *chart.Chart, vals map[string]any) (map[string]string, error) {
	opts := common.ReleaseOptions{Name: "hookgate", Namespace: "agents", Revision: 1, IsInstall: true}
	top, err := util.ToRenderValues(ch, vals, opts, common.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	// As helm install and helm template render (not lint --strict).
	var e engine.Engine
	return e.RenderWithContext(context.Background(), ch, top)
}

// mustRender renders and decodes, failing the test on any error.
func mustRender(t *testing.T, valuesFile string, overrides map[string]any) *objects {
	t.Helper()
	files, err := renderChart(t, valuesFile, overrides)
	if err != nil {
		t.Fatalf("rendering the chart: %v", err)
	}
	objs := &objects{}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if strings.HasSuffix(name, "NOTES.txt") {
			objs.Notes = files[name]
			continue
		}
		decodeManifests(t, name, []byte(files[name]), objs)
	}
	return objs
}

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// decodeManifests decodes every document of a YAML stream strictly into
// its API type: a field the type does not have, or a duplicate field, is
// an error, as is a kind the packaging should not produce.
func decodeManifests(t *testing.T, source string, data []byte, into *objects) {
	t.Helper()
	for i, doc := range docSep.Split(string(data), -1) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		where := fmt.Sprintf("%s (document %d)", source, i+1)
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatalf("%s: %v\n%s", where, err, doc)
		}
		var obj any
		switch tm.APIVersion + " " + tm.Kind {
		case "apps/v1 Deployment":
			o := &appsv1.Deployment{}
			into.Deployments, obj = append(into.Deployments, o), o
		case "v1 Service":
			o := &corev1.Service{}
			into.Services, obj = append(into.Services, o), o
		case "v1 ConfigMap":
			o := &corev1.ConfigMap{}
			into.ConfigMaps, obj = append(into.ConfigMaps, o), o
		case "v1 Secret":
			o := &corev1.Secret{}
			into.Secrets, obj = append(into.Secrets, o), o
		case "v1 ServiceAccount":
			o := &corev1.ServiceAccount{}
			into.ServiceAccounts, obj = append(into.ServiceAccounts, o), o
		case "autoscaling/v2 HorizontalPodAutoscaler":
			o := &autoscalingv2.HorizontalPodAutoscaler{}
			into.HPAs, obj = append(into.HPAs, o), o
		case "policy/v1 PodDisruptionBudget":
			o := &policyv1.PodDisruptionBudget{}
			into.PDBs, obj = append(into.PDBs, o), o
		case "monitoring.coreos.com/v1 ServiceMonitor":
			o := &monitoringv1.ServiceMonitor{}
			into.ServiceMonitors, obj = append(into.ServiceMonitors, o), o
		default:
			t.Fatalf("%s: unexpected kind %q %q", where, tm.APIVersion, tm.Kind)
		}
		if err := decodeStrict([]byte(doc), obj); err != nil {
			t.Fatalf("%s: strict decoding into %s: %v\n%s", where, tm.Kind, err, doc)
		}
		checkMeta(t, where, obj.(metav1.Object))
	}
}

// decodeStrict decodes one YAML document as the API server reads a
// manifest: field names match case-sensitively, and an unknown or
// duplicate field is an error (encoding/json alone would take
// readOnlyRootFileSystem for readOnlyRootFilesystem).
func decodeStrict(doc []byte, obj any) error {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strictErrs, err := sigsjson.UnmarshalStrict(js, obj, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	return errors.Join(strictErrs...)
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// checkMeta holds names and labels to what the API server accepts.
func checkMeta(t *testing.T, where string, o metav1.Object) {
	t.Helper()
	if errs := validation.IsDNS1123Label(o.GetName()); len(errs) > 0 {
		t.Errorf("%s: name %q: %v", where, o.GetName(), errs)
	}
	for k, v := range o.GetLabels() {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			t.Errorf("%s: label key %q: %v", where, k, errs)
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			t.Errorf("%s: label %s=%q: %v", where, k, v, errs)
		}
	}
}

// decodeDir decodes every *.yaml of a folder of plain manifests.
func decodeDir(t *testing.T, dir string) *objects {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests in %s: %v", dir, err)
	}
	objs := &objects{}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		decodeManifests(t, p, raw, objs)
	}
	return objs
}
