package app

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/store"
)

// consoleAuditKey is the audit key (hex) of the timeline's captures.
const consoleAuditKey = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

func init() { consoleEnv["CONSOLE_AUDIT"] = consoleAuditKey }

func decisionsOf(t *testing.T, body string) []map[string]any {
	t.Helper()
	var v struct{ Decisions []map[string]any }
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("not a list of decisions: %s", body)
	}
	return v.Decisions
}

func idsOf(list []map[string]any) []string {
	out := []string{}
	for _, x := range list {
		out = append(out, x["id"].(string))
	}
	return out
}

// The decisions page filters by tool, tenant, agent and dry-run, and
// shows each run's tool and reason (a reason holding a credential
// withheld).
func TestConsoleDecisionsFilterByToolTenantAgent(t *testing.T) {
	a := startConsole(t, t.TempDir(), "")
	base := a.AdminURL()
	now := time.Now()
	mk := func(id, tool, tenant, agent, decision, reason string, ago time.Duration) store.Execution {
		return store.Execution{ID: id, HookID: "h", SessionID: tenant + ":s1", Event: "pre_tool_use", InputHash: "i",
			Decision: decision, DedupKey: "d-" + id, CreatedAt: now.Add(-ago), Tool: tool, Tenant: tenant, Agent: agent, Reason: reason}
	}
	if _, err := a.persistence.Store.InsertExecutions(context.Background(), []store.Execution{
		mk("x1", "Bash", "acme", "coder", "block", "rm -rf", 4*time.Second),
		mk("x2", "Write", "acme", "writer", "would_block", "path outside", 3*time.Second),
		mk("x3", "Bash", "globex", "coder", "allow", "token AKIAIOSFODNN7EXAMPLQ seen", 2*time.Second),
		mk("x4", "Bash", "acme", "writer", "would_allow", "", time.Second),
	}); err != nil {
		t.Fatal(err)
	}
	root, _ := login(t, a, "tok-root-console")
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"tool=Bash", []string{"x4", "x3", "x1"}},
		{"tenant=acme", []string{"x4", "x2", "x1"}},
		{"agent=writer", []string{"x4", "x2"}},
		{"tool=Bash&agent=coder&tenant=globex", []string{"x3"}},
		{"dry_run=1", []string{"x4", "x2"}},
		{"decision=would_block", []string{"x2"}},
		{"tool=Nope", []string{}},
	} {
		if got := idsOf(decisionsOf(t, root.get(t, base+"/console/api/decisions?"+tc.query).body)); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: %v, want %v", tc.query, got, tc.want)
		}
	}
	for _, d := range decisionsOf(t, root.get(t, base+"/console/api/decisions").body) {
		switch d["id"] {
		case "x1":
			if d["tool"] != "Bash" || d["reason"] != "rm -rf" || d["tenant"] != "acme" || d["agent"] != "coder" {
				t.Errorf("x1 shown as %v", d)
			}
		case "x3":
			if strings.Contains(d["reason"].(string), "AKIA") {
				t.Errorf("a reason with an AWS key shown: %v", d["reason"])
			}
		}
	}
	acme, _ := login(t, a, "tok-acme-console")
	if got := idsOf(decisionsOf(t, acme.get(t, base+"/console/api/decisions?tool=Bash").body)); strings.Join(got, ",") != "x4,x1" {
		t.Errorf("acme's Bash decisions %v, want x4,x1", got)
	}
}

// An answer given in the console or the admin API may carry a comment:
// it is stored with the answer and listed with the answered questions,
// with who answered. A body that is not JSON is refused.
func TestConsoleAnswerCarriesAComment(t *testing.T) {
	a := startConsole(t, t.TempDir(), "")
	base := a.AdminURL()
	q1 := ask(t, a, "acme", "pay", `{"amount":10}`)
	q2 := ask(t, a, "acme", "deploy", `{}`)
	root, _ := login(t, a, "tok-root-console")
	h := map[string]string{"Cookie": root.cookie, "X-CSRF-Token": root.csrf, "Content-Type": "application/json"}
	if r := do(t, "POST", base+"/console/api/approvals/"+q1.ID+"/approve", h, `not json`); r.status != http.StatusBadRequest {
		t.Errorf("a body that is not JSON: %d %s", r.status, r.body)
	}
	if c, _ := a.persistence.Store.GetConfirmation(context.Background(), q1.ID); c.Status != store.Pending {
		t.Fatalf("a refused answer moved the question to %s", c.Status)
	}
	if r := do(t, "POST", base+"/console/api/approvals/"+q1.ID+"/approve", h, `{"comment":" small amount, fine "}`); r.status != 200 {
		t.Fatalf("approve with a comment: %d %s", r.status, r.body)
	}
	api := map[string]string{"Authorization": "Bearer tok-acme-console", "Content-Type": "application/json"}
	if r := do(t, "POST", base+"/admin/approvals/"+q2.ID+"/reject", api, `{"comment":"not on a Friday"}`); r.status != 200 {
		t.Fatalf("reject with a comment in the admin API: %d %s", r.status, r.body)
	}
	c1, _ := a.persistence.Store.GetConfirmation(context.Background(), q1.ID)
	c2, _ := a.persistence.Store.GetConfirmation(context.Background(), q2.ID)
	if c1.Comment != "small amount, fine" || c1.RespondedBy != "root" || c2.Comment != "not on a Friday" || c2.RespondedBy != "acme-approver" {
		t.Errorf("stored %q by %q and %q by %q", c1.Comment, c1.RespondedBy, c2.Comment, c2.RespondedBy)
	}
	got := map[string]map[string]any{}
	for _, q := range approvalsOf(t, root.get(t, base+"/console/api/approvals?status=recent").body) {
		got[q["id"].(string)] = q
	}
	if got[q1.ID]["comment"] != "small amount, fine" || got[q1.ID]["status"] != "approved" ||
		got[q2.ID]["comment"] != "not on a Friday" || got[q2.ID]["responded_by"] != "acme-approver" {
		t.Errorf("recent questions %v", got)
	}
}

