//go:build agents

package agents

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/apptest"
	"github.com/hookgate/hookgate/providers"
	"github.com/tidwall/gjson"
)

// Gemini CLI (@google/gemini-cli, pinned in node/package.json) runs
// headless with `gemini -p`, on Google's native Gemini API. What it needs
// to run here:
//   - GOOGLE_GEMINI_BASE_URL without a version (the SDK inside it adds
//     /v1beta/models/{model}:{method}) and GEMINI_API_KEY (any key: it
//     goes to the model in x-goog-api-key);
//   - ~/.gemini/settings.json choosing the API-key login
//     (security.auth.selectedType "gemini-api-key"): with the base URL set
//     and no choice saved, the CLI picks its "gateway" login, which its
//     headless mode refuses ("Invalid auth method selected", exit 41). The
//     same file turns off usage statistics (they go to Google's logging
//     service), telemetry and the update check and notice;
//   - --yolo, which runs tools without asking, and --skip-trust, without
//     which a folder it has not seen is untrusted and --yolo falls back to
//     asking (which a headless run cannot).
//
// Per prompt it sends, on the default model, first a
// :generateContent to a small model that asks for a JSON complexity score
// (its model router), then one POST
// :streamGenerateContent?alt=sse per step, carrying the whole
// conversation (functionResponse parts for the tool results) with its
// fifteen tools declared, among them run_shell_command {command}. It
// prints the model's text on stdout. It sends all its fetches through
// HTTPS_PROXY (honouring NO_PROXY), so the network sentinel sees anything
// it would send beyond loopback.
//
// How it reads answers (its bundled @google/genai): an SSE frame must be
// one line `data: {json}` ended by a blank line; anything else before it
// (an `event:` line, a `: comment`, `data:` without the space) stalls the
// reader until "Incomplete JSON segment at the end", while blank lines
// between frames are skipped. A 4xx answer in Google's error shape ends
// the run at once (exit 1, the body printed); 429, 499 and 5xx are asked
// again up to ten times with 5 to 30 s of backoff. A stream that ends
// without a finishReason and without a call (a `data: {"error":…}` frame
// reads as that) is asked again three times, then the CLI prints
// "[ERROR] Model stream ended without a finish reason." and exits 0.

// geminiPrompt is what the user asks; the scripted model ignores it.
const geminiPrompt = "Tidy up this directory."

