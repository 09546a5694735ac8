package providers

import (
	"errors"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
)

// A Claude Code-like turn: a cached system prompt as blocks, a tool_use and
// its tool_result (content as blocks), then a new prompt.
const claudeTurn = `{"model":"claude-sonnet-4","max_tokens":1024,"stream":true,"metadata":{"user_id":"user_abc"},` +
	`"system":[{"type":"text","text":"You are Claude Code."},{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],` +
	`"tools":[{"name":"Bash","input_schema":{"type":"object"}},{"name":"Read","input_schema":{"type":"object"}}],` +
	`"messages":[` +
	`{"role":"user","content":"list files"},` +
	`{"role":"assistant","content":[{"type":"text","text":"Sure."},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a.txt"},{"type":"text","text":"b.txt"}]}]},` +
	`{"role":"assistant","content":[{"type":"text","text":"Two files."}]},` +
	`{"role":"user","content":[{"type":"text","text":"and now?","cache_control":{"type":"ephemeral"}}]}]}`

func TestParseMessagesRequest(t *testing.T) {
	r, err := ParseMessagesRequest([]byte(claudeTurn))
	if err != nil {
		t.Fatal(err)
	}
	if r.Model != "claude-sonnet-4" || !r.Stream || r.UserID != "user_abc" || !r.HasAssistant {
		t.Fatalf("header fields: %+v", r)
	}
	if r.System != "You are Claude Code.\n\nBe brief." || r.SystemState != FieldOther {
		t.Fatalf("system %q (%s)", r.System, r.SystemState)
	}
	if !reflect.DeepEqual(r.ToolNames, []string{"Bash", "Read"}) {
		t.Fatalf("tools %v", r.ToolNames)
	}
	if len(r.Messages) != 5 || r.Messages[1].ToolUses[0] != (MessagesToolUse{ID: "toolu_1", Name: "Bash", Input: `{"command":"ls"}`}) {
		t.Fatalf("messages %+v", r.Messages)
	}
	if r.Messages[2].HasText || !r.Messages[0].HasText || !r.Messages[4].HasText || r.Messages[4].Text != "and now?" {
		t.Fatalf("a tool_result-only message is not a prompt; the others are: %+v", r.Messages)
	}
	if len(r.ToolResults) != 1 || r.ToolResults[0] != (MessagesToolResult{ToolUseID: "toolu_1", Content: "a.txt\nb.txt", Message: 2}) {
		t.Fatalf("tool results %+v", r.ToolResults)
	}
	if got, ok := r.ToolResult("toolu_1"); !ok || got != "a.txt\nb.txt" {
		t.Fatalf("ToolResult %q %v", got, ok)
	}
	if r.FirstUserText() != "list files" {
		t.Fatalf("first user %q", r.FirstUserText())
	}

	s, err := ParseMessagesRequest([]byte(`{"system":"Be nice.","messages":[]}`))
	if err != nil || s.System != "Be nice." || s.SystemState != FieldString {
		t.Fatalf("string system: %+v %v", s, err)
	}
	for _, bad := range []string{`[]`, `{"messages":{}}`, `{"system":3}`, `{"model":"a","model":"b"}`, `{`} {
		if _, err := ParseMessagesRequest([]byte(bad)); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("%s: err %v, want ErrInvalidJSON", bad, err)
		}
	}
}

func TestInjectMessagesSystem(t *testing.T) {
	tests := []struct {
		name, body string
		after      bool
		want       string // the system member after the edit
	}{
		{"absent", `{"messages":[]}`, false, `"ctx"`},
		{"null", `{"system":null,"messages":[]}`, false, `"ctx"`},
		{"empty string", `{"system":"","messages":[]}`, false, `"ctx"`},
		{"string first", `{"system":"Agent.","messages":[]}`, false, `"ctx\n\nAgent."`},
		{"string after", `{"system":"Agent.","messages":[]}`, true, `"Agent.\n\nctx"`},
		{"blocks first", `{"system":[ {"type":"text","text":"A","cache_control":{"type":"ephemeral"}} ],"messages":[]}`, false,
			`[{"type":"text","text":"ctx"},{"type":"text","text":"A","cache_control":{"type":"ephemeral"}}]`},
		{"blocks after", `{"system":[{"type":"text","text":"A","cache_control":{"type":"ephemeral"}},{"type":"text","text":"B"}],"messages":[]}`, true,
			`[{"type":"text","text":"A","cache_control":{"type":"ephemeral"}},{"type":"text","text":"B"},{"type":"text","text":"ctx"}]`},
		{"empty blocks", `{"system":[],"messages":[]}`, false, `[{"type":"text","text":"ctx"}]`},
		{"empty blocks after", `{"system":[ ],"messages":[]}`, true, `[{"type":"text","text":"ctx"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.body)
			out, err := InjectMessagesSystem(in, "ctx", tt.after)
			if err != nil {
				t.Fatal(err)
			}
			if got := gjson.GetBytes(out, "system").Raw; got != tt.want {
				t.Fatalf("system %s, want %s", got, tt.want)
			}
			if gjson.GetBytes(out, "messages").Raw != "[]" || string(in) != tt.body {
				t.Fatalf("the rest changed or the input was written: %s", out)
			}
		})
	}
	if _, err := InjectMessagesSystem([]byte(`{"system":{}}`), "x", false); !errors.Is(err, ErrInvalidJSON) {
		t.Fatalf("object system: %v", err)
	}
}

func TestMessagesToolResultAndUserEdits(t *testing.T) {
	in := []byte(claudeTurn)
	out, err := ReplaceMessagesToolResult(in, "toolu_1", "short")
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(out, "messages.2.content.0").Raw; got != `{"type":"tool_result","tool_use_id":"toolu_1","content":"short"}` {
		t.Fatalf("tool result %s", got)
	}
	if _, err := ReplaceMessagesToolResult(in, "toolu_x", "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing id: %v", err)
	}
	out, err = AppendToMessagesMessage(in, 4, "\n\nmore")
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(out, "messages.4.content").Raw; got != `[{"type":"text","text":"and now?","cache_control":{"type":"ephemeral"}},{"type":"text","text":"\n\nmore"}]` {
		t.Fatalf("blocks content: %s", got)
	}
	out, err = AppendToMessagesMessage(in, 0, "!")
	if err != nil || gjson.GetBytes(out, "messages.0.content").String() != "list files!" {
		t.Fatalf("string content: %s %v", out, err)
	}
	if _, err := AppendToMessagesMessage(in, 9, "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing message: %v", err)
	}
	if string(in) != claudeTurn {
		t.Fatal("an edit wrote to its input")
	}
}
