package e2e

// Hardening, security: script sandbox escapes, command-hook
// injection, API keys leaking into logs, audit, metrics, error bodies or
// hook input, the admin API's tokens, and SSRF, all through the proxy.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// hgHooksPerTool builds a config whose pre_tool_use hooks each match one
// tool, and a response that calls every one of those tools once.
func hgHooksPerTool(upstream string, timeoutMS int, handlers map[string]string) (string, []mockupstream.ToolCall) {
	var b strings.Builder
	b.WriteString("listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: mock\n    base_url: " + upstream + "\nhooks:\n")
	var calls []mockupstream.ToolCall
	for tool, h := range handlers {
		fmt.Fprintf(&b, "  - id: h-%s\n    event: pre_tool_use\n    matcher: \"^%s$\"\n    timeout_ms: %d\n    handler:\n      %s\n", tool, tool, timeoutMS, h)
		calls = append(calls, mockupstream.ToolCall{ID: "call_" + tool, Name: tool, Arguments: `{"command":"ls"}`})
	}
	return b.String(), calls
}

func hgScript(src string) string {
	return "type: script\n      source: |\n        " + strings.ReplaceAll(src, "\n", "\n        ")
}

// Each script allows its call only if its escape worked; every call must be
// blocked, on every request (state must not carry over between calls), and
// the proxy must stay up.
func TestHardeningScriptSandboxThroughTheProxy(t *testing.T) {
	scripts := map[string]string{
		"t_ctor": `function handle(e) {
  var f = (function () { return this; })();
  var p = f && f.constructor && f.constructor.constructor("return typeof process")();
  var q = e.constructor.constructor("return typeof process")();
  if (p === "object" || q === "object") return { decision: "allow" };
  return { decision: "block", reason: "no process: " + p + "/" + q };
}`,
		"t_require": `function handle(e) {
  if (typeof require === "function") { require("child_process"); return { decision: "allow" }; }
  if (typeof globalThis.os === "object" || typeof Deno !== "undefined") return { decision: "allow" };
  return { decision: "block", reason: "no require" };
}`,
		"t_pollute": `function handle(e) {
  if (({}).polluted || [].polluted || Object.prototype.decision) return { decision: "allow" };
  try { Object.prototype.polluted = true; } catch (x) {}
  try { Array.prototype.polluted = true; } catch (x) {}
  try { Object.defineProperty(Object.prototype, "decision", { value: "allow", enumerable: true }); } catch (x) {}
  return { decision: "block", reason: "first call" };
}`,
		"t_globals": `function handle(e) {
  if (globalThis.__seen) return { decision: "allow" };
  try { globalThis.__seen = true; } catch (x) {}
  try { JSON.stringify = function () { return '{"decision":"allow"}'; }; } catch (x) {}
  try { JSON.parse = function () { return { decision: "allow" }; }; } catch (x) {}
  return { decision: "block", reason: "first call" };
}`,
		"t_loop":      `function handle(e) { for (;;) {} }`,
		"t_recurse":   `function handle(e) { function f(n) { return f(n + 1) + 1; } return f(0); }`,
		"t_repeat":    `function handle(e) { var s = "x".repeat(Math.pow(2, 30)); return { decision: "allow", reason: s.slice(0, 1) }; }`,
		"t_padstart":  `function handle(e) { var s = "".padStart(Math.pow(2, 30), "x"); return { decision: "allow", reason: s.slice(0, 1) }; }`,
		"t_join":      `function handle(e) { var s = Array(Math.pow(2, 27)).join("xxxxxxxx"); return { decision: "allow", reason: s.slice(0, 1) }; }`,
		"t_bigresult": `function handle(e) { var r = ""; for (var i = 0; i < 20; i++) r += "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx".repeat(1000); return { decision: "allow", reason: r }; }`,
		"t_throwobj":  `function handle(e) { throw { decision: "allow" }; }`,
		"t_getter": `function handle(e) {
  return { get decision() { return Math.random() < 2 ? "block" : "allow"; }, toJSON: function () { return { decision: "allow" }; } } && { decision: "block", reason: "ok" };
}`,
	}
	handlers := map[string]string{}
	for tool, src := range scripts {
		handlers[tool] = hgScript(src)
	}
	mock := mockupstream.Start(t)
	doc, calls := hgHooksPerTool(mock.URL(), 500, handlers)
	a, log := hgStartApp(t, doc)
	s := &stack{mock: mock, app: a}
	mock.Handle(mockupstream.Always(mockupstream.Stream(mockupstream.StreamSpec{Calls: calls}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})))
	// Enough rounds for the pooled runtimes to be reused.
	for round := range 6 {
		status, body := hgPostStream(t, s, nil)
		if status != 200 || !bytes.HasSuffix(body, []byte("data: [DONE]\n\n")) {
			t.Fatalf("round %d: status %d\n%s", round, status, hgShort(body))
		}
		for tool := range scripts {
			if bytes.Contains(body, []byte(`"id":"call_`+tool+`"`)) {
				t.Fatalf("round %d: %s escaped its sandbox: its call was allowed", round, tool)
			}
		}
		if round == 0 {
			var notes strings.Builder
			for _, ev := range hgEvents(body) {
				notes.WriteString(gjson.Get(ev, "choices.0.delta.content").String())
			}
			t.Logf("round 0 block notes:\n%s", notes.String())
		}
	}
	if strings.Contains(log.String(), "panic") {
		t.Fatalf("a panic was logged:\n%s", log)
	}
	hgAlive(t, s)
}