// The session timeline lists the loop oldest first: from the audit
// records (ids, tools, decisions) without captures, and from the captured
// events (prompts, arguments, results) opened with the audit key when
// there are some; arguments holding a credential are withheld, and a
// session outside the viewer's tenants shows nothing.
func TestConsoleSessionTimeline(t *testing.T) {
	a := startConsole(t, t.TempDir(), "audit: {key_env: CONSOLE_AUDIT}\n")
	base := a.AdminURL()
	ctx := context.Background()
	now := time.Now()
	if _, err := a.persistence.Store.InsertExecutions(ctx, []store.Execution{
		{ID: "e2", HookID: "guard", SessionID: "acme:plain", Event: "pre_tool_use", InputHash: "i", Decision: "block", DedupKey: "d2", CreatedAt: now.Add(-time.Second), Tool: "Bash", Tenant: "acme"},
		{ID: "e1", HookID: "guard", SessionID: "acme:plain", Event: "user_prompt_submit", InputHash: "i", Decision: "allow", DedupKey: "d1", CreatedAt: now.Add(-2 * time.Second), Tenant: "acme"},
	}); err != nil {
		t.Fatal(err)
	}
	key, err := store.ParseAuditKey(consoleAuditKey)
	if err != nil {
		t.Fatal(err)
	}
	result := "total 0"
	records := []struct {
		id  string
		rec CapturedRecord
	}{
		{"0190a000-0000-7000-8000-000000000001", CapturedRecord{Event: &hooks.Event{Event: hooks.UserPromptSubmit, SessionID: "acme:cap", Prompt: "list the files"}, Outcome: CapturedOutcome{Decision: hooks.Allow}}},
		{"0190a000-0000-7000-8000-000000000002", CapturedRecord{Event: &hooks.Event{Event: hooks.PreToolUse, SessionID: "acme:cap", ToolName: "Bash", ToolCallID: "call_1",
			ToolInput: map[string]any{"command": "ls"}}, Outcome: CapturedOutcome{Decision: hooks.Allow}}},
		{"0190a000-0000-7000-8000-000000000003", CapturedRecord{Event: &hooks.Event{Event: hooks.PreToolUse, SessionID: "acme:cap", ToolName: "Bash", ToolCallID: "call_2",
			ToolInput: map[string]any{"command": "curl -H 'Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH'"}}, Outcome: CapturedOutcome{Decision: hooks.Block, HookID: "guard", Reason: "no network"}}},
		{"0190a000-0000-7000-8000-000000000004", CapturedRecord{Event: &hooks.Event{Event: hooks.PostToolUse, SessionID: "acme:cap", ToolName: "Bash", ToolCallID: "call_1", ToolResult: &result}, Outcome: CapturedOutcome{Decision: hooks.Allow}}},
	}
	var rows []store.Capture
	for i, r := range records {
		plain, _ := json.Marshal(r.rec)
		sealed, err := key.SealCapture(r.id, plain)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, store.Capture{ID: r.id, SessionID: "acme:cap", Event: string(r.rec.Event.Event), Tenant: "acme", Tool: r.rec.Event.ToolName,
			Decision: string(r.rec.Outcome.Decision), DecidedBy: r.rec.Outcome.HookID, Sealed: sealed,
			CreatedAt: now.Add(time.Duration(i-10) * time.Second), ExpiresAt: now.Add(time.Hour)})
	}
	if _, err := a.persistence.Store.InsertCaptures(ctx, rows); err != nil {
		t.Fatal(err)
	}
	type timeline struct {
		Source string
		Events []map[string]any
	}
	read := func(s session, id string) timeline {
		t.Helper()
		r := s.get(t, base+"/console/api/timeline?session="+id)
		var tl timeline
		if r.status != 200 || json.Unmarshal([]byte(r.body), &tl) != nil {
			t.Fatalf("timeline of %s: %d %s", id, r.status, r.body)
		}
		return tl
	}
	root, _ := login(t, a, "tok-root-console")
	plain := read(root, "acme:plain")
	if plain.Source != "hook_executions" || len(plain.Events) != 2 || plain.Events[0]["id"] != "e1" || plain.Events[1]["tool"] != "Bash" || plain.Events[1]["decision"] != "block" {
		t.Errorf("timeline from the audit records: %+v", plain)
	}
	capd := read(root, "acme:cap")
	if capd.Source != "captured_events" || len(capd.Events) != 4 {
		t.Fatalf("timeline from the captures: %+v", capd)
	}
	ev := capd.Events
	if ev[0]["prompt"] != "list the files" || ev[1]["arguments"] != `{"command":"ls"}` || ev[1]["call_id"] != "call_1" ||
		ev[2]["decision"] != "block" || ev[2]["reason"] != "no network" || ev[3]["result"] != "total 0" {
		t.Errorf("captured loop %v", ev)
	}
	if args, _ := ev[2]["arguments"].(string); strings.Contains(args, "sk-ant") || !strings.Contains(args, "withheld") {
		t.Errorf("arguments with an API key shown: %q", args)
	}
	if r := root.get(t, base+"/console/api/timeline"); r.status != http.StatusBadRequest {
		t.Errorf("a timeline without a session: %d", r.status)
	}
	acme, _ := login(t, a, "tok-acme-console")
	if got := read(acme, "acme:cap"); len(got.Events) != 4 {
		t.Errorf("acme's own session shows %d events", len(got.Events))
	}
	if _, err := a.persistence.Store.InsertExecutions(ctx, []store.Execution{
		{ID: "g1", HookID: "guard", SessionID: "globex:s", Event: "pre_tool_use", InputHash: "i", Decision: "block", DedupKey: "g1", CreatedAt: now, Tool: "Bash", Tenant: "globex"},
	}); err != nil {
		t.Fatal(err)
	}
	if got := read(acme, "globex:s"); len(got.Events) != 0 {
		t.Errorf("acme sees globex's session: %v", got.Events)
	}
}

