package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// TestHardeningBreakerFailsFastThroughTheProxy: a policy server and a judge
// that hang, then recover, behind an http hook and a prompt hook with
// breakers. While they hang each response waits out the hooks' timeout and
// both calls are blocked; once the breakers are open the calls are blocked
// at once, without reaching the server, even after it has recovered; after
// the cool-down the probes close the breakers and the calls go through.
// The notes the agent reads never name the server.
func TestHardeningBreakerFailsFastThroughTheProxy(t *testing.T) {
	const (
		timeout  = 500 * time.Millisecond
		failures = 2
		cooldown = 1500 * time.Millisecond
	)
	var healthy atomic.Bool
	var hits atomic.Int64
	policy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		hits.Add(1)
		if !healthy.Load() {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			fmt.Fprint(w, `{"id":"j","object":"chat.completion","created":1,"model":"judge","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"{\"decision\":\"allow\",\"reason\":\"fine\"}"}}]}`)
			return
		}
		fmt.Fprint(w, `{"decision":"allow"}`)
	}))
	t.Cleanup(policy.Close)
	addr := strings.TrimPrefix(policy.URL, "http://")

	mock := mockupstream.Start(t)
	breaker := fmt.Sprintf("{failures: %d, cooldown: %s}", failures, cooldown)
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: mock\n    base_url: " + mock.URL() +
		"\n  - name: judge\n    base_url: " + policy.URL + "\nhooks:\n" +
		"  - id: h-http\n    event: pre_tool_use\n    matcher: \"^t_http$\"\n    timeout_ms: 500\n    breaker: " + breaker +
		"\n    handler: {type: http, url: \"" + policy.URL + "/verdict\"}\n" +
		"  - id: h-judge\n    event: pre_tool_use\n    matcher: \"^t_judge$\"\n    timeout_ms: 500\n    breaker: " + breaker +
		"\n    handler: {type: prompt, upstream: judge, model: judge, instruction: block anything risky}\n"
	a, log := hgStartApp(t, doc)
	s := &stack{mock: mock, app: a}
	calls := []mockupstream.ToolCall{
		{ID: "call_t_http", Name: "t_http", Arguments: `{"x":1}`},
		{ID: "call_t_judge", Name: "t_judge", Arguments: `{"x":1}`},
	}
	round := func() ([]byte, time.Duration) {
		t.Helper()
		mock.Enqueue(mockupstream.Stream(mockupstream.StreamSpec{Calls: calls}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
		start := time.Now()
		status, body := hgPostStream(t, s, nil)
		took := time.Since(start)
		if status != 200 || !bytes.HasSuffix(body, []byte("data: [DONE]\n\n")) {
			t.Fatalf("status %d:\n%s", status, hgShort(body))
		}
		if bytes.Contains(body, []byte(addr)) {
			t.Fatalf("a note names the policy server %s:\n%s", addr, hgShort(body))
		}
		return body, took
	}
	blocked := func(body []byte, note string) {
		t.Helper()
		for _, tool := range []string{"t_http", "t_judge"} {
			hook := "h-" + strings.TrimPrefix(tool, "t_")
			if bytes.Contains(body, []byte(`"id":"call_`+tool+`"`)) {
				t.Fatalf("%s went through:\n%s", tool, hgShort(body))
			}
			want := "tool call " + tool + " blocked by " + hook + ": hook " + hook + " " + note + " (fail-closed)"
			if !bytes.Contains(body, []byte(want)) {
				t.Fatalf("no note %q:\n%s", want, hgShort(body))
			}
		}
	}

	// The server hangs: each round waits out the timeout.
	for i := range failures {
		body, took := round()
		blocked(body, "timed out")
		if took < timeout {
			t.Fatalf("round %d took %v, less than the %v timeout", i+1, took, timeout)
		}
		t.Logf("round %d, server hung: both calls blocked after %v", i+1, took.Round(time.Millisecond))
	}
	openedAt := time.Now()
	before := hits.Load()

	// The breakers are open: blocked at once, even though the server has
	// recovered, and nothing reaches it.
	healthy.Store(true)
	for i := range 3 {
		body, took := round()
		blocked(body, "unavailable: circuit breaker open")
		if took >= timeout/2 {
			t.Fatalf("round %d with the breakers open took %v, want far less than the %v timeout", failures+i+1, took, timeout)
		}
		t.Logf("round %d, breakers open: both calls blocked in %v", failures+i+1, took.Round(time.Millisecond))
	}
	if n := hits.Load() - before; n != 0 {
		t.Fatalf("the server got %d calls while the breakers were open", n)
	}

	// After the cool-down, the probes succeed and the calls go through.
	time.Sleep(time.Until(openedAt.Add(cooldown + 100*time.Millisecond)))
	for i := range 2 {
		body, _ := round()
		for _, tool := range []string{"t_http", "t_judge"} {
			if !bytes.Contains(body, []byte(`"id":"call_`+tool+`"`)) {
				t.Fatalf("round after the cool-down %d: %s did not go through:\n%s", i+1, tool, hgShort(body))
			}
		}
	}
	l := log.String()
	for _, want := range []string{"hook breaker opened", "hook=h-http", "hook=h-judge", "hook breaker closed"} {
		if !strings.Contains(l, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	hgAlive(t, s)
}