// geminiSettings is ~/.gemini/settings.json.
const geminiSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "tools": {"useRipgrep": false}
}
`

// geminiKey is the key the CLI sends; it passes through to the model.
const geminiKey = "gemini-hookgate-agent-suite"

// newGeminiRun is newRun with the scripted model also answering Gemini's
// native routes.
func newGeminiRun(t *testing.T) *run {
	t.Helper()
	r := newRun(t)
	r.Mock.Handle(r.Script().GeminiHandler())
	return r
}

// startGeminiGate puts a hookgate whose upstream for Google's API is the
// scripted model in front of the run, with the suite's policy. A hookgate
// that has no gemini provider skips the test, loudly: it cannot judge
// Gemini CLI's calls, and the control run (TestGeminiCLIDirect) still
// shows the harness works.
func startGeminiGate(t *testing.T, r *run) {
	t.Helper()
	if !providers.KnownProvider("gemini") {
		t.Skipf("SKIPPED: hookgate has no `gemini` provider (known: %s), so it does not serve Google's native API "+
			"(/v1beta/models/{model}:streamGenerateContent) and refuses Gemini CLI's requests as unread_format; "+
			"this test runs once providers registers the Gemini format", strings.Join(providers.Providers(), ", "))
	}
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\n" +
		"upstreams:\n" +
		"  - name: gemini\n    provider: gemini\n    base_url: " + r.Direct + "\n" +
		suitePolicy
	r.Gate = apptest.Start(t, doc, "agents-gemini.yaml", io.Discard, slog.LevelInfo).URL()
}

// gemini runs `gemini -p` against base and returns what it printed.
func gemini(t *testing.T, r *run, base string) string {
	t.Helper()
	dir := filepath.Join(r.Home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(geminiSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"GOOGLE_GEMINI_BASE_URL=" + base,
		"GEMINI_API_KEY=" + geminiKey,
		"TMPDIR=" + t.TempDir(),
	}
	args := []string{"-p", geminiPrompt, "--yolo", "--skip-trust", "--output-format", "text"}
	return execOffline(t, r, nodeBin(t, "gemini"), args, env)
}

// Straight against the scripted model, on the CLI's default (automatic)
// model choice, both commands run through run_shell_command and the final
// answer is printed: the control that shows the harness drives Gemini
// CLI, and that the checks through hookgate can fail. The router's JSON
// question is asked once and its answer read.
func TestGeminiCLIDirect(t *testing.T) {
	r := newGeminiRun(t)
	out := gemini(t, r, r.Direct)
	assertDirect(t, r, out)
	if !strings.Contains(out, finalAnswer) {
		t.Errorf("control: the user's output lacks the model's answer %q:\n%s", finalAnswer, out)
	}
	if n := geminiCalls(r, "generateContent"); n != 1 {
		t.Errorf("control: the CLI asked its router's JSON question %d times, want once:\n%s", n, r.requestLog())
	}
	assertGeminiWire(t, r)
}

// Through hookgate: the allowed command ran, the recursive delete was
// blocked (the marker survived), Gemini CLI ended cleanly (exit 0) and
// what it printed shows the block note and the disclaimer. The router's
// JSON question went through hookgate too, and was asked once: an answer
// it cannot parse (a disclaimer appended to it) is asked again with
// minutes of backoff.
func TestGeminiCLIThroughGate(t *testing.T) {
	r := newGeminiRun(t)
	startGeminiGate(t, r)
	out := gemini(t, r, r.Gate)
	assertThroughGate(t, r, out)
	if n := geminiCalls(r, "generateContent"); n != 1 {
		t.Errorf("the CLI asked its router's JSON question %d times through hookgate, want once:\n%s", n, r.requestLog())
	}
	assertGeminiWire(t, r)
}

// geminiCalls counts the requests of one method the model got.
func geminiCalls(r *run, method string) int {
	n := 0
	for _, req := range r.Mock.Requests() {
		if strings.HasSuffix(req.Path, ":"+method) {
			n++
		}
	}
	return n
}

// assertGeminiWire checks that every request Gemini CLI made was one of
// Google's native model calls with the key in x-goog-api-key, and that the
// scripted conversation went through its streamed route.
func assertGeminiWire(t *testing.T, r *run) {
	t.Helper()
	streamed := 0
	for _, req := range r.Mock.Requests() {
		_, method, ok := strings.Cut(req.Path, ":")
		switch {
		case !ok || !strings.HasPrefix(req.Path, "/v1beta/models/"):
			t.Errorf("Gemini CLI sent a request the suite does not expect: %s %s", req.Method, req.Path)
		case method == "streamGenerateContent" && strings.Contains(req.URI, "alt=sse"):
			streamed++
		case method != "generateContent" && method != "countTokens":
			t.Errorf("Gemini CLI called a method the suite does not expect: %s %s", req.Method, req.Path)
		}
		if req.Header.Get("x-goog-api-key") != geminiKey {
			t.Errorf("%s %s: the key did not arrive in x-goog-api-key", req.Method, req.Path)
		}
	}
	if streamed == 0 {
		t.Errorf("no :streamGenerateContent?alt=sse request reached the model:\n%s", r.requestLog())
	}
}

// Gemini CLI's side questions ask for JSON (generationConfig
// responseMimeType application/json with a responseJsonSchema): its model
// router's complexity score on every prompt, its next-speaker check. It
// parses the answer's text (every non-thought part, joined) as JSON, and
// on failure asks again with backoff (five attempts, about a hundred
// seconds) before it falls back. Through hookgate the answer must still
// be JSON: pre_response hooks (the disclaimer) leave it alone.
func TestGeminiJSONAnswerThroughGate(t *testing.T) {
	r := newGeminiRun(t)
	startGeminiGate(t, r)
	out := post(t, r.Gate+"/v1beta/models/gemini-3.5-flash-lite:generateContent", geminiRouterRequest)
	// The CLI's reading: the text of every part that is not a thought,
	// joined.
	var text strings.Builder
	for _, p := range gjson.Get(out, "candidates.0.content.parts").Array() {
		if !p.Get("thought").Bool() {
			text.WriteString(p.Get("text").String())
		}
	}
	answer := text.String()
	if gjson.Valid(answer) && gjson.Get(answer, "complexity_score").Exists() {
		return
	}
	t.Errorf("the JSON answer did not reach the client as JSON: %q\n(whole answer: %s)", answer, out)
}

// geminiRouterRequest is the shape of Gemini CLI's model-router request.
const geminiRouterRequest = `{"contents":[{"role":"user","parts":[{"text":"Tidy up this directory."}]}],` +
	`"systemInstruction":{"role":"user","parts":[{"text":"You are a routing classifier."}]},` +
	`"generationConfig":{"temperature":1,"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT",` +
	`"properties":{"complexity_reasoning":{"type":"STRING"},"complexity_score":{"type":"INTEGER"}},` +
	`"required":["complexity_reasoning","complexity_score"]}}}`
