package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/internal/testenv"
	"github.com/hookgate/hookgate/proxy"
)

// Two instances on one PostgreSQL store and one admin.session_key_env: a
// login made through the first instance's console answers, through the
// second's, the call the first holds, and the call is released.
func TestConsoleApprovalReleasesACallOnAnotherInstance(t *testing.T) {
	dsn := testenv.Postgres(t)
	t.Setenv("E2E_ALICE_TOKEN", "tok-alice-secret")
	t.Setenv("E2E_OPS_SECRET", "ops-signing-secret")
	t.Setenv("E2E_PG_DSN", dsn)
	t.Setenv("E2E_SESSION_KEY", "a-key-every-instance-shares-0123456789")
	desk := &cardDesk{}
	deskURL := desk.serve(t)
	mock := mockupstream.Start(t)
	mock.Handle(mockupstream.Always(mockupstream.Stream(payment.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})))
	doc := strings.Replace(approvalConfig(mock.URL(), deskURL, "unused", 60), "store:\n  path: unused\n", "store:\n  driver: postgres\n  dsn: ${E2E_PG_DSN}\n", 1)
	doc = strings.Replace(doc, "  tokens:\n", "  session_key_env: E2E_SESSION_KEY\n  tokens:\n", 1)
	a, b := startApp(t, doc), startApp(t, doc)

	// Log in through a.
	req, _ := http.NewRequest(http.MethodPost, a.AdminURL()+"/console/login", strings.NewReader(`{"token":"tok-alice-secret"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var login struct{ CSRF string }
	_ = json.NewDecoder(resp.Body).Decode(&login)
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == proxy.ConsoleCookie {
			cookie = c
		}
	}
	if resp.StatusCode != 200 || cookie == nil || login.CSRF == "" {
		t.Fatalf("login: %d, cookie %v", resp.StatusCode, cookie)
	}

	held := make(chan []byte, 1)
	session := map[string]string{"X-Session-Id": "s-console-two-" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	go func() {
		_, _, body := rawPost(t, a.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"pay"}]}`), session)
		held <- body
	}()
	id := desk.waitCard(t, 1)

	// Answer through b's console, with a's cookie.
	req, _ = http.NewRequest(http.MethodPost, b.AdminURL()+"/console/api/approvals/"+id+"/approve", nil)
	req.Header.Set("Cookie", cookie.Name+"="+cookie.Value)
	req.Header.Set(proxy.ConsoleCSRFHeader, login.CSRF)
	resp, err = httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(answer, []byte(`"responded_by":"alice"`)) {
		t.Fatalf("approve through the second instance's console: %d %s", resp.StatusCode, answer)
	}
	body := <-held
	if !bytes.Contains(body, []byte(`"name":"pay"`)) {
		t.Fatalf("the call held by the first instance was not released:\n%s", body)
	}
}

// Two instances on one PostgreSQL store: a session logged out through the
// first is refused by the second, which had served it a moment before,
// and by a third started afterwards. The copy of the cookie is what is
// replayed: the browser that logged out has forgotten it.
func TestConsoleLogoutIsRefusedOnAnotherInstance(t *testing.T) {
	dsn := testenv.Postgres(t)
	t.Setenv("E2E_ALICE_TOKEN", "tok-alice-secret")
	t.Setenv("E2E_OPS_SECRET", "ops-signing-secret")
	t.Setenv("E2E_PG_DSN", dsn)
	t.Setenv("E2E_SESSION_KEY", "a-key-every-instance-shares-0123456789")
	mock := mockupstream.Start(t)
	doc := strings.Replace(approvalConfig(mock.URL(), "http://127.0.0.1:1", "unused", 60), "store:\n  path: unused\n", "store:\n  driver: postgres\n  dsn: ${E2E_PG_DSN}\n", 1)
	doc = strings.Replace(doc, "  tokens:\n", "  session_key_env: E2E_SESSION_KEY\n  tokens:\n", 1)
	a, b := startApp(t, doc), startApp(t, doc)

	req, _ := http.NewRequest(http.MethodPost, a.AdminURL()+"/console/login", strings.NewReader(`{"token":"tok-alice-secret"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var login struct{ CSRF string }
	_ = json.NewDecoder(resp.Body).Decode(&login)
	resp.Body.Close()
	var cookie string
	for _, c := range resp.Cookies() {
		if c.Name == proxy.ConsoleCookie {
			cookie = c.Name + "=" + c.Value
		}
	}
	if resp.StatusCode != 200 || cookie == "" {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	call := func(method, base, path string) int {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, nil)
		req.Header.Set("Cookie", cookie)
		req.Header.Set(proxy.ConsoleCSRFHeader, login.CSRF)
		resp, err := httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := call("GET", b.AdminURL(), "/console/api/session"); got != 200 {
		t.Fatalf("the second instance before logout: %d", got)
	}
	if got := call("POST", a.AdminURL(), "/console/api/logout"); got != 200 {
		t.Fatalf("logout through the first instance: %d", got)
	}
	if got := call("GET", b.AdminURL(), "/console/api/session"); got != http.StatusUnauthorized {
		t.Errorf("the copied cookie on the second instance after logout: %d, want 401", got)
	}
	if got := call("GET", a.AdminURL(), "/console/api/approvals"); got != http.StatusUnauthorized {
		t.Errorf("the copied cookie on the first instance after logout: %d, want 401", got)
	}
	c := startApp(t, doc)
	if got := call("GET", c.AdminURL(), "/console/api/session"); got != http.StatusUnauthorized {
		t.Errorf("the copied cookie on an instance started after the logout: %d, want 401", got)
	}
}
