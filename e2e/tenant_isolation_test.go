package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/store"
)

// inbox is a real webhook channel server on loopback that keeps the texts
// it was sent.
type inbox struct {
	srv   *httptest.Server
	mu    sync.Mutex
	texts []string
}

func newInbox(t *testing.T) *inbox {
	in := &inbox{}
	in.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		text, _ := m["text"].(string)
		in.mu.Lock()
		in.texts = append(in.texts, text)
		in.mu.Unlock()
	}))
	t.Cleanup(in.srv.Close)
	return in
}

func (in *inbox) got() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]string(nil), in.texts...)
}

// isolationStack starts hookgate with three webhook channels (the
// operator's ops, acme's acme-ops, beta's beta-ops) and two tenants whose
// hooks files live in dir/tenants. files are written under dir before it
// starts (acme.yaml and beta.yaml among them; a content "symlink:<target>"
// makes a symbolic link); operatorHooks is appended (an admin section in
// it replaces the default one).
type isolationStack struct {
	*stack
	log                *hgLog
	dir                string
	ops, acme, betaOps *inbox
}

func startIsolationStack(t *testing.T, files map[string]string, operatorHooks string) *isolationStack {
	t.Helper()
	dir := t.TempDir()
	if _, ok := files["tenants/beta.yaml"]; !ok {
		files["tenants/beta.yaml"] = "[]\n"
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if target, isLink := strings.CutPrefix(content, "symlink:"); isLink {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("ISO_UPSTREAM_KEY", "sk-upstream")
	t.Setenv("ISO_ACME_KEYS", "vk-acme")
	t.Setenv("ISO_BETA_KEYS", "vk-beta")
	s := &isolationStack{dir: dir, ops: newInbox(t), acme: newInbox(t), betaOps: newInbox(t)}
	mock := mockupstream.Start(t)
	admin := "admin: {listen: \"127.0.0.1:0\"}\n"
	if strings.HasPrefix(operatorHooks, "admin:") || strings.Contains(operatorHooks, "\nadmin:") {
		admin = ""
	}
	doc := `listen: 127.0.0.1:0
` + admin + `upstreams:
  - name: mock
    base_url: ` + mock.URL() + `
    api_key_env: ISO_UPSTREAM_KEY
channels:
  - {name: ops, type: webhook, url: "` + s.ops.srv.URL + `"}
  - {name: acme-ops, type: webhook, url: "` + s.acme.srv.URL + `"}
  - {name: beta-ops, type: webhook, url: "` + s.betaOps.srv.URL + `"}
tenants:
  - id: acme
    keys_env: ISO_ACME_KEYS
    channels: [acme-ops]
    hooks_file: ` + filepath.Join(dir, "tenants", "acme.yaml") + `
  - id: beta
    keys_env: ISO_BETA_KEYS
    channels: [beta-ops]
    hooks_file: ` + filepath.Join(dir, "tenants", "beta.yaml") + `
` + operatorHooks
	a, log := hgStartApp(t, doc)
	s.stack, s.log = &stack{mock: mock, app: a}, log
	return s
}

var isoHello = []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)

// isoWait polls cond for up to 5 s.
func isoWait(cond func() bool) bool {
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

func TestTenantMessagesGoOnlyToItsOwnChannel(t *testing.T) {
	s := startIsolationStack(t, map[string]string{"tenants/acme.yaml": `- id: acme-send
  event: pre_response
  mode: send
  handler:
    type: script
    source: |
      function handle(e) { return { decision: "allow", additionalContext: "acme pre_response" }; }
- id: acme-notify
  event: user_prompt_submit
  handler: {type: builtin, name: notify, with: {text: "acme notify {{.tenant}}"}}
`}, "")
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, mockupstream.StreamSpec{TextDeltas: 1}.Completion())))
	status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", isoHello, bearer("vk-acme"))
	if status != 200 {
		t.Fatalf("acme: %d %s", status, body)
	}
	if !isoWait(func() bool { return len(s.acme.got()) >= 2 }) {
		t.Fatalf("acme-ops got %q, want the pre_response text and the notify (ops got %q, beta-ops %q)", s.acme.got(), s.ops.got(), s.betaOps.got())
	}
	time.Sleep(200 * time.Millisecond) // a stray message would have arrived by now
	if got := s.ops.got(); len(got) != 0 {
		t.Fatalf("the operator's channel got a tenant's messages: %q", got)
	}
	if got := s.betaOps.got(); len(got) != 0 {
		t.Fatalf("another tenant's channel got acme's messages: %q", got)
	}
	got := strings.Join(s.acme.got(), "|")
	if !strings.Contains(got, "acme pre_response") || !strings.Contains(got, "acme notify acme") {
		t.Fatalf("acme-ops got %q", got)
	}
}

