package e2e

// Hardening, load: over the configured admission limits
// (limits.max_concurrent_streams, max_concurrent_hooks,
// max_pending_approvals) hookgate refuses at once, with a 503 and
// Retry-After in the OpenAI error shape before any byte of an answer, or
// blocks the call it could not judge; nothing is let through, nothing
// queues, and the count recovers once the load is gone.

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// admissionMetric reads hookgate_admission_<name>{limit}.
func admissionMetric(t *testing.T, s *stack, name, limit string) float64 {
	t.Helper()
	mfs, err := s.app.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "hookgate_admission_"+name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "limit" && l.GetValue() == limit {
					return m.GetCounter().GetValue() + m.GetGauge().GetValue()
				}
			}
		}
	}
	t.Fatalf("no hookgate_admission_%s{limit=%q}", name, limit)
	return 0
}

// waitFor polls cond (a metric or a counter hookgate moves) until it
// holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkRefused asserts a 503 over an admission limit: Retry-After, the
// OpenAI error shape and the limit's code.
func checkRefused(t *testing.T, status int, h http.Header, body []byte, code string) {
	t.Helper()
	if status != 503 || h.Get("Retry-After") != "1" {
		t.Fatalf("over the limit: status %d, Retry-After %q: %s", status, h.Get("Retry-After"), body)
	}
	checkOpenAIError(t, body, code)
}

func TestHardeningAdmissionStreamLimit(t *testing.T) {
	s := startStack(t, "limits:\n  max_concurrent_streams: 2\n"+denyShell)
	slow := mockupstream.Stream(mockupstream.StreamSpec{TextDeltas: 10}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: 100 * time.Millisecond})
	s.mock.Handle(func(r *mockupstream.Request) mockupstream.Response {
		if bytes.Contains(r.Body, []byte(`"stream":true`)) {
			return slow
		}
		return mockupstream.JSON(200, mockupstream.StreamSpec{TextDeltas: 2}.Completion())
	})

	var wg sync.WaitGroup
	bodies := make([][]byte, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, bodies[i] = rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(hgStreamRequest), nil)
		}()
	}
	waitFor(t, "two streams admitted", func() bool { return admissionMetric(t, s, "in_use", "streams") == 2 })

	// The third stream is refused before anything: no hook, no upstream.
	status, h, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(hgStreamRequest), nil)
	checkRefused(t, status, h, body, "stream_limit_reached")
	// A request answered in one piece is not a stream: it passes.
	if status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"go"}]}`), nil); status != 200 {
		t.Fatalf("a plain request while the streams are full: %d %s", status, body)
	}
	if n := len(s.mock.Requests()); n != 3 {
		t.Fatalf("the upstream got %d requests, want 3 (two streams and the plain one)", n)
	}

	wg.Wait()
	for i, b := range bodies {
		if !bytes.HasSuffix(b, []byte("data: [DONE]\n\n")) {
			t.Fatalf("admitted stream %d did not finish whole:\n%s", i, hgShort(b))
		}
	}
	waitFor(t, "the stream slots back", func() bool { return admissionMetric(t, s, "in_use", "streams") == 0 })
	hgAlive(t, s)
	// hgAlive's own stream gives its slot back after its last byte reaches
	// the client, so wait for it before counting the next stream's slot.
	waitFor(t, "hgAlive's stream slot back", func() bool { return admissionMetric(t, s, "in_use", "streams") == 0 })

	// A client that leaves mid-stream gives its slot back too.
	conn, err := net.Dial("tcp", hgHost(s.app.URL()))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(hgStreamRequest), hgStreamRequest)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := bufio.NewReader(conn).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	if got := admissionMetric(t, s, "in_use", "streams"); got != 1 {
		t.Fatalf("%v stream slots held during a stream, want 1", got)
	}
	conn.Close()
	waitFor(t, "the slot of a client that left", func() bool { return admissionMetric(t, s, "in_use", "streams") == 0 })
	if got := admissionMetric(t, s, "refused_total", "streams"); got != 1 {
		t.Fatalf("hookgate_admission_refused_total{limit=streams} = %v, want 1", got)
	}
}

// gatedPolicy is an http hook's policy server that holds every verdict
// until released, counting the calls it got.
type gatedPolicy struct {
	calls   atomic.Int64
	release chan struct{}
}

func (p *gatedPolicy) serve(t *testing.T) string {
	p.release = make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.calls.Add(1)
		select {
		case <-p.release:
		case <-r.Context().Done():
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"decision":"allow"}`))
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		select {
		case <-p.release:
		default:
			close(p.release)
		}
	})
	return srv.URL
}

