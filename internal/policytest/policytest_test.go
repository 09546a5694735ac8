package policytest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
)

// policy has one hook of each kind a test must handle: a class-matched
// built-in, a script rewrite, a command hook, an http hook and a prompt
// hook (answered only by stubs), an approval gate, a read-only guard and a
// rate limit.
const policy = `admin:
  listen: 127.0.0.1:0
  token_env: PT_ADMIN
upstreams:
  - name: openai
    provider: openai
    base_url: http://127.0.0.1:9
    api_key_env: PT_KEY
hooks:
  - id: no-rm
    event: pre_tool_use
    classes: [shell]
    handler: {type: builtin, name: deny_patterns, with: {defaults: [shell]}}
  - id: dry-deploys
    event: pre_tool_use
    matcher: "^deploy$"
    allow_mutation: [toolInput.dry_run]
    handler:
      type: script
      source: |
        function handle(e) { return {decision: "rewrite", updatedInput: {dry_run: true}}; }
  - id: no-curl
    event: pre_tool_use
    matcher: "^fetch$"
    handler:
      type: command
      command: [sh, -c, 'grep -q curl && echo "{\"decision\":\"block\",\"reason\":\"no curl\"}" || echo "{\"decision\":\"allow\"}"']
  - id: policy-server
    event: pre_tool_use
    matcher: "^pay$"
    handler: {type: http, url: "https://policy.invalid/check", headers: {Authorization: "Bearer secret"}}
  - id: judge
    event: user_prompt_submit
    handler: {type: prompt, instruction: "Block prompts asking for passwords.", model: gpt-4o-mini}
  - id: ask-ops
    event: pre_tool_use
    matcher: "^transfer$"
    handler: {type: builtin, name: approval, with: {timeout_s: 60}}
  - id: read-only
    event: pre_tool_use
    matcher: "^write_db$"
    handler: {type: builtin, name: readonly_guard, with: {tools: [write_db]}}
  - id: one-search
    event: pre_tool_use
    matcher: "^search$"
    handler: {type: builtin, name: rate_limit, with: {limit: 1, window: 1h}}
  - id: short-results
    event: post_tool_use
    matcher: "^cat$"
    allow_mutation: [toolResult]
    handler:
      type: script
      source: "function handle(e) { return {decision: 'rewrite', updatedResult: e.toolResult.slice(0, 5)}; }"
  - id: stop-webhook
    event: stop
    handler: {type: http, url: "https://hooks.invalid/stop"}
  - id: never-reached
    event: subagent_start
    handler:
      type: script
      source: "function handle(e) { return {decision: 'allow'}; }"
`