// Shell metacharacters in a tool call reach a command hook only inside the
// JSON on its stdin: never in argv or the environment, and nothing runs.
func TestHardeningCommandHookCanaryThroughTheProxy(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	hook := filepath.Join(dir, "hook.sh")
	writeExecutable(t, hook, `#!/bin/sh
cat > "$OUT/stdin.$$"
for a in "$@"; do printf '%s\n' "$a"; done > "$OUT/argv.$$"
env > "$OUT/env.$$"
echo '{"decision":"allow"}'
`)
	canary := func(n int) string { return filepath.Join(dir, fmt.Sprintf("pwned-%d", n)) }
	payloads := []string{
		"; touch " + canary(1),
		"$(touch " + canary(2) + ")",
		"`touch " + canary(3) + "`",
		"x\ntouch " + canary(4) + "\n",
		"--output=" + canary(5),
		"' ; touch " + canary(6) + " ; '",
		"\" && touch " + canary(7) + " && \"",
		"| tee " + canary(8),
		"> " + canary(9),
	}
	var calls []mockupstream.ToolCall
	for i, p := range payloads {
		args, _ := json.Marshal(map[string]string{"command": p, "--flag": "--" + p})
		calls = append(calls, mockupstream.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "exec", Arguments: string(args)})
	}
	s := startStack(t, "hooks:\n  - id: canary\n    event: pre_tool_use\n    handler:\n      type: command\n      command: ["+hook+"]\n      env: {OUT: "+out+"}\n")
	s.mock.Enqueue(mockupstream.Stream(mockupstream.StreamSpec{Calls: calls}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	status, body := hgPostStream(t, s, nil)
	if status != 200 || !bytes.Contains(body, []byte(`"id":"call_8"`)) {
		t.Fatalf("status %d; the allowed calls did not go through:\n%s", status, hgShort(body))
	}
	time.Sleep(100 * time.Millisecond)
	for i := range payloads {
		if _, err := os.Stat(canary(i + 1)); err == nil {
			t.Fatalf("payload %q ran: %s exists", payloads[i], canary(i+1))
		}
	}
	files, _ := os.ReadDir(out)
	var stdin, argv, env strings.Builder
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(out, f.Name()))
		switch {
		case strings.HasPrefix(f.Name(), "stdin."):
			stdin.Write(b)
		case strings.HasPrefix(f.Name(), "argv."):
			argv.Write(b)
		case strings.HasPrefix(f.Name(), "env."):
			env.Write(b)
		}
	}
	if n := strings.Count(stdin.String(), `"event":"pre_tool_use"`); n != len(payloads) {
		t.Fatalf("%d hook runs saw an event on stdin, want %d", n, len(payloads))
	}
	for _, p := range payloads {
		var enc bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetEscapeHTML(false)
		e.Encode(p)
		if q := strings.TrimSpace(enc.String()); !strings.Contains(stdin.String(), q[1:len(q)-1]) {
			t.Errorf("payload %q did not reach the hook verbatim inside the JSON", p)
		}
		if strings.Contains(argv.String(), strings.TrimSpace(p)) || strings.Contains(env.String(), strings.TrimSpace(p)) {
			t.Errorf("payload %q reached argv or the environment", p)
		}
	}
	if strings.TrimSpace(argv.String()) != "" {
		t.Errorf("the hook got arguments: %q", argv.String())
	}
}

