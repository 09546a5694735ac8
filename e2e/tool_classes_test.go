package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// Tool classes end to end: Codex-shaped Responses traffic (function tools
// exec_command and write_stdin, the custom tool apply_patch) and
// opencode-shaped chat traffic through hookgate, judged by hooks that name
// a class instead of each agent's tool names.

// codexTools are the tools a Codex request declares, in the shapes Codex
// declares them: two function tools and one custom (free-form) tool.
const codexTools = `[
 {"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"},"tty":{"type":"boolean"}},"required":["cmd"]}},
 {"type":"function","name":"write_stdin","parameters":{"type":"object","properties":{"session_id":{"type":"number"},"chars":{"type":"string"}},"required":["session_id"]}},
 {"type":"custom","name":"apply_patch","description":"Edit files with a patch.","format":{"type":"grammar","syntax":"lark","definition":"start: /(.|\\n)+/"}}]`

// codexCall is one call the scripted model makes: a function call with
// JSON arguments, or a custom tool call with free text.
type codexCall struct {
	id, name, args string
	custom         bool
}

// codexStream is a Responses stream whose one output item is the call.
func codexStream(respID string, c codexCall) []byte {
	var b strings.Builder
	seq := 0
	emit := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		raw, err := json.Marshal(fields)
		if err != nil {
			panic(err)
		}
		b.WriteString("event: " + typ + "\ndata: " + string(raw) + "\n\n")
	}
	item := func(status, body string) map[string]any {
		if c.custom {
			return map[string]any{"id": "ctc_" + c.id, "type": "custom_tool_call", "status": status, "call_id": c.id, "name": c.name, "input": body}
		}
		return map[string]any{"id": "fc_" + c.id, "type": "function_call", "status": status, "call_id": c.id, "name": c.name, "arguments": body}
	}
	response := func(status string, output []any) map[string]any {
		r := map[string]any{"id": respID, "object": "response", "created_at": 1700000000, "status": status, "model": "gpt-5-codex",
			"output": output, "parallel_tool_calls": false, "tool_choice": "auto", "tools": []any{}, "error": nil, "incomplete_details": nil}
		if status == "completed" {
			r["usage"] = map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
				"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
		}
		return r
	}
	emit("response.created", map[string]any{"response": response("in_progress", []any{})})
	emit("response.output_item.added", map[string]any{"output_index": 0, "item": item("in_progress", "")})
	itemID := "fc_" + c.id
	delta, done, key := "response.function_call_arguments.delta", "response.function_call_arguments.done", "arguments"
	if c.custom {
		itemID, delta, done, key = "ctc_"+c.id, "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done", "input"
	}
	// Split the arguments in two deltas: judged only whole.
	half := len(c.args) / 2
	emit(delta, map[string]any{"item_id": itemID, "output_index": 0, "delta": c.args[:half]})
	emit(delta, map[string]any{"item_id": itemID, "output_index": 0, "delta": c.args[half:]})
	emit(done, map[string]any{"item_id": itemID, "output_index": 0, key: c.args})
	emit("response.output_item.done", map[string]any{"output_index": 0, "item": item("completed", c.args)})
	emit("response.completed", map[string]any{"response": response("completed", []any{item("completed", c.args)})})
	return []byte(b.String())
}

// codexTurn plays one turn of a Codex session: the mock answers with the
// call, and codexTurn reports whether the call reached the agent and the
// stream the agent got.
func codexTurn(t *testing.T, s *stack, session string, turn int, c codexCall) (passed bool, body string) {
	t.Helper()
	s.mock.Enqueue(mockupstream.Stream(codexStream(fmt.Sprintf("resp_%s_%d", session, turn), c), mockupstream.Chunking{Mode: mockupstream.Random, Size: 37, Seed: uint64(turn)}))
	req := `{"model":"gpt-5-codex","stream":true,"instructions":"You are Codex.","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"tidy /srv"}]}],"tools":` + codexTools + `}`
	status, _, raw := rawPost(t, s.app.URL(), "/v1/responses", []byte(req), map[string]string{"X-Session-Id": session})
	body = string(raw)
	if status != 200 {
		t.Fatalf("turn %d: status %d: %s", turn, status, hgShort(raw))
	}
	var completed gjson.Result
	for _, ev := range hgEvents(raw) {
		if gjson.Get(ev, "type").Str == "response.completed" {
			completed = gjson.Get(ev, "response")
		}
	}
	if !completed.Exists() {
		t.Fatalf("turn %d: no response.completed: %s", turn, hgShort(raw))
	}
	for _, it := range completed.Get("output").Array() {
		if it.Get("call_id").Str == c.id {
			passed = true
		}
	}
	// A call that did not reach the agent is in no event either.
	if !passed && strings.Contains(body, `"call_id":"`+c.id+`"`) {
		t.Fatalf("turn %d: call %s is left out of response.completed but still in the stream: %s", turn, c.id, hgShort(raw))
	}
	return passed, body
}

