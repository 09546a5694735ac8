package e2e

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookgate/hookgate/store"
)

// pausingUpstream streams its events one by one (mixedBatch's chat events
// unless told otherwise) and, after the first event that carries marker (a
// tool call's first delta), waits for its gate: the call is then
// incomplete upstream until the test opens the gate. A pause that ends
// because nobody opened the gate in time is counted in expired.
type pausingUpstream struct {
	srv     *httptest.Server
	mu      sync.Mutex
	gate    chan struct{}
	expired atomic.Int64
}

// chatCallMarker is what the first delta of a chat tool call carries.
const chatCallMarker = `"tool_calls"`

func startPausingUpstream(t *testing.T) *pausingUpstream {
	t.Helper()
	return startPausingUpstreamOf(t, mixedBatch.SSE(), chatCallMarker)
}

func startPausingUpstreamOf(t *testing.T, sse []byte, marker string) *pausingUpstream {
	t.Helper()
	u := &pausingUpstream{}
	events := bytes.SplitAfter(sse, []byte("\n\n"))
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		u.mu.Lock()
		gate := u.gate
		u.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fl := w.(http.Flusher)
		paused := false
		for _, ev := range events {
			if len(ev) == 0 {
				continue
			}
			w.Write(ev)
			fl.Flush()
			if !paused && bytes.Contains(ev, []byte(marker)) {
				paused = true
				select {
				case <-gate:
				case <-time.After(90 * time.Second):
					u.expired.Add(1)
				case <-r.Context().Done():
					return
				}
			}
		}
	}))
	t.Cleanup(u.srv.Close)
	return u
}

// arm gives the next request a closed gate when open, else a gate the
// returned function opens.
func (u *pausingUpstream) arm(open bool) func() {
	g := make(chan struct{})
	u.mu.Lock()
	u.gate = g
	u.mu.Unlock()
	var once sync.Once
	release := func() { once.Do(func() { close(g) }) }
	if open {
		release()
	}
	return release
}

// streamPaused sends a streamed chat request through base while the
// upstream pauses mid-call. It reports whether the client read the first
// tool-call delta before the upstream was let go on (by the client, not by
// the pause running out), and the whole body.
func streamPaused(t *testing.T, u *pausingUpstream, base string, header map[string]string) (early bool, body []byte) {
	t.Helper()
	return streamPausedAt(t, u, base+"/v1/chat/completions",
		[]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"clean up"}]}`), chatCallMarker, header)
}

func streamPausedAt(t *testing.T, u *pausingUpstream, url string, reqBody []byte, marker string, header map[string]string) (early bool, body []byte) {
	t.Helper()
	release := u.arm(false)
	defer release()
	req, err := newPost(url, reqBody, header)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: 3 * time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	// The upstream waits (at most 90 s) until the gate opens: a delta read
	// before that went out before the call was complete.
	type line struct {
		b   []byte
		err error
	}
	lines := make(chan line)
	br := bufio.NewReader(resp.Body)
	go func() {
		for {
			b, err := br.ReadBytes('\n')
			lines <- line{b, err}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	var buf bytes.Buffer
	expired := u.expired.Load()
	for l := range lines {
		buf.Write(l.b)
		if l.err != nil {
			if l.err != io.EOF {
				t.Fatalf("read: %v", l.err)
			}
			break
		}
		if !early && bytes.Contains(l.b, []byte(marker)) {
			early = u.expired.Load() == expired
			release()
		}
	}
	return early, buf.Bytes()
}

func pausedStack(t *testing.T, u *pausingUpstream, extra string) string {
	t.Helper()
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: mock\n    provider: openai\n    base_url: " + u.srv.URL + "\n" + extra
	return startApp(t, doc).URL()
}

// dryRunDecisions waits for want rows of hook in the audit at dbPath and
// counts them by decision.
func dryRunDecisions(t *testing.T, dbPath, hook string, want int) map[string]int {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Path: dbPath})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var rows []store.Execution
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if rows, err = st.ListExecutions(ctx, store.ExecutionFilter{HookID: hook}); err != nil {
			t.Fatal(err)
		}
		if len(rows) >= want || time.Now().After(deadline) {
			break
		}
	}
	out := map[string]int{}
	for _, x := range rows {
		out[x.Decision]++
	}
	return out
}

func TestDryRunOnlyChainRelaysCallsUnheld(t *testing.T) {
	u := startPausingUpstream(t)
	bareEarly, want := streamPaused(t, u, pausedStack(t, u, ""), nil)
	if !bareEarly || !bytes.Contains(want, []byte("call_rm")) {
		t.Fatalf("the no-hook run: early %v, body:\n%s", bareEarly, want)
	}

	dbPath := filepath.Join(t.TempDir(), "audit.db")
	base := pausedStack(t, u, dryRunPolicy+"store:\n  path: "+dbPath+"\n")
	early, got := streamPaused(t, u, base, map[string]string{"X-Session-Id": "unheld-1"})
	if !early {
		t.Error("with only a dry-run hook, the first tool-call delta was held until the upstream finished the call")
	}
	if !bytes.Equal(got, want) {
		t.Errorf("bytes differ from the no-hook run:\n got %q\nwant %q", got, want)
	}
	if d := dryRunDecisions(t, dbPath, "dry-no-rm", 2); d["would_block"] != 1 || d["would_allow"] != 1 {
		t.Fatalf("audit decisions %v, want one would_block (call_rm) and one would_allow (call_ls)", d)
	}
}

// enforcedBesideDryRun adds an enforcing hook to dryRunPolicy's chain.
const enforcedBesideDryRun = dryRunPolicy + `  - id: no-rm
    event: pre_tool_use
    matcher: "^exec$"
    handler:
      type: builtin
      name: deny_patterns
      with: {defaults: [shell]}