func TestTenantApprovalQuestionGoesToItsOwnChannel(t *testing.T) {
	t.Setenv("ISO_ADMIN_TOKEN", "admin-token-iso")
	s := startIsolationStack(t, map[string]string{"tenants/acme.yaml": `- id: acme-approve
  event: pre_tool_use
  handler: {type: builtin, name: approval, with: {timeout_s: 1}}
`}, `admin:
  listen: 127.0.0.1:0
  tokens:
    - {name: alice, token_env: ISO_ADMIN_TOKEN}
hooks:
  - id: op-approve
    event: pre_tool_use
    matcher: "^never$"
    handler: {type: builtin, name: approval, with: {channel: ops}}
`)
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, mockupstream.StreamSpec{ToolCalls: 1}.Completion())))
	status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"ls"}]}`), bearer("vk-acme"))
	if status != 200 || gjson.GetBytes(body, "choices.0.message.tool_calls").Exists() {
		t.Fatalf("an unanswered approval let the call through: %d %s", status, body)
	}
	if n := len(s.acme.got()); n != 1 {
		t.Fatalf("acme-ops got %d cards, want 1 (ops %d, beta-ops %d)", n, len(s.ops.got()), len(s.betaOps.got()))
	}
	if n := len(s.ops.got()) + len(s.betaOps.got()); n != 0 {
		t.Fatalf("a tenant's question reached %d cards outside its channel", n)
	}
}

func TestTenantFileNamingAChannelNotItsOwnRefusesOnlyThatTenant(t *testing.T) {
	for _, channel := range []string{"beta-ops", "ops"} {
		t.Run(channel, func(t *testing.T) {
			s := startIsolationStack(t, map[string]string{"tenants/acme.yaml": `- id: acme-notify
  event: user_prompt_submit
  handler: {type: builtin, name: notify, with: {channel: ` + channel + `, text: "into someone else's channel"}}
`}, "")
			s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, mockupstream.StreamSpec{TextDeltas: 1}.Completion())))
			status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", isoHello, bearer("vk-acme"))
			if status != 503 {
				t.Fatalf("acme, whose file names %s, was served: %d %s", channel, status, body)
			}
			checkOpenAIError(t, body, "tenant_policy_unavailable")
			if status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", isoHello, bearer("vk-beta")); status != 200 {
				t.Fatalf("beta is refused too: %d %s", status, body)
			}
			if !strings.Contains(s.log.String(), "not one of tenant acme's channels") {
				t.Fatalf("the log does not say why acme was refused:\n%s", s.log)
			}
			time.Sleep(100 * time.Millisecond)
			if n := len(s.ops.got()) + len(s.betaOps.got()) + len(s.acme.got()); n != 0 {
				t.Fatalf("%d messages were sent", n)
			}
		})
	}
}

func TestTenantFilePathsStayInItsFolder(t *testing.T) {
	const canary = "CANARYHOSTIDENT"
	outside := filepath.Join(t.TempDir(), "host-secret.js")
	if err := os.WriteFile(outside, []byte(canary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := func(file string) string {
		return "- id: acme-script\n  event: pre_tool_use\n  handler: {type: script, file: \"" + file + "\"}\n"
	}
	cases := []struct {
		name, file string
		link       bool
	}{
		{"dotdot", "../../../../../../../../.." + outside, false},
		{"absolute", outside, false},
		{"symlink", "scripts/link.js", true},
		{"context dotdot", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hooksFile := script(tc.file)
			if tc.name == "context dotdot" {
				hooksFile = "- id: acme-ctx\n  event: session_start\n  handler: {type: builtin, name: inject_context, with: {file: \"../../../../../../../../.." + outside + "\"}}\n"
			}
			files := map[string]string{"tenants/acme.yaml": hooksFile, "tenants/scripts/ok.js": "function handle(e) { return { decision: \"allow\" }; }\n"}
			if tc.link {
				files["tenants/scripts/link.js"] = "symlink:" + outside
			}
			s := startIsolationStack(t, files, "")
			s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, mockupstream.StreamSpec{TextDeltas: 1}.Completion())))
			status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", isoHello, bearer("vk-acme"))
			if status != 503 {
				t.Fatalf("acme, whose file names a path outside its folder, was served: %d %s", status, body)
			}
			checkOpenAIError(t, body, "tenant_policy_unavailable")
			if strings.Contains(string(body), canary) || strings.Contains(s.log.String(), canary) {
				t.Fatalf("the content of a host file was echoed:\nbody %s\nlog %s", body, s.log)
			}
			if !strings.Contains(s.log.String(), "tenant policy refused") {
				t.Fatalf("the refusal is not logged:\n%s", s.log)
			}
			if status, _, _ := rawPost(t, s.app.URL(), "/v1/chat/completions", isoHello, bearer("vk-beta")); status != 200 {
				t.Fatalf("beta is refused too: %d", status)
			}
		})
	}
	t.Run("inside the folder", func(t *testing.T) {
		s := startIsolationStack(t, map[string]string{
			"tenants/acme.yaml":        script("scripts/block.js"),
			"tenants/scripts/block.js": "function handle(e) { return { decision: \"block\", reason: \"acme's own script\" }; }\n",
		}, "")
		s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, mockupstream.StreamSpec{ToolCalls: 1}.Completion())))
		status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"ls"}]}`), bearer("vk-acme"))
		if status != 200 || !strings.Contains(string(body), "acme's own script") || gjson.GetBytes(body, "choices.0.message.tool_calls").Exists() {
			t.Fatalf("acme's script inside its folder did not run: %d %s", status, body)
		}
	})
}

