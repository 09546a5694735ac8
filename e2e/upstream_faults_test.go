package e2e

// Hardening, faults: an upstream that dies, stalls, errors or
// rate-limits, and hooks that hang, crash or answer junk, never let a call
// through, never replay a request after its first byte, and always tell
// the client.

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/fixtures"
	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/store"
)

// hgCut is a streamed response cut after the first n bytes of body.
func hgCut(body []byte, n int) mockupstream.Response {
	r := mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent})
	r.Fault, r.FaultAt = mockupstream.Cut, n
	return r
}

func TestHardeningUpstreamDiesBeforeTheFirstByte(t *testing.T) {
	s := startStack(t, denyShell)
	s.mock.Enqueue(hgCut(mockupstream.StreamSpec{TextDeltas: 2}.SSE(), 0))
	status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(hgStreamRequest), nil)
	if status != 502 {
		t.Fatalf("status %d: %s", status, body)
	}
	checkOpenAIError(t, body, "upstream_unreachable")
	if n := len(s.mock.Requests()); n != 1 {
		t.Fatalf("the upstream saw %d requests, want 1 (no retry budget is configured)", n)
	}
}

func TestHardeningUpstreamDiesAfterText(t *testing.T) {
	s, log := hgStack(t, denyShell)
	full := mockupstream.StreamSpec{TextDeltas: 6}.SSE()
	cut := bytes.Index(full, []byte("look")) // inside the fourth event
	s.mock.Enqueue(hgCut(full, cut))
	status, body := hgPostStream(t, s, nil)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	relayed := full[:bytes.LastIndex(full[:cut], []byte("\n\n"))+2]
	if !bytes.HasPrefix(body, relayed) {
		t.Fatalf("the events before the cut were not relayed as they came:\n%s", body)
	}
	hgEndsWithError(t, body, "stream_truncated")
	if bytes.Contains(body, []byte(`"finish_reason":"`)) {
		t.Fatalf("a finish was invented:\n%s", body)
	}
	if n := len(s.mock.Requests()); n != 1 {
		t.Fatalf("the request was replayed after its first byte: %d upstream requests", n)
	}
	if !strings.Contains(log.String(), "upstream stream truncated") {
		t.Fatalf("the truncation is not in the log:\n%s", log)
	}
}

// The upstream dies while one call is being judged (a slow hook) and the
// next is still arriving: neither is ever emitted, the judgement is
// cancelled, and the request is not replayed even with on_block: retry.
func TestHardeningUpstreamDiesWhileACallIsHeld(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "slow.sh")
	// The hook takes 6 s: telling the truncation well before that shows
	// it did not wait for the judgement, with room for a loaded machine.
	writeExecutable(t, script, "#!/bin/sh\ncat >/dev/null\nsleep 6\necho '{\"decision\":\"allow\"}'\n")
	db := filepath.Join(dir, "hookgate.db")
	s, log := hgStack(t, "interception:\n  on_block: retry\ntimeouts:\n  heartbeat: 100ms\nstore:\n  path: "+db+"\nhooks:\n  - id: slow\n    event: pre_tool_use\n    timeout_ms: 10000\n    handler:\n      type: command\n      command: ["+script+"]\n")
	body := hgSSE(
		hgChunk(`{"role":"assistant","content":"working"}`, ""),
		hgChunk(hgCall(0, "call_done", "exec", `{"command":"ls"}`), ""),
		hgChunk(hgCall(1, "call_partial", "exec", `{"command":"rm -rf`), ""),
		hgChunk(hgCall(1, "", "", ` /"}`), ""),
		hgChunk(`{}`, "tool_calls"),
	)
	cut := bytes.Index(body, []byte(` /\"}`)) // inside the partial call's last fragment
	r := hgCut(body, cut)
	r.Chunking.Interval = 50 * time.Millisecond
	s.mock.Enqueue(r)
	start := time.Now()
	status, got := hgPostStream(t, s, map[string]string{"X-Session-Id": "s-cut"})
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	hgEndsWithError(t, got, "stream_truncated")
	if bytes.Contains(got, []byte("call_partial")) || bytes.Contains(got, []byte("call_done")) || bytes.Contains(got, []byte(`"finish_reason":"`)) {
		t.Fatalf("a held call or a finish went out on a truncated stream:\n%s", got)
	}
	if !bytes.Contains(got, []byte(`"content":"working"`)) {
		t.Fatalf("the text before the cut was not relayed:\n%s", got)
	}
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("the truncation was told after %s: it waited for the slow hook", took)
	}
	if n := len(s.mock.Requests()); n != 1 {
		t.Fatalf("%d upstream requests: a truncated stream was retried", n)
	}
	if !strings.Contains(log.String(), "upstream stream truncated") {
		t.Fatalf("the truncation is not in the log:\n%s", log)
	}
	// The audit: what does it say about this session?
	s.app.Close()
	st, err := store.Open(context.Background(), store.Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.ListExecutions(context.Background(), store.ExecutionFilter{SessionID: "s-cut"})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, r := range rows {
		seen = append(seen, fmt.Sprintf("%s/%s/%s %q", r.HookID, r.Event, r.Decision, r.Error))
		if r.Decision == "allow" {
			t.Fatalf("the audit records an allow for a call that never went out: %+v", r)
		}
	}
	t.Logf("audit rows for the truncated session: %v", seen)
	truncation := false
	for _, r := range rows {
		if r.HookID == hooks.IncidentHookID && r.Event == string(hooks.Stop) && r.Decision == "error" && strings.Contains(strings.ToLower(r.Error), "truncat") {
			truncation = true
		}
	}
	if !truncation {
		t.Fatalf("the audit does not record the truncation (want a %s/stop/error row whose error names it): rows %v", hooks.IncidentHookID, seen)
	}
}

