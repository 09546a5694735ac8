package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/hookgate/hookgate/bench"
	"github.com/hookgate/hookgate/bench/hgtarget"
	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

const benchUsage = `usage: hookgate bench [--config FILE [--tool NAME] [--tool-args JSON]] [harness flags]

Measures the latency hookgate adds between an agent and its LLM API, on a
mock upstream on loopback: direct, through a bare fasthttp hop (the floor),
and through hookgate, interleaved in one run.

Without --config it runs the harness's scenarios (plain, stream, recorded
fixtures; --scenarios hooks for the built-in hook scenarios).

With --config FILE it measures that configuration's hooks: a baseline
without hooks, one scenario per hook with only that hook enabled, and all
hooks together (plain and streamed), then prints what each hook adds. The
file's upstreams are replaced by the mock, its tenants left out, and every
request is the first of its session, so session_start, user_prompt_submit
and post_tool_use hooks fire on every request (their worst case).

  --config FILE     a hookgate configuration
  --tool NAME       the tool the mock calls for pre_tool_use hooks (default:
                    a common tool name the hook's matcher accepts)
  --tool-args JSON  that call's arguments

Harness flags (hookgate bench --help lists them all): --requests, --duration,
--concurrency, --rates 500,2000, --scenarios, --chunk-interval, --out,
--cpuprofile, --target NAME=URL. Results (JSON and an SVG chart) go to
--out: bench/results when run from the repository root, otherwise
hookgate-bench in the OS temporary folder; the paths are printed.
`

func runBench(args []string, stdout, stderr io.Writer) int {
	own, rest, err := splitBenchArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, "hookgate bench:", err)
		fmt.Fprint(stderr, benchUsage)
		return 2
	}
	if own.help {
		fmt.Fprint(stdout, benchUsage)
		rest = []string{"-h"}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cmd := bench.Command{Name: "hookgate bench", Stdout: stdout, Stderr: stderr}
	if own.config == "" {
		cmd.Targets = []bench.Target{hgtarget.Target(hgtarget.Options{})}
	} else {
		plan, err := planConfigBench(own, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "hookgate bench:", err)
			return 1
		}
		cmd.Name = "hookgate bench --config " + own.config
		cmd.Targets = []bench.Target{plan.target}
		cmd.Scenarios = plan.scenarios
		cmd.DefaultScenarios = "-"
		cmd.Report = func(rep *bench.Report) { plan.summary(rep, stdout) }
	}
	if err := cmd.Main(ctx, rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "hookgate bench:", err)
		return 1
	}
	return 0
}

// benchArgs are the flags hookgate bench reads itself; the rest go to the
// harness.
type benchArgs struct {
	config, tool, toolArgs string
	help                   bool
	// opts are the harness's scenario options, read from its flags
	// (which go on to the harness too) for the scenarios built here.
	opts bench.Options
}

func splitBenchArgs(args []string) (benchArgs, []string, error) {
	own := benchArgs{opts: bench.DefaultOptions()}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			continue
		}
		var dst *string
		switch name {
		case "chunk-interval", "upstream-latency":
			v := value
			if !hasValue && i+1 < len(args) {
				v = args[i+1]
			}
			if d, err := time.ParseDuration(v); err == nil {
				if name == "chunk-interval" {
					own.opts.ChunkInterval = d
				} else {
					own.opts.UpstreamLatency = d
				}
			}
			rest = append(rest, a)
			continue
		case "config":
			dst = &own.config
		case "tool":
			dst = &own.tool
		case "tool-args":
			dst = &own.toolArgs
		case "h", "help":
			own.help = true
			continue
		default:
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return own, nil, fmt.Errorf("flag -%s needs a value", name)
			}
			i++
			value = args[i]
		}
		*dst = value
	}
	return own, rest, nil
}

// configPlan is the benchmark of one configuration file.
type configPlan struct {
	target    bench.Target
	scenarios []bench.Scenario
	hooks     []benchHook
	decisions map[string]map[string]map[string]float64 // scenario -> hook -> decision -> count
}

