// Package hgtarget makes hookgate a target of the benchmark harness
// (package bench): per scenario it builds a hookgate configuration whose
// only upstream is the harness's mock and whose hooks are the scenario's,
// and starts it through internal/app, the same wiring `hookgate serve`
// runs. It lives apart from package bench so that the harness itself
// imports nothing of the proxy.
package hgtarget

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
	"go.yaml.in/yaml/v3"

	"github.com/hookgate/hookgate/bench"
	"github.com/hookgate/hookgate/internal/app"
)

// Options configure the hookgate target. Every field says what its zero
// value means.
type Options struct {
	// Name labels the target in results. Empty means "hookgate".
	Name string
	// Base is a hookgate configuration (YAML) that the scenarios' hooks are
	// set into. Its upstreams are aimed at the mock (same names and
	// providers, no credential), its listeners moved to free loopback
	// ports, its tenants left out (they need virtual keys), and its hooks
	// replaced by the scenario's. Empty means a configuration with one
	// openai upstream and defaults for everything else.
	Base []byte
	// BaseName names Base in error messages; BaseDir resolves the relative
	// paths in it (script files). Empty means "bench.yaml" and the working
	// directory.
	BaseName, BaseDir string
	// Lookup resolves ${NAME} references. Nil means the environment.
	Lookup func(name string) (string, bool)
	// Placeholders fills references that Lookup cannot resolve with a dummy
	// value instead of failing, and reports each name once to Notes (a
	// user's configuration may name secrets the bench does not need).
	Placeholders bool
	// Log receives hookgate's own log. Nil means errors only, on stderr.
	Log *slog.Logger
	// Notes receives remarks about the configuration (tenants left out,
	// placeholders used). Nil means stderr.
	Notes io.Writer
	// OnStop, when set, is called once the target has stopped after a
	// scenario (its observer pool drained) with the hook decisions counted
	// during it: hook id to decision to count (warm-up included).
	OnStop func(sc *bench.Scenario, decisions map[string]map[string]float64)
}

// Target is hookgate as a bench target.
func Target(o Options) bench.Target {
	name := o.Name
	if name == "" {
		name = "hookgate"
	}
	var once sync.Map // notes printed once per text
	o.Notes = onceWriter(o.Notes, &once)
	return bench.Target{
		Name:  name,
		Start: func(upstreamURL string, sc *bench.Scenario) (string, func(), error) { return Start(o, upstreamURL, sc) },
	}
}

// Start starts hookgate in front of upstreamURL with sc's hooks and
// returns its base URL and a function that stops it. A scenario whose
// hooks name ${POLICY_URL} gets a policy server on loopback, stopped with
// hookgate.
func Start(o Options, upstreamURL string, sc *bench.Scenario) (string, func(), error) {
	vars := map[string]string{}
	stopPolicy := func() {}
	if strings.Contains(sc.Hooks, "${"+bench.PolicyURLVar+"}") {
		url, stop, err := StartPolicyServer()
		if err != nil {
			return "", nil, err
		}
		vars[bench.PolicyURLVar], stopPolicy = url, stop
	}
	a, stop, err := startApp(o, upstreamURL, sc, vars)
	if err != nil {
		stopPolicy()
		return "", nil, err
	}
	return a.URL(), func() {
		stop()
		stopPolicy()
	}, nil
}

// benchAdmissionLimit is the bound the benchmark gives hookgate's
// admission limits on streams and hook executions
// (limits.max_concurrent_streams, limits.max_concurrent_hooks; defaults
// 1024 and 512). The open-loop runner keeps up to a quarter of the file
// limit in flight (2000 where that limit is not known, at most 2^18), and
// every one of those requests may be a stream running hooks: at the
// defaults a busy phase would measure hookgate's 503s, not its latency.
// 2^20 covers the runner's own cap, so no benchmarked request is refused
// for admission; what a Limit costs does not grow with its bound.
const benchAdmissionLimit = 1 << 20