func TestHardeningInBandErrorsArePassedOn(t *testing.T) {
	s := startStack(t, denyShell)
	for _, rel := range []string{"groq/chat-gptoss-error-event-midstream.sse", "openrouter/chat-minimax-error-chunk-midstream.sse"} {
		t.Run(rel, func(t *testing.T) {
			rec, err := os.ReadFile(filepath.Join(fixtures.Dir(t), rel))
			if err != nil {
				t.Fatal(err)
			}
			s.mock.Enqueue(mockupstream.Stream(rec, mockupstream.Chunking{Mode: mockupstream.PerEvent}))
			status, body := hgPostStream(t, s, nil)
			if status != 200 || !bytes.Equal(body, rec) {
				t.Fatalf("status %d; the stream with an in-band error was changed:\n got %q\nwant %q", status, body, rec)
			}
			if strings.HasPrefix(rel, "groq/") {
				s.mock.Enqueue(mockupstream.Stream(rec, mockupstream.Chunking{Mode: mockupstream.PerEvent}))
				if a := goOpenAIStream(t, s.app.URL()); a.Err == "" {
					t.Fatalf("go-openai saw no error: %s", a)
				}
			}
		})
	}
}

func TestHardeningRateLimitsPassThroughIntactAndAreNotRetried(t *testing.T) {
	s := startStack(t, denyShell+"interception:\n  on_block: retry\n")
	for _, r := range []mockupstream.Response{mockupstream.RateLimited(17), func() mockupstream.Response {
		r := mockupstream.Error(503, "server_error", "overloaded")
		r.Header.Set("Retry-After", "3")
		r.Header.Set("X-Ratelimit-Reset-Requests", "3s")
		return r
	}()} {
		before := len(s.mock.Requests())
		s.mock.Enqueue(r)
		status, header, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(hgStreamRequest), nil)
		if status != r.Status || header.Get("Retry-After") != r.Header.Get("Retry-After") || !bytes.Equal(body, r.Body) {
			t.Fatalf("got %d Retry-After=%q %s; want %d %q %s", status, header.Get("Retry-After"), body, r.Status, r.Header.Get("Retry-After"), r.Body)
		}
		if v := r.Header.Get("X-Ratelimit-Reset-Requests"); v != "" && header.Get("X-Ratelimit-Reset-Requests") != v {
			t.Fatalf("rate-limit headers were dropped: %v", header)
		}
		if n := len(s.mock.Requests()) - before; n != 1 {
			t.Fatalf("%d upstream requests for one %d", n, r.Status)
		}
	}
}