// benchHook is one hook of the file and the scenario that measures it.
type benchHook struct {
	spec     hooks.Spec
	scenario string
	note     string
}

// sampleTools are tried, in order, against a pre_tool_use hook's matcher
// when --tool is not given.
var sampleTools = []string{"exec", "bash", "shell", "run_command", "terminal", "read_file", "write_file", "edit_file",
	"delete_file", "deploy", "http_request", "fetch", "sql_query", "query", "search", "send_email"}

const defaultToolArgs = `{"command":"ls -la /srv/app","path":"/srv/app/README.md","query":"select 1","url":"http://127.0.0.1/","env":"staging"}`

func planConfigBench(own benchArgs, notes io.Writer) (*configPlan, error) {
	data, err := os.ReadFile(own.config)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", own.config, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a hookgate configuration (want a YAML mapping)", own.config)
	}
	root := doc.Content[0]
	var entries []*yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "hooks" && root.Content[i+1].Kind == yaml.SequenceNode {
			entries = root.Content[i+1].Content
		}
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s: no hooks to measure", own.config)
	}
	// Every request is the first of its session: request-side hooks fire
	// on each one.
	setInterception(root, "session_ttl", "1ns")
	base, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(own.config)

	p := &configPlan{decisions: map[string]map[string]map[string]float64{}}
	p.target = hgtarget.Target(hgtarget.Options{
		Base: base, BaseName: own.config, BaseDir: filepath.Dir(abs),
		Placeholders: true, Notes: notes,
		OnStop: func(sc *bench.Scenario, d map[string]map[string]float64) { p.decisions[sc.Name] = d },
	})

	opts := own.opts
	var all []string
	var events []hooks.EventName
	for i, e := range entries {
		var spec hooks.Spec
		if err := e.Decode(&spec); err != nil {
			return nil, fmt.Errorf("%s: hooks[%d]: %w", own.config, i, err)
		}
		snippet, err := yaml.Marshal(&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{e}})
		if err != nil {
			return nil, err
		}
		all = append(all, string(snippet))
		events = append(events, spec.Event)
		tool, args, note := toolFor(spec, own)
		name := fmt.Sprintf("hook-%s", spec.ID)
		p.scenarios = append(p.scenarios, hookScenario(name, string(snippet), []hooks.EventName{spec.Event}, tool, args, false, nil, opts,
			fmt.Sprintf("only hook %s (%s, %s handler)", spec.ID, spec.Event, spec.Handler.Type)))
		if spec.Handler.Type == "prompt" {
			note = joinNote(note, "a prompt hook asks the mock, which answers with no verdict: it errors, and its figure is a lower bound of a real model's")
		}
		p.hooks = append(p.hooks, benchHook{spec: spec, scenario: name, note: note})
	}
	allHooks := strings.Join(all, "")
	// The configuration as the benchmark runs it is checked once up front,
	// so that an error stops the run before it starts.
	checked, err := hgtarget.Document(base, "http://127.0.0.1:9", allHooks, io.Discard)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Parse(checked, own.config+" (as benchmarked: upstreams on the mock, no tenants)", placeholderLookup)
	if err != nil {
		return nil, err
	}
	for i := range p.scenarios {
		if hdr := parentHeader(p.scenarios[i].Header, cfg); hdr != nil {
			p.scenarios[i].Header = hdr
		}
	}
	tool, args, _ := toolFor(hooks.Spec{}, own)
	if own.tool == "" {
		tool = "exec"
	}
	p.scenarios = append([]bench.Scenario{hookScenario("config-none", "", events, tool, args, false, cfg, opts, "no hooks (the baseline for each hook's own cost)")}, p.scenarios...)
	p.scenarios = append(p.scenarios,
		hookScenario("config-all", allHooks, events, tool, args, false, cfg, opts, fmt.Sprintf("all %d hooks together", len(entries))),
		hookScenario("config-all", allHooks, events, tool, args, true, cfg, opts, fmt.Sprintf("all %d hooks together", len(entries))))
	return p, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// placeholderLookup resolves ${NAME} from the environment, or with a
