package hgtarget

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/bench"
	"github.com/hookgate/hookgate/config"
)

// Every hook scenario runs through hookgate without an error, and each
// does what it says: hooks-none relays the mock's bytes, the disclaimer is
// appended, the session context is injected (the hooks fired, counted by
// hookgate's own metrics).
func TestHookScenariosThroughHookgate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts hookgate per scenario")
	}
	scs, err := bench.Scenarios([]string{"hooks"}, bench.Options{ChunkInterval: 0})
	if err != nil {
		t.Fatal(err)
	}
	fired := map[string]map[string]map[string]float64{}
	tg := Target(Options{Notes: io.Discard, OnStop: func(sc *bench.Scenario, d map[string]map[string]float64) { fired[sc.Name] = d }})
	rep, err := bench.Run(context.Background(), bench.Config{
		Scenarios: scs,
		Targets:   []bench.Target{bench.Direct(), tg},
		Requests:  5,
		Warmup:    2,
		Duration:  10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Phases {
		for _, tr := range p.Targets {
			if tr.Errors > 0 || tr.Requests == 0 {
				t.Errorf("%s %s: %d of %d failed: %v", p.Scenario, tr.Name, tr.Errors, tr.Requests, tr.ErrorSamples)
			}
		}
	}
	for _, want := range []struct{ scenario, hook string }{
		{"script1-stream", "allow-0"}, {"script10-plain", "allow-9"}, {"builtin-plain", "no-destructive-exec"},
		{"command-plain", "sh-allow"}, {"http-stream", "http-allow"}, {"context-plain", "house-rules"},
		{"disclaimer-stream", "disclaimer"}, {"http-sleep5-plain", "http-slow"},
	} {
		if fired[want.scenario][want.hook]["allow"] == 0 {
			t.Errorf("%s: hook %s never allowed anything: %v", want.scenario, want.hook, FormatDecisions(fired[want.scenario]))
		}
	}
	// The dry run's verdicts are recorded off the request path; the first
	// rounds' are in long before the target stops.
	for _, sc := range []string{"dryrun-sleep5-plain", "dryrun-sleep5-stream"} {
		if d := fired[sc]["http-slow-dry"]; d["would_allow"] == 0 || d["allow"] != 0 {
			t.Errorf("%s: dry-run hook recorded %v, want would_allow only", sc, FormatDecisions(fired[sc]))
		}
	}
	if n := len(fired["cel-plain"]); n != 0 {
		t.Errorf("cel-plain: the handler ran (%v); only the condition should", FormatDecisions(fired["cel-plain"]))
	}
}

// Document aims the upstreams at the mock, frees the listeners, drops
// tenants and credentials, raises the admission limits on streams and
// hooks, and sets the hooks; the result is a valid configuration that
// keeps the rest of the user's settings.
func TestDocument(t *testing.T) {
	base := `listen: 0.0.0.0:8787
admin: {listen: 0.0.0.0:8788}
upstreams:
  - name: openai
    provider: openai
    base_url: https://api.example.com
    api_key_env: SOME_KEY
interception:
  context_position: append
limits: {max_concurrent_streams: 10, max_pending_approvals: 3}
tenants:
  - id: team-a
    key_hashes: ["` + strings.Repeat("a", 64) + `"]
hooks:
  - id: old
    event: pre_tool_use
    handler: {type: script, source: 'function handle(e) { return {decision: "block"}; }'}
`
	scs, err := bench.Scenarios([]string{"script1-plain"}, bench.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var notes bytes.Buffer
	doc, err := Document([]byte(base), "http://127.0.0.1:9", scs[0].Hooks, &notes)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(doc, "x.yaml", func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	if cfg.Listen != "127.0.0.1:0" || cfg.Admin.Listen != "127.0.0.1:0" {
		t.Errorf("listeners %q %q", cfg.Listen, cfg.Admin.Listen)
	}
	if len(cfg.Upstreams) != 1 || cfg.Upstreams[0].BaseURL != "http://127.0.0.1:9" || cfg.Upstreams[0].APIKeyEnv != "" || cfg.Upstreams[0].Name != "openai" {
		t.Errorf("upstreams %+v", cfg.Upstreams)
	}
	if len(cfg.Tenants) != 0 || !strings.Contains(notes.String(), "tenants") {
		t.Errorf("tenants %+v, notes %q", cfg.Tenants, notes.String())
	}
	if len(cfg.Hooks) != 1 || cfg.Hooks[0].ID != "allow-0" {
		t.Errorf("hooks %+v", cfg.Hooks)
	}
	if cfg.Interception.ContextPosition != "append" {
		t.Errorf("interception settings lost: %+v", cfg.Interception)
	}
	if l := cfg.Limits; l.MaxConcurrentStreams != benchAdmissionLimit || l.MaxConcurrentHooks != benchAdmissionLimit || l.MaxPendingApprovals != 3 {
		t.Errorf("limits %+v, want streams and hooks at %d, approvals kept", l, benchAdmissionLimit)
	}
	if !strings.Contains(notes.String(), "limits.max_concurrent_streams (10) is raised") || strings.Contains(notes.String(), "max_concurrent_hooks") {
		t.Errorf("notes %q: want the lowered streams bound named, and nothing about the unset hooks bound", notes.String())
	}
	// Without a base, the limits are raised all the same.
	doc, err = Document(nil, "http://127.0.0.1:9", "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err = config.Parse(doc, "x.yaml", func(string) (string, bool) { return "", false }); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	if cfg.Limits.MaxConcurrentStreams != benchAdmissionLimit || cfg.Limits.MaxConcurrentHooks != benchAdmissionLimit {
		t.Errorf("no base: limits %+v", cfg.Limits)
	}
}