// timeouts.first_byte and timeouts.idle are separate: a slow first byte
// within first_byte is fine although it exceeds idle, a stall between
// events beyond idle is cut although within first_byte.
func TestHardeningFirstByteAndIdleTimeouts(t *testing.T) {
	t.Run("first byte", func(t *testing.T) {
		s := startStack(t, denyShell+"timeouts:\n  first_byte: 400ms\n  idle: 10s\n")
		s.mock.Enqueue(mockupstream.Response{Fault: mockupstream.Hang})
		start := time.Now()
		status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(hgStreamRequest), nil)
		took := time.Since(start)
		if status != 504 {
			t.Fatalf("status %d after %s: %s", status, took, body)
		}
		checkOpenAIError(t, body, "upstream_timeout")
		if took < 350*time.Millisecond || took > 5*time.Second {
			t.Fatalf("gave up after %s, first_byte is 400ms", took)
		}
		// A first byte after 700 ms is fine when first_byte allows it, even
		// with a 300 ms idle timeout.
		s2 := startStack(t, denyShell+"timeouts:\n  first_byte: 3s\n  idle: 300ms\n")
		r := mockupstream.Stream(mockupstream.StreamSpec{TextDeltas: 3}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})
		r.Latency = 700 * time.Millisecond
		s2.mock.Enqueue(r)
		if status, body := hgPostStream(t, s2, nil); status != 200 || !bytes.HasSuffix(body, []byte("[DONE]\n\n")) {
			t.Fatalf("a first byte within first_byte but beyond idle failed: %d\n%s", status, body)
		}
	})
	t.Run("idle", func(t *testing.T) {
		s := startStack(t, denyShell+"timeouts:\n  first_byte: 10s\n  idle: 400ms\n")
		full := mockupstream.StreamSpec{TextDeltas: 4}.SSE()
		r := mockupstream.Stream(full, mockupstream.Chunking{Mode: mockupstream.PerEvent})
		r.Fault, r.FaultAt = mockupstream.Stall, bytes.Index(full, []byte("look"))
		s.mock.Enqueue(r)
		start := time.Now()
		status, body := hgPostStream(t, s, nil)
		took := time.Since(start)
		if status != 200 {
			t.Fatalf("status %d", status)
		}
		hgEndsWithError(t, body, "stream_truncated")
		if !bytes.Contains(body, []byte(`"content":"me "`)) {
			t.Fatalf("the events before the stall were not relayed:\n%s", body)
		}
		if took < 350*time.Millisecond || took > 5*time.Second {
			t.Fatalf("a stall was cut after %s, idle is 400ms", took)
		}
		// A steady stream longer than idle and first_byte together passes.
		s2 := startStack(t, denyShell+"timeouts:\n  first_byte: 400ms\n  idle: 400ms\n")
		s2.mock.Enqueue(mockupstream.Stream(mockupstream.StreamSpec{TextDeltas: 8}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: 150 * time.Millisecond}))
		if status, body := hgPostStream(t, s2, nil); status != 200 || !bytes.HasSuffix(body, []byte("[DONE]\n\n")) {
			t.Fatalf("a steady 1.5 s stream failed under 400 ms timeouts: %d\n%s", status, body)
		}
	})
}