// placeholder: the benchmark needs no real secret.
func placeholderLookup(name string) (string, bool) {
	if v, ok := os.LookupEnv(name); ok {
		return v, true
	}
	return "hookgate-bench-placeholder-" + strings.ToLower(name), true
}

func setInterception(root *yaml.Node, key, value string) {
	var ic *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "interception" {
			ic = root.Content[i+1]
		}
	}
	if ic == nil || ic.Kind != yaml.MappingNode {
		ic = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "interception"}, ic)
	}
	for i := 0; i+1 < len(ic.Content); i += 2 {
		if ic.Content[i].Value == key {
			ic.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
			return
		}
	}
	ic.Content = append(ic.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
}

// toolFor picks the tool call the mock makes for a pre_tool_use hook: the
// one given, else the first sample name its matcher accepts.
func toolFor(spec hooks.Spec, own benchArgs) (tool, args, note string) {
	args = own.toolArgs
	if args == "" {
		args = defaultToolArgs
	}
	if own.tool != "" {
		return own.tool, args, ""
	}
	if spec.Matcher == "" {
		return "exec", args, ""
	}
	re, err := regexp.Compile(spec.Matcher)
	if err != nil {
		return "exec", args, ""
	}
	for _, t := range sampleTools {
		if re.MatchString(t) {
			return t, args, ""
		}
	}
	return "exec", args, fmt.Sprintf("its matcher %q accepts none of the sample tool names, so only the matcher ran: pass --tool NAME", spec.Matcher)
}

// hookScenario builds a scenario on which hooks of the given events fire:
// a request that opens a session (session_start, user_prompt_submit,
// subagent_start) or that carries a tool round trip (post_tool_use, and
// every other event), and an answer that calls tool (pre_tool_use) or is
// final (pre_response, stop).
func hookScenario(name, hooksYAML string, events []hooks.EventName, tool, args string, stream bool, cfg *config.Config, o bench.Options, about string) bench.Scenario {
	has := map[hooks.EventName]bool{}
	for _, e := range events {
		has[e] = true
	}
	firstTurn := !has[hooks.PostToolUse] && (has[hooks.SessionStart] || has[hooks.UserPromptSubmit] || has[hooks.SubagentStart])
	// A final answer (text only) for the hooks that fire on one, unless a
	// pre_tool_use hook needs a tool call.
	final := has[hooks.PreResponse] || has[hooks.Stop] || has[hooks.SubagentStop]
	spec := mockupstream.StreamSpec{TextDeltas: 6, Usage: true}
	if has[hooks.PreToolUse] || !final {
		spec.Calls = []mockupstream.ToolCall{{ID: "call_bench_0", Name: tool, Arguments: args}}
		spec.ArgFragments = 3
	}
	var r mockupstream.Response
	kind := "plain"
	if stream {
		kind = "stream"
		r = mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: o.ChunkInterval})
	} else {
		r = mockupstream.JSON(http.StatusOK, spec.Completion())
	}
	r.Latency = o.UpstreamLatency
	var header map[string]string
	if has[hooks.SubagentStart] || has[hooks.SubagentStop] {
		header = parentHeader(map[string]string{}, cfg)
	}
	return bench.Scenario{
		Name:        name + "-" + kind,
		Description: about + "; " + kind + " response",
		Header:      header,
		Body:        agentRequest(tool, args, firstTurn, stream),
		Response:    r,
		Hooks:       hooksYAML,
		// Hooks may block, rewrite or append: only the status is checked.
		Verify: func(status int, body []byte) error {
			if status != http.StatusOK {
				return fmt.Errorf("status %d: %.160s", status, body)
			}
			return nil
		},
	}
}

// parentHeader marks a subagent's request (in the configuration's header,
// when known); nil when h does not ask for it.
func parentHeader(h map[string]string, cfg *config.Config) map[string]string {
	if h == nil {
		return nil
	}
	name := config.DefaultParentHeader
	if cfg != nil && cfg.Interception.ParentSessionHeader != "" {
		name = cfg.Interception.ParentSessionHeader
	}
	return map[string]string{name: "hookgate-bench-parent"}
}