func TestStrippedPostToolUseRewriteIsLoggedCountedAndAudited(t *testing.T) {
	db := filepath.Join(t.TempDir(), "audit.db")
	s := startIsolationStack(t, map[string]string{"tenants/acme.yaml": `- id: acme-result
  event: post_tool_use
  handler:
    type: script
    source: |
      function handle(e) { return { decision: "rewrite", updatedResult: "acme rewrote it" }; }
`}, `store:
  path: `+db+`
hooks:
  - id: op-result
    event: post_tool_use
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "rewrite", updatedResult: "the operator rewrote it" }; }
`)
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, mockupstream.StreamSpec{TextDeltas: 1}.Completion())))
	history := []byte(`{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","tool_calls":[{"id":"call_0","type":"function","function":{"name":"exec","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_0","content":"the real result"}]}`)
	if status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", history, bearer("vk-acme")); status != 200 {
		t.Fatalf("acme: %d %s", status, body)
	}
	for _, r := range s.mock.Requests() {
		if strings.Contains(string(r.Body), "rewrote it") {
			t.Fatalf("a rewrite that is not allowed reached the upstream: %s", r.Body)
		}
	}
	for _, id := range []string{"acme-result", "op-result"} {
		if !isoWait(func() bool { return strippedFor(t, s.app, id) >= 1 }) {
			t.Fatalf("hookgate_mutations_stripped_total{hook=%q} is missing or 0", id)
		}
		if !strings.Contains(s.log.String(), "hook rewrite stripped") || !strings.Contains(s.log.String(), "hook="+id) {
			t.Fatalf("the stripped rewrite of %s is not logged:\n%s", id, s.log)
		}
	}
	s.app.Close()
	st, err := store.Open(context.Background(), store.Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, id := range []string{"acme-result", "op-result"} {
		rows, err := st.ListExecutions(context.Background(), store.ExecutionFilter{HookID: id})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].Decision != "allow" {
			var got []string
			for _, r := range rows {
				got = append(got, r.Decision)
			}
			t.Fatalf("audit of %s: %v, want one row recording allow (the decision that took effect)", id, got)
		}
	}
}

// strippedFor is hookgate_mutations_stripped_total for one hook.
func strippedFor(t *testing.T, a *app.App, hook string) float64 {
	t.Helper()
	mfs, err := a.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "hookgate_mutations_stripped_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "hook" && l.GetValue() == hook {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
