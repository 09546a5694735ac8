package proxy

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

type fixedReadiness struct {
	ready  bool
	report any
}

func (f fixedReadiness) Ready(context.Context) (bool, any) { return f.ready, f.report }

// startAdmin serves an Admin on loopback and returns its base URL.
func startAdmin(t *testing.T, opts AdminOptions) string {
	t.Helper()
	opts.Gatherer = prometheus.NewRegistry()
	a := NewAdmin(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go a.Serve(ln)
	t.Cleanup(func() { a.Shutdown() })
	return "http://" + ln.Addr().String()
}

func adminGet(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// /readyz answers the Readiness's report as JSON, 503 when not ready, and
// takes no token; /admin/config/version does.
func TestAdminReadyzAndConfigVersion(t *testing.T) {
	for _, tc := range []struct {
		name   string
		r      Readiness
		status int
		body   string
	}{
		{"no readiness", nil, 200, `{"status":"ready"}`},
		{"ready", fixedReadiness{true, map[string]string{"status": "ready"}}, 200, `{"status":"ready"}`},
		{"not ready", fixedReadiness{false, map[string]any{"status": "not_ready", "reasons": []string{"draining"}}}, 503, `{"reasons":["draining"],"status":"not_ready"}`},
		{"unencodable", fixedReadiness{true, func() {}}, 503, `{"status":"not_ready","reasons":["report_unencodable"]}`},
	} {
		base := startAdmin(t, AdminOptions{Readiness: tc.r})
		if status, body := adminGet(t, base+"/readyz", ""); status != tc.status || body != tc.body {
			t.Errorf("%s: %d %s, want %d %s", tc.name, status, body, tc.status, tc.body)
		}
	}
	base := startAdmin(t, AdminOptions{
		Tokens:        []AdminToken{{Name: "ops", Token: "tok"}},
		ConfigVersion: func() any { return map[string]string{"hash": "abc"} },
	})
	if status, _ := adminGet(t, base+"/admin/config/version", ""); status != 401 {
		t.Errorf("config version without a token: %d", status)
	}
	if status, body := adminGet(t, base+"/admin/config/version", "tok"); status != 200 || !strings.Contains(body, `"hash":"abc"`) {
		t.Errorf("config version: %d %s", status, body)
	}
	if status, _ := adminGet(t, base+"/healthz", ""); status != 200 {
		t.Errorf("/healthz: %d", status)
	}
}
