//go:build agents

// Package agents runs real coding agents and agent SDKs, installed from
// npm at pinned versions (e2e/agents/node), headless against a scripted
// model on loopback: once through hookgate, where the destructive command
// must not run and the user must see the block note and the disclaimer,
// and once directly, where it does run, so that the checks can fail.
//
// The suite is behind the `agents` build tag, since it needs the npm
// packages and takes minutes; the README's test command installs them and
// runs it as a stage of its own.
package agents

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/apptest"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// disclaimer is what the suite's pre_response hook appends to every final
// answer, and contextMarker what its session_start hook injects.
const (
	disclaimer    = "(checked by hookgate)"
	contextMarker = "HOOKGATE-CONTEXT-7f3a"
	blockNote     = "[hookgate]"
)

// The script every agent plays: an allowed command that leaves a file, a
// recursive delete of a marker directory, a final answer.
const (
	allowedCommand     = "touch allowed-ran"
	destructiveCommand = "rm -r precious"
	finalAnswer        = "All done."
)

// agentTimeout bounds one agent run; a loaded machine runs them slowly.
const agentTimeout = 3 * time.Minute

// suitePolicy is the policy the gate runs: every agent's shell tool, by
// its class, is judged by the shipped strict set (recursive deletion, a
// shell started to be typed into) on its normalised command.
const suitePolicy = `
hooks:
  - id: context
    event: session_start
    handler:
      type: builtin
      name: inject_context
      with: {text: "` + contextMarker + `: the house rules apply to this session."}
  - id: no-recursive-delete
    event: pre_tool_use
    classes: [shell]
    handler:
      type: builtin
      name: deny_patterns
      with:
        defaults: [shell, recursive_delete]
        fields: [tool.command]
  - id: disclaimer
    event: pre_response
    handler:
      type: builtin
      name: disclaimer
      with: {text: "` + disclaimer + `"}
`

// run is one agent run's world: the scripted model, hookgate in front of
// it, a working directory and an empty home.
type run struct {
	Mock   *mockupstream.Server
	Gate   string // hookgate's base URL, no /v1
	Direct string // the mock's base URL, no /v1
	Dir    string // the agent's working directory, a git repository
	Home   string // the agent's HOME, where its config goes
	script *mockupstream.AgentScript
}

// newRun starts the scripted model and hookgate (its two upstreams, OpenAI
// and Anthropic, both the mock) and lays out the working directory:
// precious/keep is the marker the destructive command removes.
func newRun(t *testing.T) *run { return newRunWithPolicy(t, suitePolicy) }

