package e2e

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/internal/testenv"
)

// TestApprovalAnsweredThroughAnotherInstance runs two hookgate instances
// on one PostgreSQL store: a call held by the first is released by an
// answer given through the second's admin API.
func TestApprovalAnsweredThroughAnotherInstance(t *testing.T) {
	dsn := testenv.Postgres(t)
	t.Setenv("E2E_ALICE_TOKEN", "tok-alice-secret")
	t.Setenv("E2E_OPS_SECRET", "ops-signing-secret")
	t.Setenv("E2E_PG_DSN", dsn)
	desk := &cardDesk{}
	deskURL := desk.serve(t)
	mock := mockupstream.Start(t)
	mock.Handle(mockupstream.Always(mockupstream.Stream(payment.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})))
	doc := strings.Replace(approvalConfig(mock.URL(), deskURL, "unused", 60), "store:\n  path: unused\n", "store:\n  driver: postgres\n  dsn: ${E2E_PG_DSN}\n", 1)
	a, b := startApp(t, doc), startApp(t, doc)

	held := make(chan []byte, 1)
	// The database outlives test runs: a session of its own every run.
	session := map[string]string{"X-Session-Id": "s-two-instances-" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	go func() {
		_, _, body := rawPost(t, a.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"pay"}]}`), session)
		held <- body
	}()
	id := desk.waitCard(t, 1)
	if status, body := adminPost(t, b.AdminURL()+"/admin/approvals/"+id+"/approve", "tok-alice-secret"); status != 200 {
		t.Fatalf("approve through the second instance: %d %s", status, body)
	}
	body := <-held
	if !bytes.Contains(body, []byte(`"name":"pay"`)) {
		t.Fatalf("the call held by the first instance was not released:\n%s", body)
	}
}