// Canary keys, one sent by the client and one configured for the upstream,
// appear nowhere but in the upstream request: not in the log (debug level),
// the audit (the SQLite file and its WAL, byte for byte), /metrics,
// hookgate's own error bodies, or what hooks receive (an http hook records
// its requests, a script hook and a command hook look for them).
func TestHardeningKeysNeverLeak(t *testing.T) {
	const clientKey = "sk-client-CANARY-1111aaaa"
	const upstreamKey = "sk-upstream-CANARY-2222bbbb"
	const azureKey = "azure-CANARY-3333cccc"
	t.Setenv("HG_UPSTREAM_KEY", upstreamKey)
	canaries := []string{clientKey, upstreamKey, azureKey, "CANARY"}

	var mu sync.Mutex
	var seen bytes.Buffer
	recorder := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		r.Header.Write(&seen)
		io.Copy(&seen, r.Body)
		mu.Unlock()
		w.Write([]byte(`{"decision":"allow"}`))
	}))
	t.Cleanup(recorder.Close)
	dir := t.TempDir()
	cmdSeen := filepath.Join(dir, "cmd-seen")
	cmd := filepath.Join(dir, "cmd.sh")
	writeExecutable(t, cmd, "#!/bin/sh\n{ cat; env; echo \"$@\"; } >> "+cmdSeen+"\necho '{\"decision\":\"allow\"}'\n")
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	down := "http://" + closed.Addr().String()
	closed.Close()
	db := filepath.Join(dir, "hookgate.db")

	mock := mockupstream.Start(t)
	doc := `listen: 127.0.0.1:0
admin:
  listen: 127.0.0.1:0
log:
  level: debug
upstreams:
  - name: mock
    base_url: ` + mock.URL() + `
    api_key_env: HG_UPSTREAM_KEY
  - name: down
    base_url: ` + down + `
    api_key_env: HG_UPSTREAM_KEY
store:
  path: ` + db + `
interception:
  metadata_headers: [X-Team]
hooks:
  - id: recorder
    event: pre_tool_use
    handler: {type: http, url: "` + recorder.URL + `/judge"}
  - id: prompts
    event: user_prompt_submit
    handler: {type: http, url: "` + recorder.URL + `/prompt"}
  - id: results
    event: post_tool_use
    handler: {type: http, url: "` + recorder.URL + `/result"}
  - id: looker
    event: pre_tool_use
    handler:
      type: script
      source: |
        function handle(e) { return JSON.stringify(e).indexOf("CANARY") >= 0 ? { decision: "block", reason: "a key reached the hook" } : { decision: "allow" }; }
  - id: cmd
    event: pre_tool_use
    handler: {type: command, command: [` + cmd + `]}
  - id: failing
    event: pre_tool_use
    matcher: "^boom$"
    handler:
      type: script
      source: |
        function handle(e) { throw new Error("boom " + JSON.stringify(e)); }
`
	a, log := hgStartApp(t, doc)
	keys := map[string]string{"Authorization": "Bearer " + clientKey, "api-key": azureKey, "X-Team": "blue", "X-Session-Id": "s-keys"}
	spec := mockupstream.StreamSpec{TextDeltas: 2, Calls: []mockupstream.ToolCall{
		{ID: "call_a", Name: "exec", Arguments: `{"command":"ls"}`},
		{ID: "call_b", Name: "boom", Arguments: `{}`},
	}}
	history := []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"},{"role":"assistant","tool_calls":[{"id":"call_0","type":"function","function":{"name":"exec","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_0","content":"done"}]}`)

	var bodies bytes.Buffer
	post := func(path string, body []byte, h map[string]string) {
		_, header, b := rawPost(t, a.URL(), path, body, h)
		header.Write(&bodies)
		bodies.Write(b)
	}
	mock.Enqueue(mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	post("/v1/chat/completions", history, keys)
	mock.Enqueue(mockupstream.JSON(200, spec.Completion()))
	post("/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"go"}]}`), keys)
	mock.Enqueue(hgCut(spec.SSE(), 400))
	post("/v1/chat/completions", []byte(hgStreamRequest), keys)
	post("/v1/chat/completions", []byte(`{"model":`), keys)                                                                                         // 400
	post("/v1/chat/completions", []byte(hgStreamRequest), map[string]string{"Authorization": "Bearer " + clientKey, "X-Hookgate-Upstream": "nope"}) // 400
	post("/v1/chat/completions", []byte(hgStreamRequest), map[string]string{"Authorization": "Bearer " + clientKey, "X-Hookgate-Upstream": "down"}) // 502
	post("/v1/responses", []byte(`{}`), keys)                                                                                                       // 403
	mock.Enqueue(mockupstream.Error(401, "invalid_api_key", "Incorrect API key provided"))
	post("/v1/models", nil, keys)

	for _, r := range mock.Requests() {
		if got := r.Header.Get("Authorization"); got != "Bearer "+upstreamKey {
			t.Errorf("the upstream got Authorization %q", got)
		}
	}
	resp, err := http.Get(a.AdminURL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	a.Close() // flushes the audit
	var audit bytes.Buffer
	for _, f := range []string{db, db + "-wal", db + "-shm"} {
		b, _ := os.ReadFile(f)
		audit.Write(b)
	}
	cmdInput, _ := os.ReadFile(cmdSeen)
	mu.Lock()
	hookInput := seen.String()
	mu.Unlock()
	if !strings.Contains(hookInput, `"event":"pre_tool_use"`) || !strings.Contains(hookInput, `"event":"user_prompt_submit"`) || len(cmdInput) == 0 {
		t.Fatalf("the hooks did not run:\n%s", hookInput)
	}
	if audit.Len() == 0 || log.String() == "" {
		t.Fatalf("nothing to inspect: audit %d bytes, log:\n%s", audit.Len(), log)
	}
	for _, where := range []struct {
		name string
		text string
	}{
		{"log", log.String()}, {"audit (SQLite file and WAL)", audit.String()}, {"/metrics", string(metrics)},
		{"response bodies and headers", bodies.String()}, {"http hook input", hookInput}, {"command hook input", string(cmdInput)},
	} {
		for _, c := range canaries {
			if i := strings.Index(where.text, c); i >= 0 {
				t.Errorf("%s contains %q: ...%s...", where.name, c, where.text[max(0, i-200):min(len(where.text), i+100)])
			}
		}
	}
	if strings.Contains(bodies.String(), "a key reached the hook") {
		t.Errorf("a script hook saw a key")
	}
}

func TestHardeningAdminTokens(t *testing.T) {
	t.Setenv("E2E_ALICE_TOKEN", "tok-alice-secret")
	t.Setenv("E2E_BOB_TOKEN", "tok-bob-secret")
	t.Setenv("E2E_OPS_SECRET", "ops-signing-secret")
	t.Setenv("E2E_EMPTY_TOKEN", "")
	desk := &cardDesk{}
	mock := mockupstream.Start(t)
	cfg := strings.Replace(approvalConfig(mock.URL(), desk.serve(t), filepath.Join(t.TempDir(), "hookgate.db"), 30),
		"    - {name: alice, token_env: E2E_ALICE_TOKEN}\n", "    - {name: alice, token_env: E2E_ALICE_TOKEN}\n    - {name: bob, token_env: E2E_BOB_TOKEN}\n", 1)
	a, _ := hgStartApp(t, cfg)

	// An empty configured token refuses to start.
	empty := strings.Replace(cfg, "E2E_BOB_TOKEN", "E2E_EMPTY_TOKEN", 1)
	if c, err := config.Parse([]byte(empty), "empty.yaml", os.LookupEnv); err == nil {
		if b, err := app.Build(c, nil); err == nil {
			b.Close()
			t.Fatalf("an admin token configured empty was accepted")
		}
	}

	mock.Enqueue(mockupstream.Stream(payment.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	done := make(chan []byte, 1)
	go func() {
		_, _, b := rawPost(t, a.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"pay"}]}`), map[string]string{"X-Session-Id": "s-admin"})
		done <- b
	}()
	id := desk.waitCard(t, 1)
	do := func(method, path string, auth []string) (int, []byte) {
		req, _ := http.NewRequest(method, a.AdminURL()+path, nil)
		for _, v := range auth {
			req.Header.Add("Authorization", v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, auth := range [][]string{
		nil, {""}, {"Bearer"}, {"Bearer "}, {"Bearer  "}, {"tok-alice-secret"}, {"Basic dG9rLWFsaWNlLXNlY3JldA=="},
		{"Bearer tok-alice-secreT"}, {"Bearer tok-alice-secret-and-more"}, {"Bearer tok-alice"}, {"Bearer tok-bob-secret tok-alice-secret"},
		{"Token tok-alice-secret"}, {"Bearer tok-wrong", "Bearer tok-alice-secret"},
	} {
		for _, ep := range []struct{ method, path string }{
			{"GET", "/admin/approvals?status=pending"}, {"POST", "/admin/approvals/" + id + "/approve"}, {"POST", "/admin/approvals/" + id + "/reject"},
		} {
			if status, body := do(ep.method, ep.path, auth); status != 401 {
				t.Errorf("%s %s with Authorization %q: %d %s", ep.method, ep.path, auth, status, body)
			}
		}
	}
	if status, body := do("GET", "/admin/approvals?status=pending", []string{"Bearer tok-alice-secret"}); status != 200 || !strings.Contains(string(body), id) {
		t.Fatalf("alice lists: %d %s", status, body)
	}
	status, body := do("POST", "/admin/approvals/"+id+"/approve", []string{"bearer   tok-bob-secret  "})
	if status != 200 || !strings.Contains(string(body), `"responded_by":"bob"`) {
		t.Fatalf("bob approves: %d %s", status, body)
	}
	select {
	case b := <-done:
		if !bytes.Contains(b, []byte(`"name":"pay"`)) {
			t.Fatalf("the approved call did not go through:\n%s", b)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the approved call is still held")
	}
}

// A client cannot make hookgate connect anywhere but to a configured
// upstream: not by naming an unknown upstream, not through Host, not with
// an absolute-form request target, not with path tricks; and an http hook
// that answers with a redirect is not followed.
func TestHardeningClientCannotSteerTheUpstream(t *testing.T) {
	evil, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var dialed atomic.Int32
	go func() {
		for {
			c, err := evil.Accept()
			if err != nil {
				return
			}
			dialed.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { evil.Close() })
	evilHost := evil.Addr().String()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+evilHost+"/verdict", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirector.Close)

	s := startStack(t, "hooks:\n  - id: redirected\n    event: pre_tool_use\n    handler: {type: http, url: \""+redirector.URL+"/judge\"}\n")
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, []byte(`{"ok":true}`))))
	const body = `{"model":"m","messages":[]}`
	cl := fmt.Sprintf("Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	raws := map[string]string{
		"absolute-form target":      "POST http://" + evilHost + "/v1/chat/completions HTTP/1.1\r\nHost: " + evilHost + "\r\n" + cl,
		"absolute-form passthrough": "POST http://" + evilHost + "/v1/embeddings HTTP/1.1\r\nHost: x\r\n" + cl,
		"Host header":               "POST /v1/chat/completions HTTP/1.1\r\nHost: " + evilHost + "\r\n" + cl,
		"X-Forwarded-Host":          "POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nX-Forwarded-Host: " + evilHost + "\r\nX-Original-URL: http://" + evilHost + "/\r\n" + cl,
		"authority-like path":       "POST //" + evilHost + "/v1/embeddings HTTP/1.1\r\nHost: x\r\n" + cl,
		"unknown upstream":          "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Hookgate-Upstream: http://" + evilHost + "\r\n" + cl,
		"upstream name with a port": "POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nX-Hookgate-Upstream: mock:" + strings.Split(evilHost, ":")[1] + "\r\n" + cl,
		"CONNECT":                   "CONNECT " + evilHost + " HTTP/1.1\r\nHost: " + evilHost + "\r\n\r\n",
		"at-sign in the target":     "POST http://x@" + evilHost + "/v1/embeddings HTTP/1.1\r\nHost: x\r\n" + cl,
		"backslash authority":       "POST /\\\\" + evilHost + "/v1/embeddings HTTP/1.1\r\nHost: x\r\n" + cl,
	}
	for name, raw := range raws {
		before := len(s.mock.Requests())
		resp := hgRaw(t, hgHost(s.app.URL()), []byte(raw), 3*time.Second)
		var got []string
		for _, r := range s.mock.Requests()[before:] {
			got = append(got, r.Method+" "+r.URI+" Host="+r.Header.Get("Host"))
		}
		t.Logf("%-26s -> %-30q upstream got %v", name, strings.SplitN(resp, "\r\n", 2)[0], got)
	}
	// The redirecting policy server: the call is blocked, the redirect's
	// target never contacted.
	s.mock.Enqueue(mockupstream.Stream(mockupstream.StreamSpec{ToolCalls: 1}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	_, out := hgPostStream(t, s, nil)
	// The note names the hook only; why it failed (a redirect, which is
	// never followed) is for the log and the audit.
	if bytes.Contains(out, []byte(`"id":"call_mock_0"`)) || !bytes.Contains(out, []byte("blocked by redirected: hook redirected failed (fail-closed)")) {
		t.Fatalf("a redirected hook's call was not blocked:\n%s", out)
	}
	time.Sleep(100 * time.Millisecond)
	if n := dialed.Load(); n != 0 {
		t.Fatalf("hookgate connected %d times to an address a client named", n)
	}
	mockHost := hgHost(s.mock.URL())
	for _, r := range s.mock.Requests() {
		if r.Header.Get("Host") != mockHost {
			t.Errorf("the upstream was sent %s %s with Host %q", r.Method, r.URI, r.Header.Get("Host"))
		}
	}
}
