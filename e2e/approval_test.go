package e2e

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/store"
)

// cardDesk plays the ops channel's webhook receiver: it keeps every card
// hookgate posts.
type cardDesk struct {
	mu    sync.Mutex
	cards []map[string]any
}

func (d *cardDesk) serve(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		d.mu.Lock()
		d.cards = append(d.cards, m)
		d.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (d *cardDesk) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.cards)
}

// waitCard waits for the n-th card and returns its approval id.
func (d *cardDesk) waitCard(t *testing.T, n int) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for d.count() < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.cards) < n {
		t.Fatalf("card %d was never posted", n)
	}
	return d.cards[n-1]["approval_id"].(string)
}

func approvalConfig(mock, desk, dbPath string, timeoutS int) string {
	return `listen: 127.0.0.1:0
upstreams:
  - name: mock
    base_url: ` + mock + `
admin:
  listen: 127.0.0.1:0
  tokens:
    - {name: alice, token_env: E2E_ALICE_TOKEN}
store:
  path: ` + dbPath + `
timeouts:
  heartbeat: 100ms
channels:
  - name: ops
    type: webhook
    url: ` + desk + `
    secret_env: E2E_OPS_SECRET
hooks:
  - id: pay-approval
    event: pre_tool_use
    matcher: "^pay$"
    handler:
      type: builtin
      name: approval
      with: {channel: ops, timeout_s: ` + strconv.Itoa(timeoutS) + `}
`
}

var payment = mockupstream.StreamSpec{ID: "chatcmpl-pay", Texts: []string{"Paying."}, Calls: []mockupstream.ToolCall{
	{ID: "call_pay", Name: "pay", Arguments: `{"amount":5000,"to":"acme"}`},
}}

// adminPost calls the admin API with a bearer token ("" sends none).
func adminPost(t *testing.T, url, token string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func approvalStack(t *testing.T, timeoutS int) (*stack, *cardDesk, string) {
	t.Setenv("E2E_ALICE_TOKEN", "tok-alice-secret")
	t.Setenv("E2E_OPS_SECRET", "ops-signing-secret")
	desk := &cardDesk{}
	db := filepath.Join(t.TempDir(), "hookgate.db")
	mock := mockupstream.Start(t)
	return &stack{mock: mock, app: startApp(t, approvalConfig(mock.URL(), desk.serve(t), db, timeoutS))}, desk, db
}

func TestApprovalHoldsTheStreamUntilApproved(t *testing.T) {
	s, desk, db := approvalStack(t, 30)
	s.mock.Enqueue(mockupstream.Stream(payment.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	type result struct {
		body []byte
	}
	done := make(chan result, 1)
	go func() {
		_, _, b := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"pay acme"}]}`), map[string]string{"X-Session-Id": "s-pay"})
		done <- result{b}
	}()
	id := desk.waitCard(t, 1)

	// The admin API refuses a missing or wrong token.
	if status, _ := adminPost(t, s.app.AdminURL()+"/admin/approvals/"+id+"/approve", ""); status != 401 {
		t.Fatalf("no token: %d", status)
	}
	if status, _ := adminPost(t, s.app.AdminURL()+"/admin/approvals/"+id+"/approve", "tok-wrong"); status != 401 {
		t.Fatalf("wrong token: %d", status)
	}
	time.Sleep(300 * time.Millisecond) // the call is held meanwhile, with heartbeats
	status, body := adminPost(t, s.app.AdminURL()+"/admin/approvals/"+id+"/approve", "tok-alice-secret")
	if status != 200 || !strings.Contains(string(body), `"responded_by":"alice"`) {
		t.Fatalf("approve: %d %s", status, body)
	}
	r := <-done
	if !bytes.Contains(r.body, []byte(`"name":"pay"`)) || bytes.Contains(r.body, []byte("[hookgate]")) {
		t.Fatalf("the approved call did not reach the client:\n%s", r.body)
	}
	if n := bytes.Count(r.body, []byte(": hookgate: holding")); n < 2 {
		t.Fatalf("%d heartbeats while the call waited for a person", n)
	}
	// A second answer loses and says who won.
	if status, body := adminPost(t, s.app.AdminURL()+"/admin/approvals/"+id+"/reject", "tok-alice-secret"); status != 409 {
		t.Fatalf("second answer: %d %s", status, body)
	}

	// The audit has the execution once, as an allow.
	s.app.Close()
	st, err := store.Open(context.Background(), store.Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.ListExecutions(context.Background(), store.ExecutionFilter{SessionID: "s-pay"})
	if err != nil || len(rows) != 1 || rows[0].Decision != "allow" || rows[0].HookID != "pay-approval" {
		t.Fatalf("audit rows %+v %v", rows, err)
	}
}

func TestApprovalRejectedThroughTheChannelCallback(t *testing.T) {
	s, desk, _ := approvalStack(t, 30)
	s.mock.Enqueue(mockupstream.Stream(payment.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	done := make(chan assembled, 1)
	go func() { done <- goOpenAIStream(t, s.app.URL()) }()
	id := desk.waitCard(t, 1)

	callback := func(secret string) int {
		body := []byte(`{"approval_id":"` + id + `","decision":"reject","user":"U-bob"}`)
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(ts + "."))
		mac.Write(body)
		req, _ := http.NewRequest(http.MethodPost, s.app.AdminURL()+"/callbacks/ops", bytes.NewReader(body))
		req.Header.Set("X-Hookgate-Timestamp", ts)
		req.Header.Set("X-Hookgate-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if status := callback("forged-secret"); status == 200 {
		t.Fatal("a forged callback was accepted")
	}
	if status := callback("ops-signing-secret"); status != 200 {
		t.Fatalf("genuine callback: %d", status)
	}
	got := <-done
	if len(got.ToolCalls) != 0 || !strings.Contains(got.Content, "blocked by pay-approval: rejected by U-bob") {
		t.Fatalf("rejected call: %s", got)
	}
}

func TestApprovalExpiresAndBlocks(t *testing.T) {
	s, desk, _ := approvalStack(t, 1)
	s.mock.Enqueue(mockupstream.Stream(payment.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	got := goOpenAIStream(t, s.app.URL())
	if desk.count() != 1 {
		t.Fatalf("%d cards", desk.count())
	}
	if len(got.ToolCalls) != 0 || !strings.Contains(got.Content, "nobody approved pay within 1s") {
		t.Fatalf("expired call: %s", got)
	}
	resp, err := http.NewRequest(http.MethodGet, s.app.AdminURL()+"/admin/approvals?status=expired", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Header.Set("Authorization", "Bearer tok-alice-secret")
	r, err := http.DefaultClient.Do(resp)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if !strings.Contains(string(b), `"status":"expired"`) || strings.Contains(string(b), "responded_by") {
		t.Fatalf("expired list: %s", b)
	}
}
