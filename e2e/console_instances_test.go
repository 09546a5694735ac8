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