func loadPolicy(t *testing.T) *config.Config {
	t.Helper()
	env := map[string]string{"PT_ADMIN": "admin-token", "PT_KEY": "sk-never-sent"}
	cfg, err := config.Parse([]byte(policy), "policy.yaml", func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	cfg.BaseDir = t.TempDir()
	return cfg
}

func parse(t *testing.T, src string) *File {
	t.Helper()
	f, err := Parse("t_test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func runOne(t *testing.T, files ...*File) *Report {
	t.Helper()
	rep, err := Run(loadPolicy(t), files)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// byName finds the results of a case (one per agent for a class case).
func byName(rep *Report, name string) []Result {
	var out []Result
	for _, r := range rep.Results {
		if r.Name == name {
			out = append(out, r)
		}
	}
	return out
}

func wantPass(t *testing.T, rep *Report, name string) {
	t.Helper()
	rs := byName(rep, name)
	if len(rs) == 0 {
		t.Fatalf("no result for %q", name)
	}
	for _, r := range rs {
		if !r.Passed() {
			t.Errorf("%s [%s]: %v", name, r.Label, r.Failures)
		}
	}
}

func wantFail(t *testing.T, rep *Report, name, failure string) {
	t.Helper()
	rs := byName(rep, name)
	if len(rs) != 1 {
		t.Fatalf("%d results for %q", len(rs), name)
	}
	if rs[0].Passed() || !strings.Contains(strings.Join(rs[0].Failures, "\n"), failure) {
		t.Errorf("%s: want a failure containing %q, got %v", name, failure, rs[0].Failures)
	}
}

func TestParseRefusesWithFileAndLine(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"unknown case key", "cases:\n  - name: a\n    tool: exec\n    inptu: {}\n    expect: allow\n", `t_test.yaml:4: unknown key "inptu"`},
		{"unknown top key", "casse: []\n", `t_test.yaml:1: unknown key "casse"`},
		{"unknown expect key", "cases:\n  - tool: exec\n    expect:\n      decision: block\n      reasn: x\n", `t_test.yaml:5: expect: unknown key "reasn"`},
		{"unknown stub key", "stub:\n  h: {decision: allow, because: x}\ncases:\n  - {tool: exec, expect: allow}\n", `t_test.yaml:2: stub: unknown key "because"`},
		{"bad regex", "cases:\n  - tool: exec\n    expect:\n      decision: block\n      reason: /([a-/\n", "t_test.yaml:5: bad regex /([a-/"},
		{"bad regex in context", "cases:\n  - event: session_start\n    expect: {decision: allow, context: \"/(/\"}\n", "t_test.yaml:3: bad regex"},
		{"unknown decision", "cases:\n  - tool: exec\n    expect: maybe\n", `t_test.yaml:3: expect: decision "maybe"`},
		{"no expect", "cases:\n  - tool: exec\n", "t_test.yaml:2: case 1: expect: is required"},
		{"unknown class", "cases:\n  - {class: gui, command: x, expect: allow}\n", `t_test.yaml:2: case 1: class: unknown class "gui"`},
		{"bad approval", "cases:\n  - {tool: transfer, approval: maybe, expect: allow}\n", `approval: "maybe"`},
		{"full form with short keys", "cases:\n  - event: {event: pre_tool_use, toolName: exec}\n    tool: exec\n    expect: allow\n", "give the tool, input, tenant and the rest inside it"},
		{"no cases", "stub: {}\n", "no cases"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t_test.yaml", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error containing %q, got %v", tc.want, err)
			}
		})
	}
}

func TestFullFormRefusesUnknownMembers(t *testing.T) {
	f := parse(t, "cases:\n  - name: typo\n    event: {event: pre_tool_use, toolName: deploy, toolInpt: {env: x}}\n    expect: allow\n")
	rep := runOne(t, f)
	wantFail(t, rep, "typo", `unknown field "toolInpt"`)
}

func TestShortAndFullFormAreTheSameEvent(t *testing.T) {
	f := parse(t, `cases:
  - name: short
    tool: deploy
    input: {env: production, replicas: 3}
    tenant: acme
    agent: coder-1
    expect: {decision: rewrite, input: {env: production, replicas: 3, dry_run: true}}
  - name: full
    event:
      event: pre_tool_use
      sessionId: policytest
      tenant: acme
      agent: coder-1
      toolName: deploy
      toolInput: {env: production, replicas: 3}
    expect: {decision: rewrite, input: {env: production, replicas: 3, dry_run: true}}
`)
	n := 0
	next := func() string { n++; return "x" }
	short, err := f.Cases[0].runs(next)
	if err != nil {
		t.Fatal(err)
	}
	full, err := f.Cases[1].runs(next)
	if err != nil {
		t.Fatal(err)
	}
	a, b := *short[0].Event, *full[0].Event
	if canonical(a.ToolInput) != canonical(b.ToolInput) || a.ToolName != b.ToolName || a.Tenant != b.Tenant || a.Agent != b.Agent || a.Event != b.Event || a.SessionID != b.SessionID {
		t.Fatalf("short %+v\nfull  %+v", a, b)
	}
	rep := runOne(t, f)
	wantPass(t, rep, "short")
	wantPass(t, rep, "full")
}

func TestClassCaseRunsOncePerAgentProfile(t *testing.T) {
	f := parse(t, `cases:
  - name: rm everywhere
    class: shell
    command: "rm -rf /"
    expect: {decision: block, hook: no-rm}
`)
	rep := runOne(t, f)
	var labels []string
	for _, r := range byName(rep, "rm everywhere") {
		labels = append(labels, r.Label)
	}
	for _, want := range []string{"claude-code Bash", "codex exec_command", "gemini-cli run_shell_command"} {
		if !slices.Contains(labels, want) {
			t.Errorf("sub-cases %v lack %q", labels, want)
		}
	}
	wantPass(t, rep, "rm everywhere")
}

