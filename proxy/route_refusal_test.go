package proxy_test

import (
	"strings"
	"testing"
)

// A refusal is one log line naming the method and the path without its
// query, a count by reason, and a request counted under upstream="none":
// no upstream saw it.
func TestRefusedRoutesAreLoggedAndCounted(t *testing.T) {
	mock := echoUpstream(t)
	s := startRouteStack(t, mock.URL(), denyHook)
	rawRequest(t, s.app.URL(), "POST", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=proto&key=AIza-SECRET-KEY", nil, `{}`)
	rawRequest(t, s.app.URL(), "GET", "/v1/responses/resp_1?key=AIza-SECRET-KEY", nil, "")
	rawRequest(t, s.app.URL(), "GET", "/v1/chat/completions", nil, "")
	rawRequest(t, s.app.URL(), "POST", `/v1\chat\completions`, nil, `{}`)
	rawRequest(t, s.app.URL(), "GET", "/v1/models", map[string]string{"X-HTTP-Method-Override": "POST"}, "")
	rawRequest(t, s.app.URL(), "GET", "/v1/images", nil, "")
	rawRequest(t, s.app.URL(), "GET", "/v1/models", nil, "")
	if n := len(mock.Requests()); n != 1 {
		t.Fatalf("%d requests reached the upstream, want the one listed", n)
	}

	log := s.log.String()
	if strings.Contains(log, "SECRET") || strings.Contains(log, "alt=proto") {
		t.Errorf("the log names a query:\n%s", log)
	}
	for _, want := range []string{
		`path=/v1beta/models/gemini-2.5-pro:streamGenerateContent reason=unread_format status=403`,
		`path=/v1/responses/resp_1 reason=stored_object status=403`,
		`method=GET path=/v1/chat/completions reason=method status=405`,
		`reason=odd_path status=403`,
		`reason=method_override status=403`,
		`path=/v1/images reason=not_listed status=403`,
	} {
		if strings.Count(log, want) != 1 {
			t.Errorf("the log has %d lines with %q, want 1:\n%s", strings.Count(log, want), want, log)
		}
	}
	if n := strings.Count(log, `msg="route refused"`); n != 6 {
		t.Errorf("%d refusal lines, want 6:\n%s", n, log)
	}

	m := metricsText(t, s.app)
	for _, want := range []string{
		`hookgate_routes_refused_total{reason="unread_format"} 1`,
		`hookgate_routes_refused_total{reason="stored_object"} 1`,
		`hookgate_routes_refused_total{reason="method"} 1`,
		`hookgate_routes_refused_total{reason="odd_path"} 1`,
		`hookgate_routes_refused_total{reason="method_override"} 1`,
		`hookgate_routes_refused_total{reason="not_listed"} 1`,
		`hookgate_requests_total{code="403",route="other",upstream="none"} 4`,
		`hookgate_requests_total{code="405",route="/v1/chat/completions",upstream="none"} 1`,
		`hookgate_requests_total{code="403",route="/v1/models",upstream="none"} 1`,
		`hookgate_requests_total{code="200",route="/v1/models",upstream="mock"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(m, `code="403",route="other",upstream="mock"`) || strings.Contains(m, `code="405",route="/v1/chat/completions",upstream="mock"`) {
		t.Errorf("a refusal is counted under the upstream")
	}
	if strings.Contains(m, "SECRET") || strings.Contains(m, "gemini") {
		t.Errorf("/metrics carries a path or a query")
	}
}

// passthrough_routes open what is listed there, and everything under it,
// but never a path with an odd byte.
func TestPassthroughRoutesAreForwardedUnread(t *testing.T) {
	mock := echoUpstream(t)
	s := startRouteStack(t, mock.URL(), denyHook+"passthrough_routes: [/v1/images, /v1beta/models]\n")
	for _, c := range []struct {
		method, target string
		forwarded      bool
	}{
		{"POST", "/v1/images/generations", true},
		{"GET", "/v1/images", true},
		{"POST", "/v1beta/models/gemini-2.5-pro:generateContent?alt=sse", true},
		{"POST", "/v1/images%5C..%5Cchat%5Ccompletions", false},
		{"POST", "/v1/images/x;y", false},
		{"POST", "/v1/imagesx", false},
		{"GET", "/v1/chat/completions", false},
	} {
		before := len(mock.Requests())
		resp, body := rawRequest(t, s.app.URL(), c.method, c.target, nil, `{}`)
		got := len(mock.Requests()) - before
		if c.forwarded != (got == 1) || !c.forwarded && resp.StatusCode != 403 && resp.StatusCode != 405 {
			t.Errorf("%s %s: %d %s, upstream requests %d", c.method, c.target, resp.StatusCode, body, got)
		}
	}
}