// The costs page counts each hook's runs and decisions in the window,
// with p50 and p99 durations and a series per hook; runs older than the
// window are left out, and the live gauges show for an unscoped token.
func TestConsoleCosts(t *testing.T) {
	a := startConsole(t, t.TempDir(), "")
	base := a.AdminURL()
	now := time.Now()
	var xs []store.Execution
	for i := range 100 {
		d := "allow"
		if i%10 == 0 {
			d = "block"
		}
		xs = append(xs, store.Execution{ID: "c" + string(rune('A'+i/26)) + string(rune('a'+i%26)), HookID: "guard", SessionID: "acme:s", Event: "pre_tool_use",
			InputHash: "i", Decision: d, DedupKey: "c" + string(rune(i+100)), CreatedAt: now.Add(-time.Duration(i) * time.Second),
			Duration: time.Duration(i+1) * time.Millisecond, Tenant: "acme"})
	}
	xs = append(xs, store.Execution{ID: "old", HookID: "guard", SessionID: "acme:s", Event: "pre_tool_use", InputHash: "i", Decision: "block",
		DedupKey: "old", CreatedAt: now.Add(-3 * time.Hour), Duration: time.Second, Tenant: "acme"},
		store.Execution{ID: "other", HookID: "audit", SessionID: "globex:s", Event: "pre_tool_use", InputHash: "i", Decision: "allow",
			DedupKey: "other", CreatedAt: now, Duration: 2 * time.Millisecond, Tenant: "globex"})
	if _, err := a.persistence.Store.InsertExecutions(context.Background(), xs); err != nil {
		t.Fatal(err)
	}
	type costs struct {
		Hooks []struct {
			Hook       string
			Executions int
			Decisions  map[string]int
			P50        float64 `json:"p50_ms"`
			P99        float64 `json:"p99_ms"`
			Series     []int
		}
		Now map[string]float64
	}
	read := func(s session, q string) costs {
		t.Helper()
		var c costs
		r := s.get(t, base+"/console/api/costs?"+q)
		if r.status != 200 || json.Unmarshal([]byte(r.body), &c) != nil {
			t.Fatalf("costs: %d %s", r.status, r.body)
		}
		return c
	}
	root, _ := login(t, a, "tok-root-console")
	c := read(root, "window=1h")
	if len(c.Hooks) != 2 || c.Hooks[0].Hook != "guard" {
		t.Fatalf("hooks %+v", c.Hooks)
	}
	g := c.Hooks[0]
	sum := 0
	for _, n := range g.Series {
		sum += n
	}
	if g.Executions != 100 || g.Decisions["block"] != 10 || g.Decisions["allow"] != 90 || g.P50 != 50 || g.P99 != 99 || sum != 100 || len(g.Series) != 24 {
		t.Errorf("guard's costs %+v", g)
	}
	if _, ok := c.Now["active_streams"]; !ok {
		t.Errorf("no live gauges for root: %v", c.Now)
	}
	if wide := read(root, "window=24h"); wide.Hooks[0].Executions != 101 {
		t.Errorf("a day's window counts %d runs of guard, want 101", wide.Hooks[0].Executions)
	}
	acme, _ := login(t, a, "tok-acme-console")
	if ac := read(acme, "window=1h"); len(ac.Hooks) != 1 || ac.Hooks[0].Hook != "guard" || ac.Now != nil {
		t.Errorf("acme's costs %+v", ac)
	}
}
