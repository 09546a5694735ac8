package replay

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/store"
)

// The upstream and the policy server are addresses nothing listens on: a
// hook that reached them would fail, and fail closed (block).
const replayConfig = `
admin:
  listen: 127.0.0.1:0
  token_env: REPLAY_TEST_ADMIN
upstreams:
  - name: openai
    provider: openai
    base_url: http://127.0.0.1:9
hooks:
  - id: ask-ops
    event: pre_tool_use
    matcher: "^transfer$"
    handler: {type: builtin, name: approval, with: {timeout_s: 60}}
  - id: two-searches
    event: pre_tool_use
    matcher: "^search$"
    handler: {type: builtin, name: rate_limit, with: {limit: 2, window: 1h}}
  - id: policy-server
    event: pre_tool_use
    matcher: "^pay$"
    handler: {type: http, url: "http://127.0.0.1:9/check"}
  - id: read-only
    event: pre_tool_use
    matcher: "^write_db$"
    handler: {type: builtin, name: readonly_guard, with: {tools: [write_db]}}
  - id: judge
    event: user_prompt_submit
    handler: {type: prompt, instruction: "Block prompts asking for passwords.", model: gpt-4o-mini}
`

func replayCfg(t *testing.T) *config.Config {
	t.Helper()
	t.Setenv("REPLAY_TEST_ADMIN", "admin-token-for-the-replay-test")
	cfg, err := config.Parse([]byte(replayConfig), "replay.yaml", os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	cfg.BaseDir = t.TempDir()
	return cfg
}

// captured builds a captured event as hookgate would have kept it.
func captured(n int, ev hooks.Event, old app.CapturedOutcome) Captured {
	ev.EventID = fmt.Sprint("ev-", n)
	ev.SessionID = "s1"
	return Captured{
		Row: store.Capture{ID: fmt.Sprint("cap-", n), SessionID: "s1", Event: string(ev.Event), Tool: ev.ToolName,
			Decision: string(old.Decision), CreatedAt: time.Unix(int64(n), 0)},
		Record: app.CapturedRecord{Event: &ev, Outcome: old},
	}
}

func tool(name string, input map[string]any) hooks.Event {
	return hooks.Event{Event: hooks.PreToolUse, ToolName: name, ToolInput: input}
}

func TestReplayStandsInForPeopleBudgetsAndRemoteHooks(t *testing.T) {
	allow := app.CapturedOutcome{Decision: hooks.Allow}
	events := []Captured{
		// Asked before and asked now: unchanged; asked only now: would_ask.
		captured(1, tool("transfer", map[string]any{"to": "a"}), app.CapturedOutcome{Decision: hooks.Allow, Asked: []string{"ask-ops"}}),
		captured(2, tool("transfer", map[string]any{"to": "b"}), allow),
		// Rejected by a person then: still would_ask.
		captured(3, tool("transfer", map[string]any{"to": "c"}), app.CapturedOutcome{Decision: hooks.Block, HookID: "ask-ops", Asked: []string{"ask-ops"}}),
		// The budget starts empty: the third search is the one refused.
		captured(4, tool("search", map[string]any{"q": "1"}), allow),
		captured(5, tool("search", map[string]any{"q": "2"}), allow),
		captured(6, tool("search", map[string]any{"q": "3"}), allow),
		// Remote hooks answer what they answered then, without a request.
		captured(7, tool("pay", map[string]any{"amount": 1}), app.CapturedOutcome{Decision: hooks.Allow,
			Hooks: []app.CapturedHook{{ID: "policy-server", Decision: hooks.Allow}}}),
		captured(8, tool("pay", map[string]any{"amount": 1e6}), app.CapturedOutcome{Decision: hooks.Block, HookID: "policy-server", Reason: "too much",
			Hooks: []app.CapturedHook{{ID: "policy-server", Decision: hooks.Block, Applied: hooks.Block, Reason: "too much"}}}),
		captured(9, hooks.Event{Event: hooks.UserPromptSubmit, Prompt: "hello"}, app.CapturedOutcome{Decision: hooks.Allow,
			Hooks: []app.CapturedHook{{ID: "judge", Decision: hooks.Allow}}}),
	}
	// The read-only switch as it stood when each was captured: thrown for
	// the tenant, then cleared.
	on := captured(10, hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: "write_db", ToolInput: map[string]any{"sql": "x"}}, allow)
	on.Record.Switches = map[string]app.Switch{"": {}, "acme": {On: true, Set: true}}
	off := captured(11, hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: "write_db", ToolInput: map[string]any{"sql": "y"}}, allow)
	off.Record.Switches = map[string]app.Switch{"": {}, "acme": {On: false, Set: true}}
	events = append(events, on, off)
	rep, err := Run(replayCfg(t), events, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{ // capture: old, new
		"cap-1":  {WouldAsk, WouldAsk},
		"cap-2":  {"allow", WouldAsk},
		"cap-3":  {WouldAsk, WouldAsk},
		"cap-4":  {"allow", "allow"},
		"cap-5":  {"allow", "allow"},
		"cap-6":  {"allow", "block"},
		"cap-7":  {"allow", "allow"},
		"cap-8":  {"block", "block"},
		"cap-9":  {"allow", "allow"},
		"cap-10": {"allow", "block"},
		"cap-11": {"allow", "allow"},
	}
	if len(rep.Calls) != len(want) {
		t.Fatalf("%d calls replayed, want %d", len(rep.Calls), len(want))
	}
	for _, c := range rep.Calls {
		w := want[c.CaptureID]
		if c.Old.Decision != w[0] || c.New.Decision != w[1] {
			t.Errorf("%s (%s %v): %s -> %s by %s (%s), want %s -> %s", c.CaptureID, c.Tool, c.Input, c.Old.Decision, c.New.Decision, c.New.HookID, c.New.Reason, w[0], w[1])
		}
	}
	changed := rep.Changed()
	if len(changed) != 3 || changed[0].CaptureID != "cap-2" || changed[1].CaptureID != "cap-6" || changed[2].CaptureID != "cap-10" {
		t.Fatalf("changed: %+v", changed)
	}
	if changed[1].New.HookID != "two-searches" {
		t.Errorf("the third search is blocked by %q", changed[1].New.HookID)
	}
	nr := rep.NotReplayed()
	if nr["policy-server"] != 2 || nr["judge"] != 1 || len(nr) != 2 {
		t.Errorf("not replayed: %v", nr)
	}
	rows := rep.Table()
	got := map[string]bool{}
	for _, r := range rows {
		got[r.Sentence()] = true
	}
	if len(rows) != 3 {
		t.Fatalf("table: %v", got)
	}
	for _, s := range []string{
		"1 call allowed before would now be put to a person by ask-ops (transfer)",
		"1 call allowed before would now be blocked by two-searches (search)",
		"1 call allowed before would now be blocked by read-only (write_db)",
	} {
		if !got[s] {
			t.Errorf("no %q in %v", s, got)
		}
	}
}