// Document builds the configuration hookgate runs for one scenario: base
// with its listeners on free loopback ports, every upstream aimed at
// upstreamURL without a credential (one openai upstream when base has
// none), no tenants, the admission limits on streams and hook executions
// raised to benchAdmissionLimit (a higher bound in base is kept), and
// hooks as the hooks snippet (a YAML list; empty means none).
func Document(base []byte, upstreamURL, hooksYAML string, notes io.Writer) ([]byte, error) {
	var doc yaml.Node
	if len(strings.TrimSpace(string(base))) > 0 {
		if err := yaml.Unmarshal(base, &doc); err != nil {
			return nil, fmt.Errorf("base configuration: %w", err)
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("base configuration: not a mapping")
	}
	setKey(root, "listen", scalar("127.0.0.1:0"))
	admin := getKey(root, "admin")
	if admin == nil || admin.Kind != yaml.MappingNode {
		admin = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		setKey(root, "admin", admin)
	}
	setKey(admin, "listen", scalar("127.0.0.1:0"))

	ups := getKey(root, "upstreams")
	if ups == nil || ups.Kind != yaml.SequenceNode || len(ups.Content) == 0 {
		ups = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
		setKey(ups.Content[0], "name", scalar("mock"))
		setKey(ups.Content[0], "provider", scalar("openai"))
		setKey(root, "upstreams", ups)
	}
	for _, u := range ups.Content {
		if u.Kind != yaml.MappingNode {
			continue
		}
		setKey(u, "base_url", scalar(upstreamURL))
		deleteKey(u, "api_key_env")
	}
	if t := getKey(root, "tenants"); t != nil && len(t.Content) > 0 {
		fmt.Fprintf(notes, "note: the configuration's %d tenants are left out of the benchmark (their requests need virtual keys); their hooks files are not measured\n", len(t.Content))
	}
	deleteKey(root, "tenants")
	raiseAdmissionLimits(root, notes)

	hooksNode := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if strings.TrimSpace(hooksYAML) != "" {
		var hn yaml.Node
		if err := yaml.Unmarshal([]byte(hooksYAML), &hn); err != nil {
			return nil, fmt.Errorf("hooks snippet: %w", err)
		}
		if len(hn.Content) == 0 || hn.Content[0].Kind != yaml.SequenceNode {
			return nil, errors.New("hooks snippet: not a YAML list")
		}
		hooksNode = hn.Content[0]
	}
	setKey(root, "hooks", hooksNode)
	return yaml.Marshal(&doc)
}

// WithStore points the store of a configuration document at a SQLite file
// of the benchmark's own, so that a benchmark never writes audit records
// or sessions into the operator's store (nor leaves a hookgate.db in the
// working directory). The audit settings stay as they were: hookgate pays
// for its audit trail while measured, as it does in service.
func WithStore(docYAML []byte, path string, notes io.Writer) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(docYAML, &doc); err != nil {
		return nil, err
	}
	root := doc.Content[0]
	if st := getKey(root, "store"); st != nil && st.Kind == yaml.MappingNode {
		if d := getKey(st, "driver"); d != nil && d.Value == "postgres" {
			fmt.Fprintln(notes, "note: the configuration's PostgreSQL store is replaced by a temporary SQLite file for the benchmark")
		}
	}
	st := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	setKey(st, "driver", scalar("sqlite"))
	setKey(st, "path", scalar(path))
	setKey(root, "store", st)
	return yaml.Marshal(&doc)
}

// raiseAdmissionLimits sets limits.max_concurrent_streams and
// limits.max_concurrent_hooks in the configuration root to
// benchAdmissionLimit, so that the benchmark measures latency, not
// admission (see benchAdmissionLimit). A bound base sets lower is named in
// a note; limits.max_pending_approvals is left alone (an approval gate
// answered by no one is not a latency to measure).
func raiseAdmissionLimits(root *yaml.Node, notes io.Writer) {
	limits := getKey(root, "limits")
	if limits == nil || limits.Kind != yaml.MappingNode {
		limits = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		setKey(root, "limits", limits)
	}
	for _, key := range []string{"max_concurrent_streams", "max_concurrent_hooks"} {
		if v := getKey(limits, key); v != nil && v.Kind == yaml.ScalarNode {
			n, err := strconv.Atoi(v.Value)
			if err == nil && n >= benchAdmissionLimit {
				continue
			}
			if err == nil && n > 0 {
				fmt.Fprintf(notes, "note: limits.%s (%d) is raised to %d for the benchmark, which measures latency, not admission\n", key, n, benchAdmissionLimit)
			}
		}
		setKey(limits, key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(benchAdmissionLimit)})
	}
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