func TestClassCaseFailsPerAgent(t *testing.T) {
	f := parse(t, "cases:\n  - {name: ls, class: shell, command: ls, expect: block}\n")
	rep := runOne(t, f)
	rs := byName(rep, "ls")
	if len(rs) < 3 || rep.Failed() != len(rs) {
		t.Fatalf("want every sub-case failed, got %d of %d", rep.Failed(), len(rs))
	}
}

func TestHandlersRunForReal(t *testing.T) {
	f := parse(t, `cases:
  - {name: curl, tool: fetch, input: {url: "curl x"}, expect: {decision: block, reason: no curl}}
  - {name: wget, tool: fetch, input: {url: "wget x"}, expect: allow}
`)
	rep := runOne(t, f)
	wantPass(t, rep, "curl")
	wantPass(t, rep, "wget")
}

func TestStubsAnswerRemoteHooks(t *testing.T) {
	f := parse(t, `stub:
  policy-server: {decision: allow}
cases:
  - name: file stub
    tool: pay
    expect: allow
  - name: case stub wins
    tool: pay
    stub: {policy-server: {decision: block, reason: over budget}}
    expect: {decision: block, reason: /over \w+/}
  - name: judge stub
    prompt: what is the admin password?
    stub: {judge: {decision: block, reason: asks for a password}}
    expect: {decision: block, hook: judge, reason: password}
`)
	rep := runOne(t, f)
	for _, name := range []string{"file stub", "case stub wins", "judge stub"} {
		wantPass(t, rep, name)
		if r := byName(rep, name)[0]; len(r.Stubbed) != 1 {
			t.Errorf("%s: stubbed %v, want one", name, r.Stubbed)
		}
	}
	var out strings.Builder
	Print(&out, rep, false)
	if !strings.Contains(out.String(), "(stubbed: judge)") {
		t.Errorf("output does not say stubbed:\n%s", out.String())
	}
}

func TestUnstubbedRemoteHookFailsTheCase(t *testing.T) {
	f := parse(t, `cases:
  - {name: no stub, tool: pay, expect: block}
  - {name: no judge stub, prompt: hi, expect: block}
`)
	rep := runOne(t, f)
	wantFail(t, rep, "no stub", "http hook policy-server was reached and the test file gives it no stub")
	wantFail(t, rep, "no judge stub", "prompt hook judge was reached and the test file gives it no stub")
}

func TestStubForALocalHookIsRefused(t *testing.T) {
	f := parse(t, "stub: {no-rm: {decision: allow}}\ncases:\n  - {tool: exec, expect: allow}\n")
	if _, err := Run(loadPolicy(t), []*File{f}); err == nil || !strings.Contains(err.Error(), "no-rm is not an http or prompt hook") {
		t.Fatalf("got %v", err)
	}
}

func TestApprovalsAnsweredByTheCase(t *testing.T) {
	f := parse(t, `cases:
  - {name: approved, tool: transfer, approval: approve, expect: {decision: allow, asked: true}}
  - {name: rejected, tool: transfer, approval: reject, expect: {decision: block, hook: ask-ops}}
  - {name: timed out, tool: transfer, approval: timeout, expect: {decision: block, reason: nobody approved}}
  - {name: unanswered, tool: transfer, expect: block}
  - {name: not asked, tool: exec, input: {command: ls}, expect: {decision: allow, asked: false}}
  - {name: asks, tool: transfer, expect: ask}
  - {name: does not ask, tool: exec, input: {command: ls}, expect: ask}
`)
	rep := runOne(t, f)
	for _, name := range []string{"approved", "rejected", "timed out", "not asked", "asks"} {
		wantPass(t, rep, name)
	}
	wantFail(t, rep, "does not ask", "decision: want ask (an approval hook asks a person), got allow")
	wantFail(t, rep, "unanswered", "approval hook ask-ops asked, and the case gives no `approval:")
}