// A Codex session opens a shell with exec_command {"cmd":"bash","tty":true}
// and types rm -r /srv/x into it through write_stdin in two calls: the
// shell-class hook judges the line the second call completes, and blocks
// it. The same second call on a terminal where nothing was typed before
// passes (the first half is what makes it destructive), and a patch that
// moves a file under /etc is judged by a file_write-class hook.
func TestToolClassesCodexTypesThroughWriteStdin(t *testing.T) {
	s := startStack(t, `hooks:
  - id: no-recursive-srv
    event: pre_tool_use
    classes: [shell]
    handler:
      type: builtin
      name: deny_patterns
      with:
        patterns: [{label: rm-recursive-srv, regex: '\brm\s+-r\S*\s+/srv'}]
        fields: [tool.command]
  - id: no-etc-writes
    event: pre_tool_use
    classes: [file_write]
    if_expr: "tool.paths.exists(p, p.startsWith('/etc/'))"
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "no writes under /etc: " + e.tool.paths.join(", ") }; }
`)
	steps := []struct {
		call codexCall
		pass bool
		note string
	}{
		{codexCall{id: "call_open", name: "exec_command", args: `{"cmd":"bash","tty":true,"yield_time_ms":1000}`}, true, ""},
		{codexCall{id: "call_type1", name: "write_stdin", args: `{"session_id":1,"chars":"rm -"}`}, true, ""},
		{codexCall{id: "call_type2", name: "write_stdin", args: `{"session_id":1,"chars":"r /srv/x\n"}`}, false, "rm-recursive-srv"},
		{codexCall{id: "call_patch", name: "apply_patch", custom: true, args: "*** Begin Patch\n*** Update File: notes.txt\n*** Move to: /etc/cron.d/job\n@@\n-a\n+b\n*** End Patch\n"}, false, "no writes under /etc: notes.txt, /etc/cron.d/job"},
		{codexCall{id: "call_patch_ok", name: "apply_patch", custom: true, args: "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n"}, true, ""},
	}
	for i, st := range steps {
		passed, body := codexTurn(t, s, "codex-1", i, st.call)
		if passed != st.pass {
			t.Fatalf("step %d (%s %s): reached the agent %v, want %v: %s", i, st.call.name, st.call.args, passed, st.pass, hgShort([]byte(body)))
		}
		if st.note != "" && !strings.Contains(body, st.note) {
			t.Errorf("step %d: the stream does not say why (%q): %s", i, st.note, hgShort([]byte(body)))
		}
	}
	// Control: the second half alone, on another session's terminal 1.
	if passed, body := codexTurn(t, s, "codex-2", 9, codexCall{id: "call_alone", name: "write_stdin", args: `{"session_id":1,"chars":"r /srv/x\n"}`}); !passed {
		t.Fatalf("the second half alone was blocked: %s", hgShort([]byte(body)))
	}
}