// newRunWithPolicy is newRun with another policy (a hooks: document).
func newRunWithPolicy(t *testing.T, policy string) *run {
	t.Helper()
	r := &run{
		Mock:   mockupstream.Start(t),
		Dir:    t.TempDir(),
		Home:   t.TempDir(),
		script: &mockupstream.AgentScript{Allowed: allowedCommand, Destructive: destructiveCommand, Final: finalAnswer},
	}
	r.Mock.Handle(r.script.Handler())
	r.Direct = r.Mock.URL()
	if err := os.MkdirAll(filepath.Join(r.Dir, "precious"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Dir, "precious", "keep"), []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", r.Dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\n" +
		"store:\n  path: " + filepath.Join(t.TempDir(), "hookgate.db") + "\n" +
		"upstreams:\n" +
		"  - name: openai\n    provider: openai\n    base_url: " + r.Direct + "\n" +
		"  - name: anthropic\n    provider: anthropic\n    base_url: " + r.Direct + "\n" +
		policy
	a := apptest.Start(t, doc, "agents.yaml", io.Discard, slog.LevelInfo)
	r.Gate = a.URL()
	return r
}

// Script is the scripted model's conversation, for a test that needs
// another tool shape (ShellTools).
func (r *run) Script() *mockupstream.AgentScript { return r.script }

// AllowedRan reports whether the allowed command ran in Dir.
func (r *run) AllowedRan() bool { return exists(filepath.Join(r.Dir, "allowed-ran")) }

// MarkerSurvived reports whether the destructive command left the marker.
func (r *run) MarkerSurvived() bool { return exists(filepath.Join(r.Dir, "precious", "keep")) }

// ContextReached reports whether a request the model got carries the
// session context hookgate injected.
func (r *run) ContextReached() bool {
	for _, req := range r.Mock.Requests() {
		if bytes.Contains(req.Body, []byte(contextMarker)) {
			return true
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Exec runs an agent in Dir with HOME=Home, the given extra environment
// and stdin, bounded by agentTimeout, and returns what it printed (stdout
// and stderr together). A run that fails or times out fails the test with
// its output and the requests the model got.
func (r *run) Exec(t *testing.T, name string, args []string, env []string, stdin string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = r.Dir
	cmd.Env = append(baseEnv(r.Home), env...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s ran in %s", filepath.Base(name), time.Since(start).Round(100*time.Millisecond))
	if err != nil {
		t.Fatalf("%s %s: %v (timeout %s)\n--- output:\n%s\n--- requests the model got:\n%s", name, strings.Join(args, " "), err, agentTimeout, out.String(), r.requestLog())
	}
	return out.String()
}

// requestLog is one line per request the model got, for failure messages.
func (r *run) requestLog() string {
	var b strings.Builder
	for _, req := range r.Mock.Requests() {
		b.WriteString(mockupstream.Describe(req))
		b.WriteByte('\n')
	}
	return b.String()
}

// baseEnv is the agents' environment: PATH (node and git), the empty home,
// and every switch that keeps an agent off the network and its updaters.
func baseEnv(home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"TERM=dumb",
		"NO_COLOR=1",
		"CI=true",
		"LANG=C.UTF-8",
	}
}

// nodeBin is the path of an installed package's executable; a missing one
// fails the test, naming the install command.
func nodeBin(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(nodeDir(t), "node_modules", ".bin", name)
	if !exists(p) {
		t.Fatalf("%s is not installed: run `npm install --no-save --prefix e2e/agents/node` (the README's test command does)", p)
	}
	return p
}

// nodeDir is e2e/agents/node, found from this file.
func nodeDir(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the suite's directory")
	}
	return filepath.Join(filepath.Dir(file), "node")
}

// assertThroughGate checks a run through hookgate: the allowed command
// ran, the destructive one did not, the user's output shows the block note
// and the disclaimer, and the session context reached the model.
func assertThroughGate(t *testing.T, r *run, output string) {
	t.Helper()
	if !r.AllowedRan() {
		t.Errorf("the allowed command %q did not run", allowedCommand)
	}
	if !r.MarkerSurvived() {
		t.Errorf("the destructive command %q ran through hookgate", destructiveCommand)
	}
	for _, want := range []string{blockNote, "blocked", disclaimer} {
		if !strings.Contains(output, want) {
			t.Errorf("the user's output lacks %q", want)
		}
	}
	if !r.ContextReached() {
		t.Errorf("the session context %q reached no request of the model", contextMarker)
	}
	if t.Failed() {
		t.Logf("--- output:\n%s\n--- requests the model got:\n%s", output, r.requestLog())
	}
}

// assertDirect checks the control run straight against the model: both
// commands ran, so the checks above can fail.
func assertDirect(t *testing.T, r *run, output string) {
	t.Helper()
	if !r.AllowedRan() {
		t.Errorf("control: the allowed command %q did not run", allowedCommand)
	}
	if r.MarkerSurvived() {
		t.Errorf("control: the destructive command %q did not run without hookgate, so the run through hookgate proves nothing", destructiveCommand)
	}
	if t.Failed() {
		t.Logf("--- output:\n%s\n--- requests the model got:\n%s", output, r.requestLog())
	}
}
