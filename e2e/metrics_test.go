package e2e

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

func TestMetricsReportWhatHooksCostAndNoSecrets(t *testing.T) {
	s := startStack(t, shellPolicy)
	s.mock.Enqueue(mockupstream.Stream(mixedBatch.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	_, header, _ := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`),
		map[string]string{"Authorization": "Bearer sk-client-canary-123", "X-Session-Id": "sess-secret-777"})
	if !regexp.MustCompile(`^hookgate;dur=\d+\.\d{3}$`).MatchString(header.Get("Server-Timing")) {
		t.Errorf("Server-Timing %q", header.Get("Server-Timing"))
	}
	s.mock.Enqueue(mockupstream.JSON(200, mixedBatch.Completion()))
	_, header, _ = rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"go"}]}`), nil)
	if header.Get("Server-Timing") == "" {
		t.Errorf("no Server-Timing on a plain response")
	}

	resp, err := http.Get(s.app.AdminURL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)
	for _, want := range []string{
		`hookgate_tool_calls_total{decision="block",tool="exec"} 2`,
		`hookgate_tool_calls_total{decision="rewrite",tool="exec"} 2`,
		`hookgate_tool_calls_total{decision="allow",tool="other"} 2`,
		`hookgate_hook_decisions_total{decision="block",event="pre_tool_use",hook="no-destructive-exec"} 2`,
		`hookgate_hook_duration_seconds_count{decision="rewrite",event="pre_tool_use",hook="dry-run"} 2`,
		`hookgate_requests_total{code="200",route="/v1/chat/completions",upstream="mock"} 2`,
		`hookgate_held_tool_calls 0`,
		`hookgate_active_streams 0`,
		`hookgate_overhead_seconds_count 2`,
		`hookgate_ttfb_added_seconds_count 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, secret := range []string{"sk-client-canary-123", "sess-secret-777", "rm -rf"} {
		if strings.Contains(text, secret) {
			t.Errorf("/metrics leaks %q", secret)
		}
	}
	if resp, err := http.Get(s.app.AdminURL() + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Errorf("healthz: %v", err)
	}
}