// The strict shipped set blocks the interactive shell itself.
func TestToolClassesStrictSetBlocksAnInteractiveShell(t *testing.T) {
	s := startStack(t, `hooks:
  - id: strict
    event: pre_tool_use
    classes: [shell]
    handler: {type: builtin, name: deny_patterns, with: {defaults: [shell, recursive_delete], fields: [tool.command]}}
`)
	if passed, body := codexTurn(t, s, "codex-3", 0, codexCall{id: "call_sh", name: "exec_command", args: `{"cmd":"cd /srv; exec bash","tty":true}`}); passed || !strings.Contains(body, "interactive-shell") {
		t.Fatalf("interactive shell: reached the agent %v: %s", passed, hgShort([]byte(body)))
	}
	if passed, body := codexTurn(t, s, "codex-3", 1, codexCall{id: "call_rm", name: "exec_command", args: `{"cmd":"rm -rf ./build"}`}); passed || !strings.Contains(body, "rm-recursive") {
		t.Fatalf("rm -rf ./build: reached the agent %v: %s", passed, hgShort([]byte(body)))
	}
	if passed, body := codexTurn(t, s, "codex-3", 2, codexCall{id: "call_ls", name: "exec_command", args: `{"cmd":"ls -la","tty":true}`}); !passed {
		t.Fatalf("ls blocked: %s", hgShort([]byte(body)))
	}
}

// chatToolCall streams one chat-completions tool call and reports whether
// it reached the client.
func chatToolCall(t *testing.T, s *stack, id, name, args string) (bool, string) {
	t.Helper()
	s.mock.Enqueue(mockupstream.Stream(hgSSE(hgChunk(hgCall(0, id, name, args), ""), hgChunk(`{}`, "tool_calls")), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	_, body := hgPostStream(t, s, nil)
	return strings.Contains(string(body), `"id":"`+id+`"`), string(body)
}

// A policy written for one agent's shell tool judges the others' that
// differ from it only in case, instead of refusing them as look-alikes:
// with ^Bash$ (Claude Code) in the policy, opencode's and pi's bash is
// judged by it; with ^bash$, Claude Code's Bash is. A case variant no
// agent declares (BASH) is still refused.
func TestToolClassesCaseMatesAreJudgedNotRefused(t *testing.T) {
	for _, tc := range []struct{ matcher, mate string }{{"^Bash$", "bash"}, {"^bash$", "Bash"}} {
		t.Run(tc.matcher, func(t *testing.T) {
			s := startStack(t, `hooks:
  - id: no-wipe
    event: pre_tool_use
    matcher: "`+tc.matcher+`"
    handler: {type: builtin, name: deny_patterns, with: {defaults: [shell]}}
`)
			if passed, body := chatToolCall(t, s, "call_ls", tc.mate, `{"command":"ls -la"}`); !passed {
				t.Fatalf("%s ls refused beside %s: %s", tc.mate, tc.matcher, hgShort([]byte(body)))
			}
			passed, body := chatToolCall(t, s, "call_rm", tc.mate, `{"command":"rm -rf /"}`)
			if passed || !strings.Contains(body, "rm-root") || strings.Contains(body, "differs only in case") {
				t.Fatalf("%s rm -rf / beside %s: reached the client %v: %s", tc.mate, tc.matcher, passed, hgShort([]byte(body)))
			}
			if passed, body := chatToolCall(t, s, "call_up", "BASH", `{"command":"ls"}`); passed || !strings.Contains(body, "differs only in case") {
				t.Fatalf("BASH beside %s: reached the client %v: %s", tc.matcher, passed, hgShort([]byte(body)))
			}
		})
	}
}

// A misspelt class fails the load with an error naming the entry and the
// classes there are.
func TestToolClassesMisspeltClassFailsTheLoad(t *testing.T) {
	mock := mockupstream.Start(t)
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: mock\n    provider: openai\n    base_url: " + mock.URL() + `
store:
  path: ` + filepath.Join(t.TempDir(), "hookgate.db") + `
hooks:
  - id: typo
    event: pre_tool_use
    classes: [shel]
    handler: {type: builtin, name: deny_patterns, with: {defaults: [shell]}}
`
	cfg, err := config.Parse([]byte(doc), "e2e.yaml", os.LookupEnv)
	if err == nil {
		var a *app.App
		if a, err = app.Build(cfg, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil {
			a.Close()
		}
	}
	if err == nil || !strings.Contains(err.Error(), `classes[0]: unknown tool class "shel" (want one of [shell file_write file_read web_fetch])`) || !strings.Contains(err.Error(), "typo") {
		t.Fatalf("load error %v", err)
	}
}