func TestHardeningAdmissionHookLimit(t *testing.T) {
	var policy gatedPolicy
	url := policy.serve(t)
	s := startStack(t, `limits:
  max_concurrent_hooks: 2
timeouts:
  heartbeat: 100ms
hooks:
  - id: policy
    event: pre_tool_use
    matcher: "^exec$"
    timeout_ms: 20000
    on_timeout: allow
    handler: {type: http, url: `+url+`}
`)
	three := mockupstream.StreamSpec{TextDeltas: 1, ToolCalls: 3}
	s.mock.Enqueue(mockupstream.Stream(three.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	done := make(chan []byte, 1)
	go func() {
		_, _, b := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(hgStreamRequest), nil)
		done <- b
	}()
	// Two calls hold the two hook slots; the third waits its 250 ms for
	// one, is refused, and is blocked (on_timeout: allow does not apply:
	// the hook did not fail, hookgate did not run it).
	waitFor(t, "two hooks running", func() bool { return policy.calls.Load() == 2 })
	waitFor(t, "the third call refused", func() bool { return admissionMetric(t, s, "refused_total", "hooks") == 1 })

	// A new hooked request is refused at the door while the slots are
	// taken: no upstream request, no hook.
	status, h, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(hgStreamRequest), nil)
	checkRefused(t, status, h, body, "hook_limit_reached")
	if n := len(s.mock.Requests()); n != 1 {
		t.Fatalf("the upstream got %d requests, want 1", n)
	}

	close(policy.release)
	got := <-done
	if n := bytes.Count(got, []byte(`"name":"exec"`)); n != 2 {
		t.Fatalf("%d calls reached the client, want the 2 judged ones:\n%s", n, hgShort(got))
	}
	if !bytes.Contains(got, []byte("could not run: hookgate is at limits.max_concurrent_hooks (fail-closed)")) {
		t.Fatalf("the refused call's note is missing:\n%s", hgShort(got))
	}
	if n := policy.calls.Load(); n != 2 {
		t.Fatalf("the policy server judged %d calls, want 2", n)
	}

	// Recovered: the next request is judged and allowed.
	waitFor(t, "the hook slots back", func() bool { return admissionMetric(t, s, "in_use", "hooks") == 0 })
	s.mock.Enqueue(mockupstream.Stream(mockupstream.StreamSpec{TextDeltas: 1, ToolCalls: 1}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	if status, _, b := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(hgStreamRequest), nil); status != 200 || bytes.Count(b, []byte(`"name":"exec"`)) != 1 || bytes.Contains(b, []byte("[hookgate]")) {
		t.Fatalf("after the load: %d\n%s", status, hgShort(b))
	}
	if got := admissionMetric(t, s, "refused_total", "hooks"); got != 2 {
		t.Fatalf("hookgate_admission_refused_total{limit=hooks} = %v, want 2", got)
	}
}

func TestHardeningAdmissionPendingApprovalLimit(t *testing.T) {
	t.Setenv("E2E_ALICE_TOKEN", "tok-alice-secret")
	t.Setenv("E2E_OPS_SECRET", "ops-signing-secret")
	desk := &cardDesk{}
	mock := mockupstream.Start(t)
	doc := approvalConfig(mock.URL(), desk.serve(t), t.TempDir()+"/hookgate.db", 30) + "limits:\n  max_pending_approvals: 1\n"
	s := &stack{mock: mock, app: startApp(t, doc)}
	pay := func(session, args string) chan []byte {
		spec := mockupstream.StreamSpec{ID: "chatcmpl-pay", Texts: []string{"Paying."}, Calls: []mockupstream.ToolCall{{ID: "call_pay", Name: "pay", Arguments: args}}}
		s.mock.Enqueue(mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
		out := make(chan []byte, 1)
		go func() {
			_, _, b := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"pay"}]}`), map[string]string{"X-Session-Id": session})
			out <- b
		}()
		return out
	}
	pending := func() int {
		req, _ := http.NewRequest(http.MethodGet, s.app.AdminURL()+"/admin/approvals?status=pending", nil)
		req.Header.Set("Authorization", "Bearer tok-alice-secret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return strings.Count(b.String(), `"status":"pending"`)
	}

	first := pay("s-first", `{"amount":5000,"to":"acme"}`)
	id := desk.waitCard(t, 1)

	// A second question while one waits: blocked at once, nothing asked.
	second := <-pay("s-second", `{"amount":7,"to":"other"}`)
	if bytes.Contains(second, []byte(`"name":"pay"`)) || !bytes.Contains(second, []byte("could not run: hookgate is at limits.max_pending_approvals (fail-closed)")) {
		t.Fatalf("over the approval limit the call was not blocked with its note:\n%s", hgShort(second))
	}
	if desk.count() != 1 || pending() != 1 {
		t.Fatalf("%d cards, %d pending questions; want 1 and 1", desk.count(), pending())
	}
	if got := admissionMetric(t, s, "refused_total", "approvals"); got != 1 {
		t.Fatalf("hookgate_admission_refused_total{limit=approvals} = %v, want 1", got)
	}

	if status, body := adminPost(t, s.app.AdminURL()+"/admin/approvals/"+id+"/approve", "tok-alice-secret"); status != 200 {
		t.Fatalf("approve: %d %s", status, body)
	}
	if b := <-first; !bytes.Contains(b, []byte(`"name":"pay"`)) || bytes.Contains(b, []byte("[hookgate]")) {
		t.Fatalf("the approved call did not reach the client:\n%s", hgShort(b))
	}

	// Recovered: the refused call, asked again, gets its question.
	again := pay("s-second", `{"amount":7,"to":"other"}`)
	id2 := desk.waitCard(t, 2)
	if status, body := adminPost(t, s.app.AdminURL()+"/admin/approvals/"+id2+"/approve", "tok-alice-secret"); status != 200 {
		t.Fatalf("approve: %d %s", status, body)
	}
	if b := <-again; !bytes.Contains(b, []byte(`"name":"pay"`)) {
		t.Fatalf("the second call, asked again, did not go through:\n%s", hgShort(b))
	}
	if got := admissionMetric(t, s, "in_use", "approvals"); got != 0 {
		t.Fatalf("%v approval slots still held", got)
	}
}