// agentRequest is an agent's request: a system prompt and the task, and
// unless firstTurn an earlier call of tool with its result.
func agentRequest(tool, args string, firstTurn, stream bool) []byte {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	streamPart := ""
	if stream {
		streamPart = `,"stream":true,"stream_options":{"include_usage":true}`
	}
	msgs := `{"role":"system","content":"You are an operations agent. Use the tools to inspect and change the system."},` +
		`{"role":"user","content":"Check the service and fix what is broken."}`
	if !firstTurn {
		msgs += `,{"role":"assistant","content":null,"tool_calls":[{"id":"call_hist_0","type":"function","function":{"name":` + q(tool) + `,"arguments":` + q(args) + `}}]},` +
			`{"role":"tool","tool_call_id":"call_hist_0","content":"total 12\ndrwxr-xr-x 2 app app 4096 README.md\n"}`
	}
	return []byte(`{"model":"gpt-4o"` + streamPart + `,"messages":[` + msgs + `],"tools":[{"type":"function","function":{"name":` + q(tool) +
		`,"parameters":{"type":"object","additionalProperties":true}}}]}`)
}

// summary prints, per hook, what it adds to a plain call through hookgate
// at concurrency 1: over direct, and over hookgate without hooks (the
// hook's own cost), with the decisions it made during the run.
func (p *configPlan) summary(rep *bench.Report, w io.Writer) {
	added := map[string]*bench.Added{}
	for _, ph := range rep.Phases {
		if ph.Load.Rate > 0 || ph.Load.Concurrency > 1 {
			continue
		}
		for i := range ph.Targets {
			t := &ph.Targets[i]
			if t.Name != "hookgate" {
				continue
			}
			if ph.Streamed {
				added[ph.Scenario] = t.AddedTTFinish
			} else {
				added[ph.Scenario] = t.AddedLatency
			}
		}
	}
	base := added["config-none-plain"]
	if base == nil {
		return
	}
	fmt.Fprintf(w, "\nWhat each hook costs: a plain call at concurrency 1, hookgate's added latency over direct, and the hook's own share (minus hookgate without hooks: p50 %s)\n", us(base.P50))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "hook\tevent\thandler\tadded p50\tp90\tp99\town p50\town p99\tdecisions\tnote")
	row := func(id, ev, handler, scenario, note string) {
		if id[0] != '(' && len(p.decisions[scenario]) == 0 {
			note = joinNote(note, "its handler never ran: its matcher or if_expr did not accept the sample request (see --tool, --tool-args)")
		}
		a := added[scenario]
		if a == nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\t-\t-\t-\t%s\t%s\n", id, ev, handler, hgtarget.FormatDecisions(p.decisions[scenario]), note)
			return
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", id, ev, handler, us(a.P50), us(a.P90), us(a.P99),
			us(a.P50-base.P50), us(a.P99-base.P99), hgtarget.FormatDecisions(p.decisions[scenario]), note)
	}
	for _, h := range p.hooks {
		row(h.spec.ID, string(h.spec.Event), h.spec.Handler.Type, h.scenario+"-plain", h.note)
	}
	row("(all hooks)", "", "", "config-all-plain", "")
	if a := added["config-all-stream"]; a != nil {
		fmt.Fprintf(tw, "(all hooks, streamed)\t\t\t%s\t%s\t%s\t\t\t%s\tadded time to the finish (held tool calls are released with it)\n",
			us(a.P50), us(a.P90), us(a.P99), hgtarget.FormatDecisions(p.decisions["config-all-stream"]))
	}
	_ = tw.Flush()
}

func us(v float64) string {
	if v >= 10000 || v <= -10000 {
		return fmt.Sprintf("%.1fms", v/1000)
	}
	return fmt.Sprintf("%.0fµs", v)
}
