package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tenMistakes has ten independent mistakes: validate must list all ten in
// one run, each once, with its line.
const tenMistakes = `listen: 127.0.0.1:99999
admin:
  listen: 127.0.0.1:8788
  token_env: HG_VALIDATE_TEST_ADMIN
limts:
  max_request_bytes: 1MiB
upstreams:
  - name: openai
    provider: opnai
    base_url: https://api.openai.com
  - name: other
    provider: openai
    base_url: ${HG_VALIDATE_TEST_UNSET}
log:
  level: loud
interception:
  on_block: retry-forever
hooks:
  - id: a
    event: pre_tool
    handler: {type: builtin, name: deny_patterns, with: {defaults: [shell]}}
  - id: a
    event: pre_tool_use
    handler: {type: builtin, name: deny_patterns, with: {defaults: [shell]}}
  - id: ask-ops
    event: pre_tool_use
    handler: {type: builtin, name: approval, with: {channel: ops}}
  - id: bad-matcher
    event: pre_tool_use
    matcher: "(["
    handler: {type: builtin, name: deny_patterns, with: {defaults: [shell]}}
`

func TestValidateListsEveryIndependentProblemOnce(t *testing.T) {
	t.Setenv("HG_VALIDATE_TEST_ADMIN", "test-token")
	os.Unsetenv("HG_VALIDATE_TEST_UNSET")
	path := filepath.Join(t.TempDir(), "ten.yaml")
	if err := os.WriteFile(path, []byte(tenMistakes), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"validate", path}, &out, &errb); code != 1 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	report := errb.String()
	want := []string{
		":1: listen: want a port from 0 to 65535",
		`:5: unknown key "limts"`,
		`:9: upstreams[0].provider: unknown provider "opnai"`,
		":13: environment variable HG_VALIDATE_TEST_UNSET is not set",
		`:15: log.level: want debug, info, warn or error, got "loud"`,
		`:17: interception.on_block: want respond or retry, got "retry-forever"`,
		`:20: hooks[0].event: unknown event "pre_tool"`,
		`:22: hooks[1].id: duplicate hook id "a"`,
		`:27: hooks[2].handler.with.channel: channel "ops" is not configured`,
		`:28: hooks[3] bad-matcher: matcher:`,
	}
	var problems []string
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") {
			problems = append(problems, l)
		}
	}
	for _, w := range want {
		if !strings.Contains(report, w) {
			t.Errorf("missing %q", w)
		}
	}
	if !strings.Contains(report, "invalid configuration (10 problem(s))") || len(problems) != len(want) {
		t.Errorf("want %d problems, got %d", len(want), len(problems))
	}
	if strings.Contains(report, "want an absolute http(s) URL") {
		t.Error("the unset variable is reported a second time, as an empty URL")
	}
	if !strings.Contains(report, "hint:") {
		t.Error("no hint about the unset variable")
	}
	if t.Failed() {
		t.Logf("report:\n%s", report)
	}
}
