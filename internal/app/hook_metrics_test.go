package app

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// An http hook whose policy server answers 503 trips its breaker; /metrics
// shows it open and counted, with the hook id as the only label; after
// the cool-down a successful probe closes it, and the count stays.
func TestBreakerMetricsThroughTheProxy(t *testing.T) {
	const cooldown = time.Second // long enough that a loaded machine cannot half-open it mid-step
	var healthy atomic.Bool
	var hits atomic.Int64
	policy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		hits.Add(1)
		if !healthy.Load() {
			http.Error(w, "policy server unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"decision":"allow"}`)
	}))
	t.Cleanup(policy.Close)

	mock := mockupstream.Start(t)
	call := mockupstream.ToolCall{ID: "call_1", Name: "pay", Arguments: `{"amount":1}`}
	mock.Handle(mockupstream.Always(mockupstream.JSON(200, mockupstream.StreamSpec{Calls: []mockupstream.ToolCall{call}}.Completion())))
	doc := "listen: 127.0.0.1:0\nadmin: {listen: \"127.0.0.1:0\"}\n" +
		"upstreams: [{name: mock, base_url: \"" + mock.URL() + "\"}]\n" +
		"store: {path: " + filepath.Join(t.TempDir(), "h.db") + "}\n" +
		"hooks:\n  - id: pay-policy\n    event: pre_tool_use\n    matcher: \"^pay$\"\n    timeout_ms: 2000\n" +
		"    breaker: {failures: 2, cooldown: " + cooldown.String() + "}\n" +
		"    handler: {type: http, url: \"" + policy.URL + "/verdict\"}\n"
	cfg, err := config.Parse([]byte(doc), "t.yaml", func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	a, err := Build(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)

	ask := func(want string) {
		t.Helper()
		resp, err := http.Post(a.URL()+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"pay"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Contains(body, []byte(want)) {
			t.Fatalf("status %d, want %q in:\n%s", resp.StatusCode, want, body)
		}
	}
	metrics := func() string {
		t.Helper()
		resp, err := http.Get(a.AdminURL() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	expect := func(text string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(text, w+"\n") {
				t.Errorf("/metrics lacks %s", w)
			}
		}
	}

	ask("hook pay-policy failed (fail-closed)")
	if text := metrics(); strings.Contains(text, "hookgate_hook_breaker_state{") {
		t.Errorf("one failure of two already reported a breaker state")
	}
	ask("hook pay-policy failed (fail-closed)")
	ask("circuit breaker open")
	if n := hits.Load(); n != 2 {
		t.Fatalf("the policy server was asked %d times, want 2 (the third call refused by the breaker)", n)
	}
	expect(metrics(),
		`hookgate_hook_breaker_state{hook="pay-policy"} 2`,
		`hookgate_hook_breaker_opened_total{hook="pay-policy"} 1`,
	)

	healthy.Store(true)
	time.Sleep(cooldown + 100*time.Millisecond)
	ask(`"name":"pay"`) // the probe allows the call
	text := metrics()
	expect(text,
		`hookgate_hook_breaker_state{hook="pay-policy"} 0`,
		`hookgate_hook_breaker_opened_total{hook="pay-policy"} 1`,
	)
	if strings.Contains(text, policy.URL) || strings.Contains(text, strings.TrimPrefix(policy.URL, "http://")) {
		t.Errorf("/metrics names the policy server")
	}
}

// A change of state reaches the next recorder when it hears of breakers,
// whatever this one makes of the state.
func TestBreakerStateIsPassedOn(t *testing.T) {
	next := &breakerLog{}
	m := newHookMetrics(prometheus.NewRegistry(), next)
	for _, s := range []string{"open", "half-open", "closed", "unknown state: 7"} {
		m.BreakerStateChanged("h", s)
	}
	if got := strings.Join(next.states, ","); got != "h=open,h=half-open,h=closed,h=unknown state: 7" {
		t.Fatalf("passed on %q", got)
	}
	newHookMetrics(prometheus.NewRegistry(), nil).BreakerStateChanged("h", "open") // no next: no panic
}

// breakerLog is a Recorder that also keeps the breaker changes it hears.
type breakerLog struct {
	hooks.Recorder
	states []string
}

func (b *breakerLog) BreakerStateChanged(hookID, state string) {
	b.states = append(b.states, hookID+"="+state)
}
