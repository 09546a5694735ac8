//go:build agents

package agents

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// The agent SDKs are libraries, so each runs as the small program a user
// would write with it (e2e/agents/node/agents-sdk.mjs and ai-sdk.mjs): one
// `bash {command}` function tool that really runs the command in the
// working directory, the SDK's own tool loop, and the final answer printed
// as what the program's user sees. The clients come from the SDKs'
// defaults, pointed at a base URL by the environment as a user would.

// sdkPrompt is the user's request; the scripted model ignores its text.
const sdkPrompt = "Tidy up this repository with the bash tool, then tell me what you did."

// sdkCase is one SDK program on one API and mode.
type sdkCase struct {
	name   string
	driver string   // file under e2e/agents/node
	args   []string // the driver's arguments before the prompt
	env    func(base string) []string
	// control also runs the case straight against the model, to show that
	// there the destructive command runs; one mode per API is enough.
	control bool
}

// openAIEnv points the OpenAI clients (the Agents SDK's default client and
// @ai-sdk/openai) at base, with the Agents SDK's tracing export off.
func openAIEnv(base string) []string {
	return []string{
		"OPENAI_BASE_URL=" + base + "/v1",
		"OPENAI_API_KEY=sk-e2e-agents",
		"OPENAI_AGENTS_DISABLE_TRACING=1",
	}
}

// anthropicEnv points @ai-sdk/anthropic at base; its base URL includes /v1.
func anthropicEnv(base string) []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + base + "/v1",
		"ANTHROPIC_API_KEY=sk-ant-e2e-agents",
	}
}

// TestAgentsSDK runs the OpenAI Agents SDK for JS (run() with a function
// tool) on the Responses API, its default, and on chat completions,
// streamed and not.
func TestAgentsSDK(t *testing.T) {
	runSDKCases(t, []sdkCase{
		{name: "responses/stream", driver: "agents-sdk.mjs", args: []string{"responses", "stream"}, env: openAIEnv, control: true},
		{name: "responses/plain", driver: "agents-sdk.mjs", args: []string{"responses", "plain"}, env: openAIEnv},
		{name: "chat/stream", driver: "agents-sdk.mjs", args: []string{"chat_completions", "stream"}, env: openAIEnv, control: true},
		{name: "chat/plain", driver: "agents-sdk.mjs", args: []string{"chat_completions", "plain"}, env: openAIEnv},
	})
}

// TestAISDK runs the Vercel AI SDK (ai@7, a tool with execute and
// stopWhen stepCountIs(5)) on chat completions (openai.chat), the
// Responses API (openai.responses) and Anthropic Messages, with
// streamText and generateText.
func TestAISDK(t *testing.T) {
	runSDKCases(t, []sdkCase{
		{name: "chat/stream", driver: "ai-sdk.mjs", args: []string{"chat", "stream"}, env: openAIEnv, control: true},
		{name: "chat/generate", driver: "ai-sdk.mjs", args: []string{"chat", "generate"}, env: openAIEnv},
		{name: "responses/stream", driver: "ai-sdk.mjs", args: []string{"responses", "stream"}, env: openAIEnv, control: true},
		{name: "responses/generate", driver: "ai-sdk.mjs", args: []string{"responses", "generate"}, env: openAIEnv},
		{name: "anthropic/stream", driver: "ai-sdk.mjs", args: []string{"anthropic", "stream"}, env: anthropicEnv, control: true},
		{name: "anthropic/generate", driver: "ai-sdk.mjs", args: []string{"anthropic", "generate"}, env: anthropicEnv},
	})
}

// runSDKCases runs every case through hookgate, and the control cases
// straight against the model too, in parallel: each run has its own model,
// gate, directory and home, and an SDK program is a short node process.
func runSDKCases(t *testing.T, cases []sdkCase) {
	node := nodeExecutable(t)
	for _, c := range cases {
		args := append(append([]string{filepath.Join(nodeDir(t), c.driver)}, c.args...), sdkPrompt)
		t.Run(c.name+"/gate", func(t *testing.T) {
			t.Parallel()
			r := newRun(t)
			out := execOffline(t, r, node, args, c.env(r.Gate))
			assertThroughGate(t, r, out)
		})
		if c.control {
			t.Run(c.name+"/direct", func(t *testing.T) {
				t.Parallel()
				r := newRun(t)
				out := execOffline(t, r, node, args, c.env(r.Direct))
				assertDirect(t, r, out)
			})
		}
	}
}

// nodeExecutable is the node that runs the SDK programs; without one the
// suite cannot run at all, which is a failure, not a skip.
func nodeExecutable(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH: the agent SDK programs need Node.js 20 or later: %v", err)
	}
	return p
}