func getKey(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func setKey(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, scalar(key), v)
}

func deleteKey(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
}

func notes(o Options) io.Writer {
	if o.Notes == nil {
		return os.Stderr
	}
	return o.Notes
}

// lookup resolves ${NAME}: the scenario's own variables, then o.Lookup (or
// the environment), then a placeholder when o.Placeholders allows.
func lookup(o Options, vars map[string]string) func(string) (string, bool) {
	env := o.Lookup
	if env == nil {
		env = os.LookupEnv
	}
	return func(name string) (string, bool) {
		if v, ok := vars[name]; ok {
			return v, true
		}
		if v, ok := env(name); ok {
			return v, true
		}
		if o.Placeholders {
			fmt.Fprintf(notes(o), "note: ${%s} is not set; the benchmark uses a placeholder value\n", name)
			return "hookgate-bench-placeholder-" + strings.ToLower(name), true
		}
		return "", false
	}
}

// decisions reads hookgate_hook_decisions_total from the app's registry.
func decisions(a *app.App) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	mfs, err := a.Registry.Gather()
	if err != nil {
		return out
	}
	for _, mf := range mfs {
		if mf.GetName() != "hookgate_hook_decisions_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			var hook, decision string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "hook":
					hook = l.GetValue()
				case "decision":
					decision = l.GetValue()
				}
			}
			if out[hook] == nil {
				out[hook] = map[string]float64{}
			}
			out[hook][decision] += m.GetCounter().GetValue()
		}
	}
	return out
}

// FormatDecisions renders decisions as "id: allow×N block×M; ...", ids in
// order.
func FormatDecisions(d map[string]map[string]float64) string {
	ids := make([]string, 0, len(d))
	for id := range d {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var parts []string
	for _, id := range ids {
		ds := make([]string, 0, len(d[id]))
		for dec := range d[id] {
			ds = append(ds, dec)
		}
		sort.Strings(ds)
		var b strings.Builder
		b.WriteString(id + ":")
		for _, dec := range ds {
			fmt.Fprintf(&b, " %s×%.0f", dec, d[id][dec])
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "; ")
}

// StartPolicyServer starts the loopback policy server that http hooks in
// the scenarios call: it answers every POST with {"decision":"allow"}, after
// bench.SlowPolicyDelay on a path ending in bench.SlowPolicyPath. It
// returns its URL and a function that stops it.
func StartPolicyServer() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("hgtarget: policy server: %w", err)
	}
	allow := []byte(`{"decision":"allow"}`)
	srv := &fasthttp.Server{
		Handler: func(ctx *fasthttp.RequestCtx) {
			if bytes.HasSuffix(ctx.Path(), []byte(bench.SlowPolicyPath)) {
				time.Sleep(bench.SlowPolicyDelay)
			}
			ctx.SetContentType("application/json")
			ctx.SetBody(allow)
		},
		NoDefaultServerHeader: true,
		Logger:                quiet{},
	}
	go func() { _ = srv.Serve(ln) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.ShutdownWithContext(ctx)
	}
	return "http://" + ln.Addr().String() + "/policy", stop, nil
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// onceWriter writes each distinct text once: a note repeated for every
// scenario is said once.
func onceWriter(w io.Writer, seen *sync.Map) io.Writer {
	if w == nil {
		w = os.Stderr
	}
	return writerFunc(func(p []byte) (int, error) {
		if _, dup := seen.LoadOrStore(string(p), true); dup {
			return len(p), nil
		}
		return w.Write(p)
	})
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
