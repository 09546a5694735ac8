//go:build agents

package agents

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Claude Code (@anthropic-ai/claude-code, pinned in node/package.json) runs
// headless with `claude -p`, on the Anthropic Messages API. What it needs
// to run here:
//   - ANTHROPIC_BASE_URL without /v1 (it sends POST /v1/messages?beta=true,
//     streamed) and any ANTHROPIC_API_KEY (it passes through to the model);
//   - IS_SANDBOX=1, without which it refuses --dangerously-skip-permissions
//     as root;
//   - CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 and DISABLE_AUTOUPDATER=1,
//     which keep it off everything but the model (no telemetry, no update
//     check, no side requests: a run is three POST /v1/messages);
//   - TMPDIR inside the test, since it keeps per-session files in
//     $TMPDIR/claude-<uid>.
//
// It asks for its default model (claude-opus-5-5 in this version), so no
// --model is passed. Its messages carry a mid-conversation "role":"system"
// message and adaptive thinking settings, which hookgate must relay.

// claudePrompt is what the user asks; the scripted model ignores it.
const claudePrompt = "Tidy up this directory."

// claudeEnv is Claude Code's environment for a model at base.
func claudeEnv(t *testing.T, base string) []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + base,
		"ANTHROPIC_API_KEY=sk-ant-hookgate-agent-suite",
		"IS_SANDBOX=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"TMPDIR=" + t.TempDir(),
	}
}

// claude runs `claude -p` against base with the given output format and
// returns stdout and stderr together.
func claude(t *testing.T, r *run, base, format string, extra ...string) string {
	t.Helper()
	args := append([]string{"-p", claudePrompt, "--dangerously-skip-permissions", "--output-format", format}, extra...)
	return execOffline(t, r, nodeBin(t, "claude"), args, claudeEnv(t, base))
}

// claudeResult is the answer a stream-json run reports in its result
// line, the one a program driving Claude Code shows its user. No result
// line, or one that reports an error, fails the test.
func claudeResult(t *testing.T, streamJSON string) string {
	t.Helper()
	for line := range strings.Lines(streamJSON) {
		ev := gjson.Parse(line)
		if ev.Get("type").String() != "result" {
			continue
		}
		if ev.Get("is_error").Bool() || ev.Get("subtype").String() != "success" {
			t.Fatalf("Claude Code reported an error: %s", line)
		}
		return ev.Get("result").String()
	}
	t.Fatalf("Claude Code's stream-json output has no result line:\n%s", streamJSON)
	return ""
}

// Through hookgate, `claude -p` prints the answer as text: the allowed
// command ran, the recursive delete was blocked, and what the user reads
// says so and carries the disclaimer.
func TestClaudeCodeThroughGateText(t *testing.T) {
	r := newRun(t)
	out := claude(t, r, r.Gate, "text")
	assertThroughGate(t, r, out)
	assertClaudeStayedInside(t, r)
}

// Through hookgate with --output-format stream-json: the result line is
// the user's answer.
func TestClaudeCodeThroughGateStreamJSON(t *testing.T) {
	r := newRun(t)
	out := claude(t, r, r.Gate, "stream-json", "--verbose")
	assertThroughGate(t, r, claudeResult(t, out))
}

// Straight against the model, the recursive delete runs: the control that
// shows the checks above can fail.
func TestClaudeCodeDirect(t *testing.T) {
	r := newRun(t)
	out := claude(t, r, r.Direct, "text")
	assertDirect(t, r, out)
	if !strings.Contains(out, finalAnswer) {
		t.Errorf("control: the user's output lacks the model's answer %q:\n%s", finalAnswer, out)
	}
}

// assertClaudeStayedInside checks that Claude Code kept its state in the
// test's HOME, and that every request it made was one the model answers.
func assertClaudeStayedInside(t *testing.T, r *run) {
	t.Helper()
	if !exists(filepath.Join(r.Home, ".claude.json")) {
		t.Errorf("Claude Code wrote no state into its HOME %s: is it reading another one?", r.Home)
	}
	for _, req := range r.Mock.Requests() {
		if req.Path != "/v1/messages" {
			t.Errorf("Claude Code sent a request the suite does not expect: %s %s", req.Method, req.URI)
		}
	}
}