// Every way a hook can fail blocks its call (fail closed), quickly, and the
// other calls of the response are unaffected. Each failing hook has a tool
// of its own; one response calls them all at once.
func TestHardeningFailingHooksBlock(t *testing.T) {
	dir := t.TempDir()
	sh := func(name, body string) string {
		p := filepath.Join(dir, name)
		writeExecutable(t, p, "#!/bin/sh\n"+body+"\n")
		return p
	}
	hang := sh("hang.sh", "cat >/dev/null; sleep 30")
	crash := sh("crash.sh", "cat >/dev/null; kill -SEGV $$")
	exit1 := sh("exit1.sh", "cat >/dev/null; echo '{\"decision\":\"allow\"}'; exit 1")
	flood := sh("flood.sh", "cat >/dev/null; head -c 64000000 /dev/zero")
	junk := sh("junk.sh", "cat >/dev/null; echo 'sure, go ahead'")
	typo := sh("typo.sh", "cat >/dev/null; echo '{\"decison\":\"block\"}'")
	forked := sh("forked.sh", "cat >/dev/null; (sleep 30 &) ; echo '{\"decision\":\"allow\",'")

	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	down := "http://" + closed.Addr().String()
	closed.Close()
	policy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/500":
			http.Error(w, "boom", 500)
		case "/redirect":
			http.Redirect(w, r, "/allow", http.StatusFound)
		case "/allow":
			w.Write([]byte(`{"decision":"allow"}`))
		case "/junk":
			w.Write([]byte(`<html>allow</html>`))
		case "/slow":
			io.Copy(io.Discard, r.Body) // so that the server notices the client leaving
			select {
			case <-time.After(10 * time.Second):
			case <-r.Context().Done():
			}
			w.Write([]byte(`{"decision":"allow"}`))
		case "/v1/chat/completions": // a judge that answers prose
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id":"j","object":"chat.completion","created":1,"model":"judge","choices":[{"index":0,"message":{"role":"assistant","content":"I think this is allowed."},"finish_reason":"stop"}]}`))
		}
	}))
	t.Cleanup(policy.Close)

	hooks := map[string]string{ // tool -> handler YAML
		"t_hang":      "type: command\n      command: [" + hang + "]",
		"t_crash":     "type: command\n      command: [" + crash + "]",
		"t_exit1":     "type: command\n      command: [" + exit1 + "]",
		"t_flood":     "type: command\n      command: [" + flood + "]",
		"t_junk":      "type: command\n      command: [" + junk + "]",
		"t_typo":      "type: command\n      command: [" + typo + "]",
		"t_forked":    "type: command\n      command: [" + forked + "]",
		"t_down":      "type: http\n      url: " + down + "/verdict",
		"t_500":       "type: http\n      url: " + policy.URL + "/500",
		"t_redirect":  "type: http\n      url: " + policy.URL + "/redirect",
		"t_htmljunk":  "type: http\n      url: " + policy.URL + "/junk",
		"t_slowhttp":  "type: http\n      url: " + policy.URL + "/slow",
		"t_judgedown": "type: prompt\n      upstream: deadjudge\n      model: judge\n      instruction: block anything risky",
		"t_prose":     "type: prompt\n      upstream: prosejudge\n      model: judge\n      instruction: block anything risky",
		"t_throw":     "type: script\n      source: |\n        function handle(e) { throw new Error('boom'); }",
		"t_loop":      "type: script\n      source: |\n        function handle(e) { for (;;) {} }",
		"t_noresult":  "type: script\n      source: |\n        function handle(e) { return 42; }",
	}
	mock := mockupstream.Start(t)
	var b strings.Builder
	b.WriteString("listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: mock\n    base_url: " + mock.URL() +
		"\n  - name: deadjudge\n    base_url: " + down + "\n  - name: prosejudge\n    base_url: " + policy.URL + "\nhooks:\n")
	var calls []mockupstream.ToolCall
	for tool, handler := range hooks {
		fmt.Fprintf(&b, "  - id: h-%s\n    event: pre_tool_use\n    matcher: \"^%s$\"\n    timeout_ms: 700\n    handler:\n      %s\n", tool, tool, handler)
		calls = append(calls, mockupstream.ToolCall{ID: "call_" + tool, Name: tool, Arguments: `{"x":1}`})
	}
	calls = append(calls, mockupstream.ToolCall{ID: "call_t_ok", Name: "t_ok", Arguments: `{"x":1}`})
	a, log := hgStartApp(t, b.String())
	s := &stack{mock: mock, app: a}

	mock.Enqueue(mockupstream.Stream(mockupstream.StreamSpec{Calls: calls}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	start := time.Now()
	status, body := hgPostStream(t, s, nil)
	took := time.Since(start)
	if status != 200 || !bytes.HasSuffix(body, []byte("data: [DONE]\n\n")) {
		t.Fatalf("status %d:\n%s", status, hgShort(body))
	}
	for tool := range hooks {
		if bytes.Contains(body, []byte(`"id":"call_`+tool+`"`)) {
			t.Errorf("%s: a failing hook let its call through", tool)
		}
		if !bytes.Contains(body, []byte("tool call "+tool+" blocked by h-"+tool)) {
			t.Errorf("%s: no block note", tool)
		}
	}
	if !bytes.Contains(body, []byte(`"id":"call_t_ok"`)) {
		t.Errorf("the call without a hook did not go through")
	}
	t.Logf("%d failing hooks judged concurrently in %s (timeouts 700 ms)", len(hooks), took.Round(time.Millisecond))
	if took > 6*time.Second {
		t.Errorf("failing hooks held the response for %s", took)
	}
	var text strings.Builder
	for _, ev := range hgEvents(body) {
		text.WriteString(gjson.Get(ev, "choices.0.delta.content").String())
	}
	t.Logf("block notes:\n%s", text.String())
	if strings.Contains(log.String(), "panic") {
		t.Fatalf("a panic was logged:\n%s", log)
	}
	hgAlive(t, s)
}

// hgBreakTable makes every statement on one table of an app's SQLite
// store fail at once (the table is renamed away), as a store that has gone
// away does; the returned function puts it back.
func hgBreakTable(t *testing.T, path, table string) (restore func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("ALTER TABLE " + table + " RENAME TO " + table + "_away"); err != nil {
		t.Fatal(err)
	}
	done := false
	restore = func() {
		if !done {
			done = true
			if _, err := db.Exec("ALTER TABLE " + table + "_away RENAME TO " + table); err != nil {
				t.Errorf("restore %s: %v", table, err)
			}
			db.Close()
		}
	}
	t.Cleanup(restore)
	return restore
}

// The store down: approvals fail closed, at once when the store errors and
// after SQLite's busy timeout when another writer holds its lock; the audit
// follows its queue policy (block: a 503 with Retry-After once the queue is
// full past max_wait, and service again once the store is back; drop:
// requests go on, drops counted).
func TestHardeningStoreDown(t *testing.T) {
	t.Setenv("E2E_ALICE_TOKEN", "tok-alice-secret")
	t.Setenv("E2E_OPS_SECRET", "ops-signing-secret")
	desk := &cardDesk{}
	deskURL := desk.serve(t)
	pay := func(t *testing.T, breakStore func(db string)) {
		db := filepath.Join(t.TempDir(), "hookgate.db")
		mock := mockupstream.Start(t)
		a, _ := hgStartApp(t, approvalConfig(mock.URL(), deskURL, db, 30)+"audit:\n  on_full: drop\n")
		breakStore(db)
		mock.Enqueue(mockupstream.Stream(payment.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
		start := time.Now()
		_, _, body := rawPost(t, a.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"pay acme"}]}`), map[string]string{"X-Session-Id": "s-down"})
		if bytes.Contains(body, []byte(`"name":"pay"`)) {
			t.Fatalf("a payment went through without its approval while the store was down:\n%s", hgShort(body))
		}
		if !bytes.Contains(body, []byte("tool call pay blocked by pay-approval")) {
			t.Fatalf("no block:\n%s", hgShort(body))
		}
		var note string
		for _, ev := range hgEvents(body) {
			note += gjson.Get(ev, "choices.0.delta.content").String()
		}
		t.Logf("refused after %s: %q", time.Since(start).Round(time.Millisecond), strings.TrimSpace(note))
	}
	t.Run("approval, store failing", func(t *testing.T) {
		pay(t, func(db string) { hgBreakTable(t, db, "confirmation_requests") })
	})
	t.Run("approval, store locked", func(t *testing.T) {
		if testing.Short() {
			t.Skip("waits out SQLite's 5 s busy timeout")
		}
		pay(t, func(db string) {
			sqlDB, err := sql.Open("sqlite", "file:"+db)
			if err != nil {
				t.Fatal(err)
			}
			conn, err := sqlDB.Conn(context.Background())
			if err == nil {
				_, err = conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				conn.ExecContext(context.Background(), "ROLLBACK")
				conn.Close()
				sqlDB.Close()
			})
		})
	})
	t.Run("audit block", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "hookgate.db")
		s, _ := hgStack(t, allowEveryTool+"store:\n  path: "+db+"\naudit:\n  on_full: block\n  queue_size: 2\n  max_wait: 200ms\n")
		s.mock.Handle(mockupstream.Always(mockupstream.Stream(mockupstream.StreamSpec{ToolCalls: 2}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})))
		restore := hgBreakTable(t, db, "hook_executions")
		refused, served := 0, 0
		var retryAfter string
		for i := 0; refused == 0 && i < 30; i++ {
			status, header, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(hgStreamRequest), map[string]string{"X-Session-Id": fmt.Sprint("s-", i)})
			switch status {
			case 503:
				refused++
				retryAfter = header.Get("Retry-After")
				checkOpenAIError(t, body, "audit_unavailable")
			case 200:
				served++
			default:
				t.Fatalf("status %d: %s", status, body)
			}
		}
		t.Logf("the audit store failing under on_full: block: %d served, then a 503 with Retry-After %q", served, retryAfter)
		if refused == 0 || retryAfter == "" {
			t.Fatalf("no 503 with Retry-After while the audit could not write (served %d)", served)
		}
		upstream := len(s.mock.Requests())
		if status, _, _ := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(hgStreamRequest), nil); status != 503 || len(s.mock.Requests()) != upstream {
			t.Fatalf("a refused request reached the upstream or was served (%d)", status)
		}
		restore()
		deadline := time.Now().Add(15 * time.Second)
		for {
			status, _, _ := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(hgStreamRequest), nil)
			if status == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("still %d 15 s after the store came back", status)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	t.Run("audit drop", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "hookgate.db")
		s, _ := hgStack(t, allowEveryTool+"store:\n  path: "+db+"\naudit:\n  on_full: drop\n  queue_size: 2\n")
		s.mock.Handle(mockupstream.Always(mockupstream.Stream(mockupstream.StreamSpec{ToolCalls: 2}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})))
		hgBreakTable(t, db, "hook_executions")
		for i := range 6 {
			if status, body := hgPostStream(t, s, map[string]string{"X-Session-Id": fmt.Sprint("s-", i)}); status != 200 || !bytes.Contains(body, []byte("call_mock_1")) {
				t.Fatalf("request %d under on_full: drop: %d\n%s", i, status, hgShort(body))
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for metricValue(t, s, "hookgate_audit_records_dropped_total") == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("no drop was counted (write errors %v)", metricValue(t, s, "hookgate_audit_write_errors_total"))
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}