func TestReadOnlyFromTheCase(t *testing.T) {
	f := parse(t, `cases:
  - {name: read-only, tool: write_db, read_only: true, expect: {decision: block, hook: read-only}}
  - {name: writable, tool: write_db, read_only: false, expect: allow}
  - {name: no switch, tool: write_db, expect: allow}
`)
	rep := runOne(t, f)
	for _, name := range []string{"read-only", "writable", "no switch"} {
		wantPass(t, rep, name)
	}
}

func TestRateLimitsStartEmptyPerFile(t *testing.T) {
	src := `cases:
  - {name: first, tool: search, expect: allow}
  - {name: second, tool: search, expect: {decision: block, hook: one-search}}
`
	rep := runOne(t, parse(t, src), parse(t, src))
	if rep.Failed() != 0 || len(rep.Results) != 4 {
		t.Fatalf("%d of %d failed: %+v", rep.Failed(), len(rep.Results), rep.Results)
	}
}

func TestCoverageListsUnreachedHooks(t *testing.T) {
	f := parse(t, "cases:\n  - {tool: deploy, expect: rewrite}\n  - {class: shell, command: ls, expect: allow}\n")
	rep := runOne(t, f)
	var un []string
	for _, h := range rep.Unreached() {
		un = append(un, h.ID)
	}
	if slices.Contains(un, "dry-deploys") || slices.Contains(un, "no-rm") || !slices.Contains(un, "never-reached") || !slices.Contains(un, "judge") {
		t.Fatalf("unreached %v", un)
	}
	var out strings.Builder
	Print(&out, rep, true)
	if !strings.Contains(out.String(), "not reached: never-reached (subagent_start)") {
		t.Fatalf("coverage output:\n%s", out.String())
	}
}

func TestWrongExpectationsSayWhatDiffered(t *testing.T) {
	f := parse(t, `cases:
  - {name: decision, tool: deploy, expect: allow}
  - {name: input, tool: deploy, input: {env: x}, expect: {decision: rewrite, input: {env: x}}}
  - {name: context, event: session_start, expect: {decision: allow, context: nope}}
`)
	rep := runOne(t, f)
	wantFail(t, rep, "decision", "decision: want allow, got rewrite")
	wantFail(t, rep, "input", `input: want {"env":"x"}, got {"dry_run":true,"env":"x"}`)
	wantFail(t, rep, "context", `context: want "nope", got ""`)
}

func TestLoadReadsAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x_test.yaml")
	if err := os.WriteFile(path, []byte("cases:\n  - {tool: exec, expect: allow}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil || len(f.Cases) != 1 || f.Cases[0].Line != 2 {
		t.Fatalf("%+v %v", f, err)
	}
}

func TestPostToolUseResultRewrite(t *testing.T) {
	f := parse(t, `cases:
  - {name: cut, event: post_tool_use, tool: cat, result: "0123456789", expect: {decision: rewrite, result: "01234"}}
`)
	wantPass(t, runOne(t, f), "cut")
}

// An observing http hook runs after the case's verdict; a stub it lacks
// fails the case all the same.
func TestObservingRemoteHookNeedsAStubToo(t *testing.T) {
	f := parse(t, `cases:
  - {name: unstubbed, event: stop, response: done, expect: allow}
  - {name: stubbed, event: stop, response: done, stub: {stop-webhook: {decision: allow}}, expect: allow}
`)
	rep := runOne(t, f)
	wantFail(t, rep, "unstubbed", "http hook stop-webhook was reached")
	wantPass(t, rep, "stubbed")
}

