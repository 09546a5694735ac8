//go:build agents

package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Codex (@openai/codex, pinned in node/package.json) runs headless with
// `codex exec`, on the OpenAI Responses API. What it needs to run here:
//   - CODEX_HOME with a config.toml naming a model provider whose base_url
//     is hookgate's (with /v1), wire_api = "responses" (the only one it
//     supports) and env_key naming the variable that holds a key (any key:
//     it passes through to the model);
//   - --skip-git-repo-check, and --dangerously-bypass-approvals-and-sandbox
//     so that its own sandbox and approvals stay out of the way of what is
//     tested (it runs in a throwaway directory);
//   - check_for_update_on_startup = false, [analytics] and [feedback]
//     disabled and the apps, plugins and remote_plugin features off: with
//     them it looks up github.com, api.github.com and chatgpt.com. With
//     them off, a run is one POST /v1/responses per step and nothing else.
//
// It sends every step as a streamed request with store: false and the
// whole conversation in input (no previous_response_id), declares
// exec_command and write_stdin as function tools and apply_patch as a
// custom tool, and refuses `rm -f` by itself (so the script deletes with
// `rm -r`). It prints the final answer on stdout (the transcript goes to
// stderr) and writes it to the --output-last-message file.

// codexPrompt is what the user asks; the scripted model ignores it.
const codexPrompt = "Tidy up this directory."

// codexKeyEnv names the variable the provider's key is read from.
const codexKeyEnv = "HOOKGATE_SUITE_KEY"

// codexConfig is CODEX_HOME/config.toml for a model at base (no /v1).
// Retries are off so that a refused request fails the run at once.
func codexConfig(base string) string {
	return `model = "gpt-5.5"
model_provider = "suite"
check_for_update_on_startup = false

[model_providers.suite]
name = "hookgate agent suite"
base_url = "` + base + `/v1"
wire_api = "responses"
env_key = "` + codexKeyEnv + `"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[features]
apps = false
plugins = false
remote_plugin = false
`
}

// codexOutput is what the user of one `codex exec` run got: stdout and the
// --output-last-message file.
type codexOutput struct {
	Stdout, LastMessage, Stderr string
}

// codex runs `codex exec` against base. Its stderr (the transcript, which
// also shows the block note) is kept apart, so that the checks read only
// what the user's answer is.
func codex(t *testing.T, r *run, base string) codexOutput {
	t.Helper()
	codexHome := filepath.Join(r.Home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(codexConfig(base)), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	lastMessage := filepath.Join(outDir, "last-message.txt")
	stderr := filepath.Join(outDir, "stderr.txt")
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(stderr)
			t.Logf("--- codex stderr:\n%s", b)
		}
	})
	// sh keeps stderr apart; Exec's output is then stdout alone.
	args := []string{"-c", `exec "$0" "$@" 2>"$CODEX_STDERR_FILE"`, nodeBin(t, "codex"),
		"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
		"--output-last-message", lastMessage, codexPrompt}
	env := []string{
		"CODEX_HOME=" + codexHome,
		codexKeyEnv + "=sk-hookgate-agent-suite",
		"TMPDIR=" + t.TempDir(),
		"CODEX_STDERR_FILE=" + stderr,
	}
	out := codexOutput{Stdout: execOffline(t, r, "/bin/sh", args, env)}
	last, err := os.ReadFile(lastMessage)
	if err != nil {
		t.Fatalf("codex wrote no last message: %v\nstdout:\n%s", err, out.Stdout)
	}
	out.LastMessage = string(last)
	errText, _ := os.ReadFile(stderr)
	out.Stderr = string(errText)
	return out
}

// Through hookgate: the allowed command ran, the recursive delete was
// blocked, and both what codex exec prints and its last message show the
// block note and the disclaimer.
func TestCodexThroughGate(t *testing.T) {
	r := newRun(t)
	out := codex(t, r, r.Gate)
	t.Run("stdout", func(t *testing.T) { assertThroughGate(t, r, out.Stdout) })
	t.Run("last message", func(t *testing.T) { assertThroughGate(t, r, out.LastMessage) })
	assertCodexOnlyResponses(t, r)
}

// Straight against the model, the recursive delete runs: the control that
// shows the checks above can fail.
func TestCodexDirect(t *testing.T) {
	r := newRun(t)
	out := codex(t, r, r.Direct)
	assertDirect(t, r, out.Stdout)
	if !strings.Contains(out.LastMessage, finalAnswer) {
		t.Errorf("control: the last message lacks the model's answer %q: %q", finalAnswer, out.LastMessage)
	}
}

// assertCodexOnlyResponses checks that every request Codex made was a
// Responses call: nothing else of it reached anything.
func assertCodexOnlyResponses(t *testing.T, r *run) {
	t.Helper()
	for _, req := range r.Mock.Requests() {
		if req.Path != "/v1/responses" {
			t.Errorf("Codex sent a request the suite does not expect: %s %s", req.Method, req.URI)
		}
	}
}
