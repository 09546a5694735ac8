package hooks

// Hardening fuzzers for the decoders of what hooks answer: a
// script's result and an LLM judge's verdict. The command and http
// handlers' decoder is fuzzed in handler_command_wire_test.go.

import (
	"strings"
	"testing"
)

// FuzzDecodeScriptResult: whatever a script returns decodes to allow,
// rewrite or block, or to an error (which blocks); never to a panic, and a
// success always named its decision explicitly.
func FuzzDecodeScriptResult(f *testing.F) {
	for _, s := range []string{
		`{"decision":"allow"}`, `{"decision":"block","reason":"no"}`,
		`{"decision":"rewrite","updatedInput":{"command":"ls"}}`, `{"decision":"rewrite","updatedResult":"x"}`,
		`{"decision":"allow","additionalContext":"c","sideEffects":["a"]}`, `{"reason":"no decision"}`,
		`{"decision":"timeout"}`, `{"decision":"error"}`, `{"decision":null}`, `{"decision":1}`,
		`{"decision":"allow","extra":1}`, `"allow"`, `null`, `[]`, `{}`, `{"decision":"allow"} trailing`,
		`{"decision":"block","updatedInput":{"a":{"b":[1,2,{"c":null}]}}}`, "{\"decision\":\"\x00\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := decodeScriptResult(raw)
		if err != nil {
			return
		}
		switch res.Decision {
		case Allow, Rewrite, Block:
		default:
			t.Fatalf("decision %q from %q", res.Decision, raw)
		}
		// encoding/json matches keys case-insensitively and unescapes them.
		if low := strings.ToLower(string(raw)); !strings.Contains(low, "decision") && !strings.Contains(low, `\u`) && !strings.Contains(low, "\u017f") {
			t.Fatalf("a result without a decision decoded to %q: %q", res.Decision, raw)
		}
	})
}

// FuzzParseVerdict: a judge's answer is allow or block, or an error (which
// blocks). Prose, an empty answer and anything that is not one JSON object
// never decode; no answer yields rewrite, error or timeout.
func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{
		`{"decision":"allow","reason":"fine"}`, `{"decision":"block","reason":"no"}`,
		"```json\n{\"decision\":\"block\",\"reason\":\"x\"}\n```", "```\n{\"decision\":\"allow\",\"reason\":\"\"}\n```",
		`Sure! {"decision":"allow","reason":"ok"}`, `{"decision":"allow"}`, `{"decision":"rewrite","reason":"x"}`,
		`{"decision":"allow","reason":"x"}{"decision":"block","reason":"y"}`, `{"decision":"ALLOW","reason":"x"}`,
		``, `   `, "```python\n{\"decision\":\"allow\",\"reason\":\"x\"}\n```", `{"decision":"allow","reason":5}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		res, err := parseVerdict(content)
		if err != nil {
			return
		}
		if res.Decision != Allow && res.Decision != Block {
			t.Fatalf("verdict %q from %q", res.Decision, content)
		}
		if res.UpdatedInput != nil || res.UpdatedResult != nil || res.AdditionalContext != "" {
			t.Fatalf("a verdict carried more than a decision: %+v", res)
		}
		text := stripFence(strings.TrimSpace(content))
		if !strings.HasPrefix(text, "{") || !strings.HasSuffix(strings.TrimSpace(text), "}") {
			t.Fatalf("prose around the verdict was accepted: %q", content)
		}
	})
}