// The compiled copy sends no key and no configured header to the stub
// server, and counts rate limits in memory.
func TestOfflineConfigCarriesNoSecrets(t *testing.T) {
	cfg := loadPolicy(t)
	cfg.Hooks = append(cfg.Hooks, cfg.Hooks[len(cfg.Hooks)-1])
	last := &cfg.Hooks[len(cfg.Hooks)-1]
	last.ID = "shared-limit"
	last.Handler = hooksHandler("rate_limit", map[string]any{"limit": 1, "window": "1m", "redis": map[string]any{}})
	off, ids, remote := offline(cfg, "http://127.0.0.1:1")
	for _, u := range off.Upstreams {
		if u.APIKey != "" {
			t.Errorf("upstream %s keeps its key", u.Name)
		}
	}
	if cfg.Upstreams[0].APIKey == "" {
		t.Error("the loaded configuration lost its key (offline must copy)")
	}
	for _, h := range off.Hooks {
		if h.Handler.Type == "http" && (h.Handler.Headers != nil || !strings.HasPrefix(h.Handler.URL, "http://127.0.0.1:1/http/")) {
			t.Errorf("%s: %+v", h.ID, h.Handler)
		}
		if h.ID == "shared-limit" {
			if _, ok := h.Handler.With["redis"]; ok {
				t.Error("rate_limit keeps redis")
			}
		}
	}
	if _, ok := last.Handler.With["redis"]; !ok {
		t.Error("the loaded configuration lost its redis (offline must copy)")
	}
	if len(ids) != 3 || remote["judge"] != "prompt" || remote["policy-server"] != "http" {
		t.Errorf("ids %v remote %v", ids, remote)
	}
}

func hooksHandler(name string, with map[string]any) hooks.HandlerSpec {
	return hooks.HandlerSpec{Type: "builtin", Name: name, With: with}
}

// A tenant's hooks file is compiled with the operator's hooks, scoped to
// the tenant; the tenant's read_only flag is the switch when the case
// gives none.
func TestTenantHooksAndReadOnly(t *testing.T) {
	dir := t.TempDir()
	tenantHooks := "- id: acme-no-drop\n  event: pre_tool_use\n  matcher: \"^drop$\"\n  handler: {type: builtin, name: deny_patterns, with: {patterns: [\".*\"]}}\n"
	if err := os.WriteFile(filepath.Join(dir, "acme.yaml"), []byte(tenantHooks), 0o600); err != nil {
		t.Fatal(err)
	}
	src := policy + "tenants:\n  - id: acme\n    key_hashes: [\"" + strings.Repeat("a", 64) + "\"]\n    hooks_file: acme.yaml\n    read_only: true\n  - id: beta\n    key_hashes: [\"" + strings.Repeat("b", 64) + "\"]\n"
	env := map[string]string{"PT_ADMIN": "admin-token", "PT_KEY": "sk-never-sent"}
	cfg, err := config.Parse([]byte(src), "policy.yaml", func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	cfg.BaseDir = dir
	f := parse(t, `cases:
  - {name: acme drops, tool: drop, input: {table: users}, tenant: acme, expect: {decision: block, hook: acme-no-drop}}
  - {name: beta drops, tool: drop, input: {table: users}, tenant: beta, expect: allow}
  - {name: acme is read-only, tool: write_db, tenant: acme, expect: {decision: block, hook: read-only}}
  - {name: acme switched back, tool: write_db, tenant: acme, read_only: false, expect: allow}
  - {name: beta writes, tool: write_db, tenant: beta, expect: allow}
`)
	rep, err := Run(cfg, []*File{f})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"acme drops", "beta drops", "acme is read-only", "acme switched back", "beta writes"} {
		wantPass(t, rep, name)
	}

	// serve would set a broken tenant aside; a test must see every hook.
	if err := os.WriteFile(filepath.Join(dir, "acme.yaml"), []byte("- id: acme-no-drop\n  event: pre_tool\n  handler: {type: builtin, name: deny_patterns}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(cfg, []*File{f}); err == nil || !strings.Contains(err.Error(), "pre_tool") {
		t.Fatalf("a broken tenant hooks file: %v", err)
	}
}

// A run of unstubbed cases does not open the hook's breaker: each later
// case still reaches the stub server, fails for its missing stub, or gets
// its stub.
func TestNoBreakerBetweenCases(t *testing.T) {
	var src strings.Builder
	src.WriteString("cases:\n")
	for i := range 8 {
		fmt.Fprintf(&src, "  - {name: bare %d, tool: pay, expect: block}\n", i)
	}
	src.WriteString("  - {name: stubbed, tool: pay, stub: {policy-server: {decision: allow}}, expect: allow}\n")
	rep := runOne(t, parse(t, src.String()))
	for i := range 8 {
		wantFail(t, rep, fmt.Sprintf("bare %d", i), "gives it no stub")
	}
	wantPass(t, rep, "stubbed")
}
