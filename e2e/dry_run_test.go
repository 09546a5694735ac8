package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/store"
)

// dryRunPolicy would block call_rm of mixedBatch if it were enforced.
const dryRunPolicy = `hooks:
  - id: dry-no-rm
    event: pre_tool_use
    matcher: "^exec$"
    dry_run: true
    handler:
      type: builtin
      name: deny_patterns
      with: {defaults: [shell]}
`

// dryRunExchange sends mixedBatch through s, streamed and plain, and
// returns both bodies as the client read them.
func dryRunExchange(t *testing.T, s *stack) (streamed, plain []byte) {
	t.Helper()
	s.mock.Enqueue(mockupstream.Stream(mixedBatch.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	code, _, streamed := rawPost(t, s.app.URL(), "/v1/chat/completions",
		[]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"clean up"}]}`), map[string]string{"X-Session-Id": "dry-1"})
	if code != http.StatusOK {
		t.Fatalf("streamed: status %d: %s", code, streamed)
	}
	s.mock.Enqueue(mockupstream.JSON(200, mixedBatch.Completion()))
	code, _, plain = rawPost(t, s.app.URL(), "/v1/chat/completions",
		[]byte(`{"model":"m","messages":[{"role":"user","content":"clean up"}]}`), map[string]string{"X-Session-Id": "dry-2"})
	if code != http.StatusOK {
		t.Fatalf("plain: status %d: %s", code, plain)
	}
	return streamed, plain
}

func TestDryRunHookChangesNothingTheClientReads(t *testing.T) {
	bare := startStack(t, "")
	wantStreamed, wantPlain := dryRunExchange(t, bare)
	if !bytes.Contains(wantStreamed, []byte("call_rm")) || !bytes.Contains(wantPlain, []byte("call_rm")) {
		t.Fatalf("the no-hook run lacks the destructive call:\n%s\n%s", wantStreamed, wantPlain)
	}

	dbPath := filepath.Join(t.TempDir(), "audit.db")
	s := startStack(t, dryRunPolicy+"store:\n  path: "+dbPath+"\n")
	gotStreamed, gotPlain := dryRunExchange(t, s)
	if !bytes.Equal(gotStreamed, wantStreamed) {
		t.Errorf("streamed bytes differ from the no-hook run:\n got %q\nwant %q", gotStreamed, wantStreamed)
	}
	if !bytes.Equal(gotPlain, wantPlain) {
		t.Errorf("plain bytes differ from the no-hook run:\n got %q\nwant %q", gotPlain, wantPlain)
	}

	// The audit: one would_block (call_rm) and one would_allow (call_ls)
	// per exchange, with the tool's name and the reason, never the
	// arguments.
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Path: dbPath})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var rows []store.Execution
	deadline := time.Now().Add(60 * time.Second)
	for {
		rows, err = st.ListExecutions(ctx, store.ExecutionFilter{HookID: "dry-no-rm"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) >= 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	decisions := map[string]int{}
	for _, x := range rows {
		decisions[x.Decision]++
		if x.Tool != "exec" {
			t.Errorf("row %s: tool %q, want exec", x.ID, x.Tool)
		}
		if x.Decision == "would_block" && x.Reason == "" {
			t.Errorf("row %s: would_block without a reason", x.ID)
		}
		if strings.Contains(x.Reason, "no-preserve-root") {
			t.Errorf("row %s: the reason quotes the arguments: %q", x.ID, x.Reason)
		}
	}
	if decisions["would_block"] != 2 || decisions["would_allow"] != 2 || len(rows) != 4 {
		t.Fatalf("audit decisions %v (%d rows), want 2 would_block and 2 would_allow", decisions, len(rows))
	}
	raw, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("no-preserve-root")) {
		t.Error("the store file holds the tool's arguments")
	}

	for _, want := range []string{
		`hookgate_hook_decisions_total{decision="would_block",event="pre_tool_use",hook="dry-no-rm"} 2`,
		`hookgate_hook_decisions_total{decision="would_allow",event="pre_tool_use",hook="dry-no-rm"} 2`,
		`hookgate_dry_run_hook_duration_seconds_count{decision="would_block",event="pre_tool_use",hook="dry-no-rm"} 2`,
		`hookgate_tool_calls_total{decision="allow",tool="exec"} 4`,
	} {
		if text := metricsText(t, s); !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if text := metricsText(t, s); strings.Contains(text, `hookgate_hook_duration_seconds_count{decision="would_block"`) {
		t.Error("a dry run's cost is counted as a request-path hook's")
	}
}

func metricsText(t *testing.T, s *stack) string {
	t.Helper()
	resp, err := http.Get(s.app.AdminURL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

func TestDryRunApprovalPostsNoCardAndHoldsNothing(t *testing.T) {
	t.Setenv("E2E_ALICE_TOKEN", "tok-alice-secret")
	t.Setenv("E2E_OPS_SECRET", "ops-signing-secret")
	desk := &cardDesk{}
	db := filepath.Join(t.TempDir(), "hookgate.db")
	mock := mockupstream.Start(t)
	doc := strings.Replace(approvalConfig(mock.URL(), desk.serve(t), db, 600), "    matcher: \"^pay$\"\n", "    matcher: \"^pay$\"\n    dry_run: true\n", 1)
	s := &stack{mock: mock, app: startApp(t, doc)}

	s.mock.Enqueue(mockupstream.Stream(payment.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	code, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions",
		[]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"pay acme"}]}`), map[string]string{"X-Session-Id": "s-pay"})
	if code != http.StatusOK || !bytes.Contains(body, []byte("call_pay")) {
		t.Fatalf("status %d: the call was not let through at once:\n%s", code, body)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var rows []store.Execution
	deadline := time.Now().Add(60 * time.Second)
	for len(rows) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if rows, err = st.ListExecutions(ctx, store.ExecutionFilter{HookID: "pay-approval"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(rows) != 1 || rows[0].Decision != "would_ask" || rows[0].Tool != "pay" {
		t.Fatalf("audit rows %+v, want one would_ask on pay", rows)
	}
	pending, err := st.ListConfirmations(ctx, store.Pending, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 0 || desk.count() != 0 {
		t.Errorf("a dry-run approval asked: %d pending questions, %d cards", len(pending), desk.count())
	}
}

// dryRunContributing would inject a session context and append a
// disclaimer if it were enforced.
const dryRunContributing = `hooks:
  - id: dry-context
    event: session_start
    dry_run: true
    handler: {type: builtin, name: inject_context, with: {text: "DRY-CONTEXT-CANARY"}}
  - id: dry-disclaimer
    event: pre_response
    dry_run: true
    handler: {type: builtin, name: disclaimer, with: {text: "DRY-DISCLAIMER-CANARY"}}
`

func TestDryRunContributingHooksInjectAndAppendNothing(t *testing.T) {
	answer := mockupstream.StreamSpec{TextDeltas: 4, Usage: true}
	exchange := func(s *stack) (upstreamBody, streamed, plain []byte) {
		s.mock.Enqueue(mockupstream.Stream(answer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
		code, _, streamed := rawPost(t, s.app.URL(), "/v1/chat/completions",
			[]byte(`{"model":"m","stream":true,"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}`), map[string]string{"X-Session-Id": "ctx-1"})
		if code != http.StatusOK {
			t.Fatalf("streamed: status %d: %s", code, streamed)
		}
		s.mock.Enqueue(mockupstream.JSON(200, answer.Completion()))
		code, _, plain = rawPost(t, s.app.URL(), "/v1/chat/completions",
			[]byte(`{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}`), map[string]string{"X-Session-Id": "ctx-2"})
		if code != http.StatusOK {
			t.Fatalf("plain: status %d: %s", code, plain)
		}
		reqs := s.mock.Requests()
		return reqs[len(reqs)-1].Body, streamed, plain
	}
	_, wantStreamed, wantPlain := exchange(startStack(t, ""))

	dbPath := filepath.Join(t.TempDir(), "audit.db")
	s := startStack(t, dryRunContributing+"store:\n  path: "+dbPath+"\n")
	sent, gotStreamed, gotPlain := exchange(s)
	if bytes.Contains(sent, []byte("DRY-CONTEXT-CANARY")) {
		t.Errorf("the dry-run context reached the upstream: %s", sent)
	}
	if !bytes.Equal(gotStreamed, wantStreamed) || !bytes.Equal(gotPlain, wantPlain) {
		t.Errorf("answers differ from the no-hook run:\n got %q\n     %q\nwant %q\n     %q", gotStreamed, gotPlain, wantStreamed, wantPlain)
	}

	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Path: dbPath})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		n, err := st.CountExecutions(ctx, store.ExecutionFilter{Decision: "would_rewrite"})
		if err != nil {
			t.Fatal(err)
		}
		if n >= 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, hook := range []string{"dry-context", "dry-disclaimer"} {
		rows, err := st.ListExecutions(ctx, store.ExecutionFilter{HookID: hook})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 {
			t.Errorf("%s: %d rows, want 2 (one per session)", hook, len(rows))
		}
		for _, x := range rows {
			if x.Decision != "would_rewrite" {
				t.Errorf("%s: decision %s, want would_rewrite", hook, x.Decision)
			}
		}
	}
}
