//go:build agents

package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// opencode and pi run as their users run them headless (`opencode run`,
// `pi -p`), each with a custom OpenAI-compatible provider on chat
// completions whose base URL is hookgate or the scripted model. Both
// declare the shell tool `bash {command}`.

// cliPrompt is the user's request; the scripted model ignores its text.
const cliPrompt = "Tidy up this repository, then tell me what you did."

// TestOpencode runs opencode 1.18 through hookgate and straight against
// the model. They run one after the other: opencode is a large process
// that takes tens of seconds to boot on a loaded machine.
func TestOpencode(t *testing.T) {
	bin := nodeBin(t, "opencode")
	t.Run("gate", func(t *testing.T) {
		r := newRun(t)
		out := execOffline(t, r, bin, []string{"run", cliPrompt}, opencodeEnv(t, r, r.Gate))
		assertThroughGate(t, r, out)
	})
	t.Run("direct", func(t *testing.T) {
		r := newRun(t)
		out := execOffline(t, r, bin, []string{"run", cliPrompt}, opencodeEnv(t, r, r.Direct))
		assertDirect(t, r, out)
	})
}

// opencodeConfig is opencode's global config: a provider of its bundled
// @ai-sdk/openai-compatible at the base URL, its model the default, and
// bash allowed without asking (a headless run has no one to ask).
const opencodeConfig = `{
  "$schema": "https://opencode.ai/config.json",
  "provider": {
    "scripted": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "scripted model",
      "options": {"baseURL": "BASE/v1", "apiKey": "sk-e2e-agents"},
      "models": {"scripted-model": {"name": "scripted model", "tool_call": true}}
    }
  },
  "model": "scripted/scripted-model",
  "small_model": "scripted/scripted-model",
  "permission": {"bash": "allow"},
  "autoupdate": false,
  "share": "disabled"
}
`

// opencodeEnv writes opencode's config under the run's home and returns
// the environment that keeps it off the network:
//   - OPENCODE_DISABLE_MODELS_FETCH: no models list from models.dev;
//   - OPENCODE_DISABLE_AUTOUPDATE, OPENCODE_DISABLE_SHARE,
//     OPENCODE_DISABLE_LSP_DOWNLOAD, OPENCODE_DISABLE_DEFAULT_PLUGINS,
//     OPENCODE_DISABLE_CLAUDE_CODE, OPENCODE_DISABLE_EXTERNAL_SKILLS: no
//     update check, sharing, language-server or plugin downloads, and no
//     reading of ~/.claude;
//   - the config directory holds a package.json, a lock that names the
//     same dependency and a node_modules: otherwise opencode installs
//     @opencode-ai/plugin into it from the npm registry on every start
//     (OPENCODE_PURE does not stop that);
//   - TMPDIR inside the home: opencode's runtime unpacks native libraries
//     into TMPDIR and makes TMPDIR/opencode.
func opencodeEnv(t *testing.T, r *run, base string) []string {
	t.Helper()
	dir := filepath.Join(r.Home, ".config", "opencode")
	files := map[string]string{
		"opencode.json":     replaceBase(opencodeConfig, base),
		"package.json":      `{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}` + "\n",
		"package-lock.json": `{"lockfileVersion":3,"packages":{"":{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}}}` + "\n",
	}
	writeFiles(t, dir, files)
	tmp := filepath.Join(r.Home, "tmp")
	for _, d := range []string{filepath.Join(dir, "node_modules"), tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return []string{
		"TMPDIR=" + tmp,
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1",
		"OPENCODE_DISABLE_EXTERNAL_SKILLS=1",
	}
}

// TestPi runs pi 0.73 (`pi -p`) through hookgate and straight against the
// model.
func TestPi(t *testing.T) {
	bin := nodeBin(t, "pi")
	args := []string{"-p", "--provider", "scripted", "--model", "scripted-model", "--no-session", cliPrompt}
	t.Run("gate", func(t *testing.T) {
		t.Parallel()
		r := newRun(t)
		out := execOffline(t, r, bin, args, piEnv(t, r, r.Gate))
		assertThroughGate(t, r, out)
	})
	t.Run("direct", func(t *testing.T) {
		t.Parallel()
		r := newRun(t)
		out := execOffline(t, r, bin, args, piEnv(t, r, r.Direct))
		assertDirect(t, r, out)
	})
}

// piModels is pi's custom provider on chat completions ("openai-completions")
// at the base URL; the system prompt goes as a system message.
const piModels = `{
  "providers": {
    "scripted": {
      "baseUrl": "BASE/v1",
      "api": "openai-completions",
      "apiKey": "sk-e2e-agents",
      "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
      "models": [{"id": "scripted-model"}]
    }
  }
}
`

// piEnv writes pi's models.json under the run's home and returns the
// environment that keeps pi off the network: PI_OFFLINE (no version check,
// no tool downloads) and PI_TELEMETRY=0.
func piEnv(t *testing.T, r *run, base string) []string {
	t.Helper()
	dir := filepath.Join(r.Home, ".pi", "agent")
	writeFiles(t, dir, map[string]string{"models.json": replaceBase(piModels, base)})
	return []string{"PI_CODING_AGENT_DIR=" + dir, "PI_OFFLINE=1", "PI_TELEMETRY=0"}
}

// replaceBase puts base where a config template says BASE.
func replaceBase(template, base string) string {
	return strings.ReplaceAll(template, "BASE", base)
}

// writeFiles writes name -> content under dir, creating dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
