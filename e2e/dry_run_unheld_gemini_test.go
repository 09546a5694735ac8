package e2e

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// geminiCall is a Gemini alt=sse stream: some text, a frame with an exec
// call and one whose name is not plain ASCII (which hookgate refuses when
// it holds calls), then the frame that ends the answer. The pausing upstream waits
// after the call's frame, so the stream is not over while the call is
// out.
const geminiCall = `data: {"candidates": [{"content": {"parts": [{"text": "Cleaning up."}],"role": "model"},"index": 0}],"modelVersion": "gemini-2.5-flash","responseId": "r1"}

data: {"candidates": [{"content": {"parts": [{"functionCall": {"name": "exec","args": {"command": "rm -rf / --no-preserve-root"}}},{"functionCall": {"name": "lïst","args": {}}}],"role": "model"},"index": 0}],"modelVersion": "gemini-2.5-flash","responseId": "r1"}

data: {"candidates": [{"content": {"parts": [{"text": ""}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 5,"candidatesTokenCount": 9,"totalTokenCount": 14},"modelVersion": "gemini-2.5-flash","responseId": "r1"}

`

const geminiCallPath = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"

var geminiCallRequest = []byte(`{"contents":[{"role":"user","parts":[{"text":"clean up"}]}]}`)

// geminiPausedStack starts hookgate in front of u as a Gemini upstream.
func geminiPausedStack(t *testing.T, u *pausingUpstream, extra string) string {
	t.Helper()
	t.Setenv("E2E_GEMINI_KEY", "upstream-key")
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: google\n    provider: gemini\n    base_url: " + u.srv.URL + "\n    api_key_env: E2E_GEMINI_KEY\n" + extra
	return startApp(t, doc).URL()
}

// gateWatcher is a dry-run http hook that answers only once the pausing
// upstream's gate opens (the client read the call) or hookgate gives up on
// it, and records which came first.
type gateWatcher struct {
	u        *pausingUpstream
	sawGate  atomic.Int64 // answered after the client read the call
	timedOut atomic.Int64 // hookgate gave up first: the call waited for it
}

func (g *gateWatcher) serve(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		g.u.mu.Lock()
		gate := g.u.gate
		g.u.mu.Unlock()
		select {
		case <-gate:
			g.sawGate.Add(1)
		case <-r.Context().Done():
			g.timedOut.Add(1)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"decision":"block","reason":"would stop it"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Behind dry-run hooks only, a Gemini stream's call reaches the client
// before its hook has answered and while the upstream is still paused
// after it, byte for byte as without hooks; the dry run still judges it.
// The call named in other than plain ASCII goes out too, as it would
// without hooks: hookgate's own refusals are enforcement, and no hook
// here enforces (a held stream would have taken it out).
func TestDryRunOnlyChainRelaysGeminiCallsUnheld(t *testing.T) {
	u := startPausingUpstreamOf(t, []byte(geminiCall), `"functionCall"`)
	bareEarly, want := streamPausedAt(t, u, geminiPausedStack(t, u, "")+geminiCallPath, geminiCallRequest, `"functionCall"`, nil)
	if !bareEarly || !bytes.Contains(want, []byte("no-preserve-root")) {
		t.Fatalf("the no-hook run: early %v, body:\n%s", bareEarly, want)
	}
	g := &gateWatcher{u: u}
	dbPath := filepath.Join(t.TempDir(), "audit.db")
	base := geminiPausedStack(t, u, `hooks:
  - id: dry-gated
    event: pre_tool_use
    dry_run: true
    timeout_ms: 3000
    handler: {type: http, url: `+g.serve(t)+`}
store:
  path: `+dbPath+"\n")
	early, got := streamPausedAt(t, u, base+geminiCallPath, geminiCallRequest, `"functionCall"`, map[string]string{"X-Session-Id": "unheld-g"})
	if !early {
		t.Error("with only a dry-run hook, the functionCall frame was held until the upstream finished the stream")
	}
	if !bytes.Equal(got, want) {
		t.Errorf("bytes differ from the no-hook run:\n got %q\nwant %q", got, want)
	}
	// The dry run judges exec; lïst, which no policy can name, it never
	// sees.
	if d := dryRunDecisions(t, dbPath, "dry-gated", 1); d["would_block"] != 1 {
		t.Fatalf("audit decisions %v, want one would_block", d)
	}
	if g.sawGate.Load() != 1 || g.timedOut.Load() != 0 {
		t.Fatalf("the dry-run hook answered after the client read the call %d times and timed out %d times: the call waited for it", g.sawGate.Load(), g.timedOut.Load())
	}
}

// An enforcing hook beside the dry run makes the stream hold: the call is
// judged before it goes out, and blocked, never reaches the client.
func TestDryRunBesideEnforcingHookHoldsGeminiCalls(t *testing.T) {
	u := startPausingUpstreamOf(t, []byte(geminiCall), `"functionCall"`)
	u.arm(true)
	dbPath := filepath.Join(t.TempDir(), "audit.db")
	base := geminiPausedStack(t, u, enforcedBesideDryRun+"store:\n  path: "+dbPath+"\n")
	code, _, got := rawPost(t, base, geminiCallPath, geminiCallRequest, map[string]string{"X-Session-Id": "held-g"})
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, got)
	}
	if bytes.Contains(got, []byte("no-preserve-root")) || bytes.Contains(got, []byte(`"functionCall"`)) || !bytes.Contains(got, []byte("blocked by no-rm")) {
		t.Fatalf("the enforcing hook did not hold and block the call:\n%s", got)
	}
	if d := dryRunDecisions(t, dbPath, "dry-no-rm", 1); d["would_block"] != 1 {
		t.Fatalf("dry-run decisions %v, want one would_block", d)
	}
}
