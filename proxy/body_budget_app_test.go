package proxy_test

import (
	"strings"
	"testing"
)

// Through hookgate as `hookgate serve` builds it, a request over
// limits.max_inflight_request_bytes is refused in its route's error shape:
// Anthropic's on /v1/messages, OpenAI's on the OpenAI routes; the refusal
// shows in /metrics.
func TestInflightRefusalInTheRoutesShape(t *testing.T) {
	mock := echoUpstream(t)
	st := startRouteStack(t, mock.URL(), "limits:\n  max_inflight_request_bytes: 1KiB\n")
	body := `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("a", 8<<10) + `"}]}`
	for _, c := range []struct {
		path  string
		shape errorShape
	}{
		{"/v1/messages", anthropicShape},
		{"/v1/chat/completions", openAIShape},
	} {
		resp, got := rawRequest(t, st.app.URL(), "POST", c.path, map[string]string{"anthropic-version": "2023-06-01"}, body)
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("%s: status %d, Retry-After %q: %s", c.path, resp.StatusCode, resp.Header.Get("Retry-After"), got)
		}
		checkErrorShape(t, c.path, got, c.shape, "request_bytes_limit_reached")
	}
	if m := metricsText(t, st.app); !strings.Contains(m, `hookgate_admission_refused_total{limit="request_bytes"} 2`) ||
		!strings.Contains(m, `hookgate_admission_in_use{limit="request_bytes"} 0`) {
		t.Fatalf("/metrics does not show the refusals:\n%s", m)
	}
}