`

func TestDryRunBesideEnforcingHookStillHolds(t *testing.T) {
	u := startPausingUpstream(t)
	u.arm(true)
	bare := startStack(t, "")
	wantStreamed, _ := dryRunExchange(t, bare)

	dbPath := filepath.Join(t.TempDir(), "audit.db")
	base := pausedStack(t, u, enforcedBesideDryRun+"store:\n  path: "+dbPath+"\n")
	code, _, got := rawPost(t, base, "/v1/chat/completions",
		[]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"clean up"}]}`), map[string]string{"X-Session-Id": "held-1"})
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, got)
	}
	if bytes.Contains(got, []byte("no-preserve-root")) || !bytes.Contains(got, []byte("blocked by no-rm")) {
		t.Fatalf("the enforcing hook did not block the held call:\n%s", got)
	}
	if bytes.Equal(got, wantStreamed) {
		t.Fatal("the enforced chain's bytes equal the no-hook run's")
	}
	// The dry run comes first in the chain (declared first, same
	// priority): it still judges both exec calls.
	if d := dryRunDecisions(t, dbPath, "dry-no-rm", 2); d["would_block"] != 1 || d["would_allow"] != 1 {
		t.Fatalf("dry-run decisions %v, want one would_block and one would_allow", d)
	}
}

func TestTenantEnforcingHookHoldsForThatTenantOnly(t *testing.T) {
	u := startPausingUpstream(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "acme.yaml"), []byte(acmeBlocksExec), 0o600)
	os.WriteFile(filepath.Join(dir, "globex.yaml"), []byte("[]\n"), 0o600)
	t.Setenv("E2E_ACME_KEYS", "vk-acme-1")
	t.Setenv("E2E_GLOBEX_KEYS", "vk-globex")
	t.Setenv("E2E_UPSTREAM_KEY", "sk-upstream-real")
	base := pausedStack(t, u, `    api_key_env: E2E_UPSTREAM_KEY
tenants:
  - id: acme
    keys_env: E2E_ACME_KEYS
    hooks_file: `+filepath.Join(dir, "acme.yaml")+`
  - id: globex
    keys_env: E2E_GLOBEX_KEYS
    hooks_file: `+filepath.Join(dir, "globex.yaml")+`
`+dryRunPolicy)

	early, got := streamPaused(t, u, base, bearer("vk-globex"))
	if !early || !bytes.Contains(got, []byte("call_rm")) {
		t.Fatalf("globex (only the global dry run applies): early %v, body:\n%s", early, got)
	}

	u.arm(true)
	code, _, held := rawPost(t, base, "/v1/chat/completions",
		[]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"clean up"}]}`), bearer("vk-acme-1"))
	if code != http.StatusOK {
		t.Fatalf("acme: status %d: %s", code, held)
	}
	if bytes.Contains(held, []byte("no-preserve-root")) || !bytes.Contains(held, []byte("acme runs no shell")) {
		t.Fatalf("acme's enforcing hook did not hold and block the call:\n%s", held)
	}
}

// messagesCall is an Anthropic Messages stream whose exec call's input
// arrives in three fragments.
const messagesCall = `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Cleaning up."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_rm","name":"exec","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"rm -rf / "}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"--no-preserve-root\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":20}}

event: message_stop
data: {"type":"message_stop"}

`

func TestDryRunOnlyChainRelaysMessagesCallsUnheld(t *testing.T) {
	u := startPausingUpstreamOf(t, []byte(messagesCall), `"tool_use"`)
	stack := func(extra string) string {
		doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: claude\n    provider: anthropic\n    base_url: " + u.srv.URL + "\n" + extra
		return startApp(t, doc).URL()
	}
	req := []byte(`{"model":"claude-x","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"clean up"}]}`)
	bareEarly, want := streamPausedAt(t, u, stack("")+"/v1/messages", req, `"tool_use"`, nil)
	if !bareEarly || !bytes.Contains(want, []byte("toolu_rm")) {
		t.Fatalf("the no-hook run: early %v, body:\n%s", bareEarly, want)
	}
	dbPath := filepath.Join(t.TempDir(), "audit.db")
	early, got := streamPausedAt(t, u, stack(dryRunPolicy+"store:\n  path: "+dbPath+"\n")+"/v1/messages", req, `"tool_use"`, map[string]string{"X-Session-Id": "unheld-m"})
	if !early {
		t.Error("with only a dry-run hook, the tool_use start was held until the upstream finished the call")
	}
	if !bytes.Equal(got, want) {
		t.Errorf("bytes differ from the no-hook run:\n got %q\nwant %q", got, want)
	}
	if d := dryRunDecisions(t, dbPath, "dry-no-rm", 1); d["would_block"] != 1 {
		t.Fatalf("audit decisions %v, want one would_block", d)
	}
}
