package app

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/proxy"
	"github.com/hookgate/hookgate/store"
)

// consoleEnv is the environment the console tests' configuration reads.
var consoleEnv = map[string]string{
	"CONSOLE_ROOT":     "tok-root-console",
	"CONSOLE_ACME":     "tok-acme-console",
	"CONSOLE_KEY":      "0123456789abcdef0123456789abcdef-shared",
	"CONSOLE_ACMEK":    "vk-acme",
	"CONSOLE_UPSTREAM": "sk-upstream",
}

// startConsole builds and starts hookgate with two admin tokens (root
// sees everything, acme-approver only tenant acme) and two tenants, on a
// SQLite file in a temporary folder; extra is appended to the admin
// section.
func startConsole(t *testing.T, dir, extra string) *App {
	t.Helper()
	doc := `listen: 127.0.0.1:0
admin:
  listen: 127.0.0.1:0
  session_key_env: CONSOLE_KEY
  tokens:
    - {name: root, token_env: CONSOLE_ROOT}
    - {name: acme-approver, token_env: CONSOLE_ACME, tenants: [acme]}
` + extra + `upstreams: [{name: u, base_url: "http://127.0.0.1:1", api_key_env: CONSOLE_UPSTREAM}]
tenants:
  - {id: acme, keys_env: CONSOLE_ACMEK}
  - {id: globex, key_hashes: ["` + proxy.KeyDigest("vk-globex") + `"]}
store: {path: ` + filepath.Join(dir, "h.db") + `}
`
	cfg, err := config.Parse([]byte(doc), "console.yaml", func(k string) (string, bool) { v, ok := consoleEnv[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	a, err := Build(cfg, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// ask stores a pending question for tenant, as the approval gate does.
func ask(t *testing.T, a *App, tenant, tool, args string) store.Confirmation {
	t.Helper()
	payload, _ := json.Marshal(map[string]string{"hook": "approve", "tool": tool, "session": tenant + ":s1", "tenant": tenant, "agent": "bot", "arguments": args})
	c, _, err := a.persistence.Store.CreateConfirmation(context.Background(), store.NewConfirmation{
		Tool: tool, SessionID: tenant + ":s1", ArgsHash: "h-" + tenant + tool, Payload: string(payload), ExpiresAt: time.Now().Add(time.Hour),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var noRedirect = &http.Client{
	Timeout:       10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

type answer struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, method, url string, header map[string]string, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

// session is a logged-in console: its cookie header and CSRF token.
type session struct{ cookie, csrf string }

func login(t *testing.T, a *App, token string) (session, *http.Cookie) {
	t.Helper()
	r := do(t, "POST", a.AdminURL()+"/console/login", map[string]string{"Content-Type": "application/json"}, `{"token":"`+token+`"}`)
	if r.status != 200 {
		t.Fatalf("login: %d %s", r.status, r.body)
	}
	cookies := (&http.Response{Header: r.header}).Cookies()
	if len(cookies) != 1 || cookies[0].Name != proxy.ConsoleCookie {
		t.Fatalf("login set cookies %v", r.header.Values("Set-Cookie"))
	}
	var body struct{ CSRF string }
	if err := json.Unmarshal([]byte(r.body), &body); err != nil || body.CSRF == "" {
		t.Fatalf("login answer %s", r.body)
	}
	return session{cookie: cookies[0].Name + "=" + cookies[0].Value, csrf: body.CSRF}, cookies[0]
}

func (s session) get(t *testing.T, url string) answer {
	return do(t, "GET", url, map[string]string{"Cookie": s.cookie}, "")
}

func (s session) post(t *testing.T, url, csrf string) answer {
	h := map[string]string{"Cookie": s.cookie}
	if csrf != "" {
		h[proxy.ConsoleCSRFHeader] = csrf
	}
	return do(t, "POST", url, h, "")
}

func approvalsOf(t *testing.T, body string) []map[string]any {
	t.Helper()
	var v struct{ Approvals []map[string]any }
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("not a list of approvals: %s", body)
	}
	return v.Approvals
}

// Without a session the console's page redirects to the login and its API
// answers 401; a bad token, a form post and a cross-site login are
// refused; a forged or tampered cookie is no session.
func TestConsoleRefusesWithoutASession(t *testing.T) {
	a := startConsole(t, t.TempDir(), "")
	base := a.AdminURL()
	if r := do(t, "GET", base+"/console/", nil, ""); r.status != http.StatusSeeOther || !strings.HasSuffix(r.header.Get("Location"), "/console/login") {
		t.Errorf("page without a cookie: %d Location=%q, want 303 to /console/login", r.status, r.header.Get("Location"))
	}
	for _, p := range []string{"/console/api/approvals", "/console/api/decisions", "/console/api/policy", "/console/api/events", "/console/api/session"} {
		if r := do(t, "GET", base+p, nil, ""); r.status != http.StatusUnauthorized {
			t.Errorf("GET %s without a cookie: %d, want 401", p, r.status)
		}
	}
	json := map[string]string{"Content-Type": "application/json"}
	if r := do(t, "POST", base+"/console/login", json, `{"token":"tok-wrong"}`); r.status != http.StatusUnauthorized || r.header.Get("Set-Cookie") != "" {
		t.Errorf("login with a bad token: %d, cookie %q; want 401 and no cookie", r.status, r.header.Get("Set-Cookie"))
	}
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	if r := do(t, "POST", base+"/console/login", form, `token=tok-root-console`); r.status != http.StatusUnsupportedMediaType {
		t.Errorf("login by form post: %d, want 415", r.status)
	}
	cross := map[string]string{"Content-Type": "application/json", "Origin": "https://evil.example"}
	if r := do(t, "POST", base+"/console/login", cross, `{"token":"tok-root-console"}`); r.status != http.StatusForbidden {
		t.Errorf("cross-site login: %d, want 403", r.status)
	}

	s, _ := login(t, a, "tok-root-console")
	payload, sig, _ := strings.Cut(strings.TrimPrefix(s.cookie, proxy.ConsoleCookie+"="), ".")
	for name, value := range map[string]string{
		"tampered payload": payload + "x." + sig,
		"no signature":     payload,
		"other signature":  payload + ".AAAA",
	} {
		forged := session{cookie: proxy.ConsoleCookie + "=" + value}
		if r := forged.get(t, base+"/console/api/approvals"); r.status != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, r.status)
		}
	}
	if r := s.get(t, base+"/console/api/approvals"); r.status != 200 {
		t.Errorf("the genuine cookie: %d %s", r.status, r.body)
	}
	if r := s.get(t, base+"/console/"); r.status != 200 || !strings.Contains(r.body, "console.js") {
		t.Errorf("page with a session: %d", r.status)
	}
}

// The session cookie is HttpOnly, SameSite=Strict, Secure, for the
// console's paths, with an expiry; insecure_cookies drops Secure only.
// Logging out clears it.
func TestConsoleCookieFlags(t *testing.T) {
	a := startConsole(t, t.TempDir(), "")
	s, c := login(t, a, "tok-root-console")
	if !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteStrictMode || c.Path != "/console/" || c.MaxAge != int(proxy.DefaultSessionTTL/time.Second) {
		t.Errorf("cookie %+v: want HttpOnly, Secure, SameSite=Strict, Path=/console/, Max-Age=%d", c, int(proxy.DefaultSessionTTL/time.Second))
	}
	if strings.Contains(c.Value, "tok-root-console") {
		t.Error("the cookie carries the admin token")
	}
	if r := s.post(t, a.AdminURL()+"/console/api/logout", s.csrf); r.status != 200 {
		t.Fatalf("logout: %d %s", r.status, r.body)
	}

	insecure := startConsole(t, t.TempDir(), "  insecure_cookies: true\n")
	_, c = login(t, insecure, "tok-root-console")
	if c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
		t.Errorf("insecure_cookies cookie %+v: want HttpOnly, SameSite=Strict, not Secure", c)
	}
}

// Writes need the session's CSRF token in X-CSRF-Token: none or another
// session's is 403 and answers nothing. With it, the answer goes through
// the atomic claim: a second answer to the same question loses (409),
// and the first is recorded under the token's name.
func TestConsoleWritesNeedTheCSRFToken(t *testing.T) {
	a := startConsole(t, t.TempDir(), "")
	base := a.AdminURL()
	q := ask(t, a, "acme", "pay", `{"amount":10}`)
	s, _ := login(t, a, "tok-root-console")
	other, _ := login(t, a, "tok-root-console")
	url := base + "/console/api/approvals/" + q.ID + "/approve"
	for name, csrf := range map[string]string{"no token": "", "another session's": other.csrf, "made up": "x" + s.csrf} {
		if r := s.post(t, url, csrf); r.status != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, r.status)
		}
	}
	if r := s.post(t, base+"/console/api/logout", ""); r.status != http.StatusForbidden {
		t.Errorf("logout without the token: %d, want 403", r.status)
	}
	if c, _ := a.persistence.Store.GetConfirmation(context.Background(), q.ID); c.Status != store.Pending {
		t.Fatalf("refused writes answered the question: %s", c.Status)
	}
	if r := s.post(t, url, s.csrf); r.status != 200 {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	if r := other.post(t, base+"/console/api/approvals/"+q.ID+"/reject", other.csrf); r.status != http.StatusConflict {
		t.Errorf("second answer: %d, want 409", r.status)
	}
	c, _ := a.persistence.Store.GetConfirmation(context.Background(), q.ID)
	if c.Status != store.Approved || c.RespondedBy != "root" {
		t.Errorf("question %s by %q, want approved by root", c.Status, c.RespondedBy)
	}
	// The console's list: what is pending, then the newest ended.
	next := ask(t, a, "acme", "refund", `{}`)
	recent := approvalsOf(t, s.get(t, base+"/console/api/approvals?status=recent").body)
	if len(recent) != 2 || recent[0]["id"] != next.ID || recent[1]["id"] != q.ID || recent[1]["responded_by"] != "root" {
		t.Errorf("recent questions %v: want %s pending, then %s answered by root", recent, next.ID, q.ID)
	}
}

// A token scoped to tenant acme sees and answers acme's questions and
// decisions only, in the console and in the admin API alike; root sees
// all. Arguments holding a credential are withheld.
func TestConsoleTenantScoping(t *testing.T) {
	a := startConsole(t, t.TempDir(), "")
	base := a.AdminURL()
	ctx := context.Background()
	acmeQ := ask(t, a, "acme", "pay", `{"amount":10}`)
	globexQ := ask(t, a, "globex", "deploy", `{"key":"AKIAIOSFODNN7EXAMPLQ"}`)
	now := time.Now()
	if _, err := a.persistence.Store.InsertExecutions(ctx, []store.Execution{
		{ID: "x-acme", HookID: "h", SessionID: "acme:s1", Event: "pre_tool_use", InputHash: "i", Decision: "block", DedupKey: "d1", CreatedAt: now},
		{ID: "x-globex", HookID: "h", SessionID: "globex:s1", Event: "pre_tool_use", InputHash: "i", Decision: "block", DedupKey: "d2", CreatedAt: now},
	}); err != nil {
		t.Fatal(err)
	}

	acme, _ := login(t, a, "tok-acme-console")
	root, _ := login(t, a, "tok-root-console")
	ids := func(list []map[string]any) []string {
		var out []string
		for _, q := range list {
			out = append(out, q["id"].(string))
		}
		return out
	}
	if got := ids(approvalsOf(t, acme.get(t, base+"/console/api/approvals").body)); len(got) != 1 || got[0] != acmeQ.ID {
		t.Errorf("acme's console lists %v, want only %s", got, acmeQ.ID)
	}
	api := do(t, "GET", base+"/admin/approvals", map[string]string{"Authorization": "Bearer tok-acme-console"}, "")
	if got := ids(approvalsOf(t, api.body)); len(got) != 1 || got[0] != acmeQ.ID {
		t.Errorf("acme's admin API lists %v, want only %s", got, acmeQ.ID)
	}
	rootList := approvalsOf(t, root.get(t, base+"/console/api/approvals").body)
	if len(rootList) != 2 {
		t.Fatalf("root lists %d questions, want 2", len(rootList))
	}
	for _, q := range rootList {
		if q["id"] == globexQ.ID && (strings.Contains(q["arguments"].(string), "AKIA") || q["arguments_withheld"] != true) {
			t.Errorf("arguments with an AWS key shown: %v", q["arguments"])
		}
	}
	if r := acme.post(t, base+"/console/api/approvals/"+globexQ.ID+"/approve", acme.csrf); r.status != http.StatusNotFound {
		t.Errorf("acme answering globex's question in the console: %d, want 404", r.status)
	}
	if r := do(t, "POST", base+"/admin/approvals/"+globexQ.ID+"/approve", map[string]string{"Authorization": "Bearer tok-acme-console"}, ""); r.status != http.StatusNotFound {
		t.Errorf("acme answering globex's question in the admin API: %d, want 404", r.status)
	}
	acmeAPI := map[string]string{"Authorization": "Bearer tok-acme-console", "Content-Type": "application/json"}
	if r := do(t, "POST", base+"/admin/tenants/globex/readonly", acmeAPI, `{"read_only":true}`); r.status != http.StatusForbidden {
		t.Errorf("acme switching globex read-only: %d, want 403", r.status)
	}
	if r := do(t, "POST", base+"/admin/tenants/acme/readonly", acmeAPI, `{"read_only":true}`); r.status != http.StatusOK {
		t.Errorf("acme switching itself read-only: %d %s", r.status, r.body)
	}
	if c, _ := a.persistence.Store.GetConfirmation(ctx, globexQ.ID); c.Status != store.Pending {
		t.Errorf("globex's question is %s", c.Status)
	}
	var dec struct{ Decisions []map[string]any }
	_ = json.Unmarshal([]byte(acme.get(t, base+"/console/api/decisions").body), &dec)
	if len(dec.Decisions) != 1 || dec.Decisions[0]["id"] != "x-acme" {
		t.Errorf("acme's decisions %v, want only x-acme", dec.Decisions)
	}
	_ = json.Unmarshal([]byte(root.get(t, base+"/console/api/decisions?decision=block").body), &dec)
	if len(dec.Decisions) != 2 {
		t.Errorf("root's decisions %v, want both", dec.Decisions)
	}
	_ = json.Unmarshal([]byte(root.get(t, base+"/console/api/decisions?session=globex:s1").body), &dec)
	if len(dec.Decisions) != 1 || dec.Decisions[0]["id"] != "x-globex" {
		t.Errorf("root's decisions of globex:s1 %v, want x-globex", dec.Decisions)
	}
}

// Every console answer carries the CSP without inline script and refuses
// framing; the event stream opens with the questions of the session's
// scope.
func TestConsoleHeadersAndEvents(t *testing.T) {
	a := startConsole(t, t.TempDir(), "")
	base := a.AdminURL()
	for _, p := range []string{"/console/login", "/console/assets/console.js", "/console/api/approvals", "/console/nope"} {
		r := do(t, "GET", base+p, nil, "")
		csp := r.header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: CSP %q", p, csp)
		}
		if r.header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: X-Frame-Options %q", p, r.header.Get("X-Frame-Options"))
		}
	}
	ask(t, a, "globex", "deploy", `{}`)
	acmeQ := ask(t, a, "acme", "pay", `{}`)
	acme, _ := login(t, a, "tok-acme-console")
	req, _ := http.NewRequest("GET", base+"/console/api/events", nil)
	req.Header.Set("Cookie", acme.cookie)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("events: Content-Type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			event = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok && event == "approvals" {
			got := approvalsOf(t, v)
			if len(got) != 1 || got[0]["id"] != acmeQ.ID {
				t.Fatalf("acme's stream shows %v, want only %s", got, acmeQ.ID)
			}
			return
		}
	}
	t.Fatalf("the stream ended without an approvals event: %v", sc.Err())
}

// Two instances given the same admin.session_key_env accept each other's
// logins (a load balancer may send the next request to either).
func TestConsoleSessionsMoveBetweenInstancesSharingTheKey(t *testing.T) {
	one := startConsole(t, t.TempDir(), "")
	two := startConsole(t, t.TempDir(), "")
	s, _ := login(t, one, "tok-root-console")
	if r := s.get(t, two.AdminURL()+"/console/api/session"); r.status != 200 {
		t.Errorf("the other instance: %d %s", r.status, r.body)
	}
}

// Shutting down ends the open event streams: the page's stream ends,
// and the shutdown does not wait for the page to leave.
func TestConsoleShutdownEndsEventStreams(t *testing.T) {
	a := startConsole(t, t.TempDir(), "")
	s, _ := login(t, a, "tok-root-console")
	req, _ := http.NewRequest("GET", a.AdminURL()+"/console/api/events", nil)
	req.Header.Set("Cookie", s.cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "retry:") {
		t.Fatalf("first line %q, %v", line, err)
	}
	closed := make(chan struct{})
	go func() { a.Close(); close(closed) }()
	if _, err := io.Copy(io.Discard, r); err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Logf("stream ended with %v", err)
	}
	<-closed
}
