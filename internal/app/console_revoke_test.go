package app

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Logging out revokes the session in the store: a copy of its cookie is
// refused afterwards, by the API and the page, and its open event stream
// ends; another session of the same token goes on. The revocation is one
// row, kept until the cookie's expiry.
func TestConsoleLogoutRevokesACopiedCookie(t *testing.T) {
	a := startConsole(t, t.TempDir(), "")
	base := a.AdminURL()
	s, _ := login(t, a, "tok-root-console")
	other, _ := login(t, a, "tok-root-console")
	copied := session{cookie: s.cookie, csrf: s.csrf}
	if r := copied.get(t, base+"/console/api/session"); r.status != 200 {
		t.Fatalf("the copy before logout: %d %s", r.status, r.body)
	}

	req, _ := http.NewRequest("GET", base+"/console/api/events", nil)
	req.Header.Set("Cookie", copied.cookie)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 16)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				events <- v
			}
		}
	}()
	if first := <-events; first != "approvals" && first != "decisions" {
		t.Fatalf("the stream began with %q", first)
	}

	if r := s.post(t, base+"/console/api/logout", s.csrf); r.status != 200 {
		t.Fatalf("logout: %d %s", r.status, r.body)
	}
	for _, p := range []string{"/console/api/session", "/console/api/approvals", "/console/api/events"} {
		if r := copied.get(t, base+p); r.status != http.StatusUnauthorized {
			t.Errorf("the copied cookie after logout, GET %s: %d, want 401", p, r.status)
		}
	}
	if r := copied.post(t, base+"/console/api/logout", copied.csrf); r.status != http.StatusUnauthorized {
		t.Errorf("the copied cookie after logout, POST logout: %d, want 401", r.status)
	}
	if r := copied.get(t, base+"/console/"); r.status != http.StatusSeeOther {
		t.Errorf("the copied cookie after logout, the page: %d, want 303 to the login", r.status)
	}
	if r := other.get(t, base+"/console/api/session"); r.status != 200 {
		t.Errorf("another session of the same token after the logout: %d", r.status)
	}
	ended := false
	for e := range events {
		if e == "session_expired" {
			ended = true
		}
	}
	if !ended {
		t.Error("the logged-out session's event stream did not end with session_expired")
	}
	if n, err := a.persistence.Store.CountConsoleRevocations(context.Background()); err != nil || n != 1 {
		t.Errorf("%d revocations stored (%v), want 1", n, err)
	}
}
