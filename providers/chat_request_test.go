package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// An agent's request as it is sent on turn two: system prompt, user text in
// parts, an assistant tool call, its result, a new user message. Odd number
// formats and an unknown member must survive every edit.
const agentRequest = `{"model":"gpt-4o","temperature":0.70,"top_p":1e0,"stream":true,"user":"u-1","x_vendor":{"keep":[1,2.50]},
"messages":[{"role":"system","content":"You are terse."},{"role":"developer","content":[{"type":"text","text":"Use tools."}]},
{"role":"user","content":[{"type":"text","text":"list /tmp"},{"type":"image_url","image_url":{"url":"data:x"}},{"type":"text","text":"please"}]},
{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"shell","arguments":"{\"cmd\":\"ls /tmp\"}"}}]},
{"role":"tool","tool_call_id":"call_1","content":"a.txt\nb.txt"},
{"role":"user","content":"now delete them"}],
"tools":[{"type":"function","function":{"name":"shell","parameters":{"type":"object"}}},{"type":"function","function":{"name":"read_file"}}]}`

func TestParseChatRequest(t *testing.T) {
	r, err := ParseChatRequest([]byte(agentRequest))
	if err != nil {
		t.Fatal(err)
	}
	if r.Model != "gpt-4o" || !r.Stream || r.User != "u-1" || !r.HasAssistant || r.LegacyFunctions {
		t.Errorf("top level: %+v", r)
	}
	if !reflect.DeepEqual(r.ToolNames, []string{"shell", "read_file"}) {
		t.Errorf("tool names %v", r.ToolNames)
	}
	if r.SystemText != "You are terse.\n\nUse tools." {
		t.Errorf("system text %q", r.SystemText)
	}
	if r.NewestUser != 5 || r.NewestUserText() != "now delete them" {
		t.Errorf("newest user %d %q", r.NewestUser, r.NewestUserText())
	}
	if m := r.Messages[2]; m.Content != "list /tmp\nplease" || m.ContentState != FieldOther || m.NonTextParts != 1 {
		t.Errorf("parts message: %+v", m)
	}
	if m := r.Messages[3]; m.ContentState != FieldNull || len(m.ToolCalls) != 1 ||
		m.ToolCalls[0] != (RequestToolCall{ID: "call_1", Name: "shell", Arguments: `{"cmd":"ls /tmp"}`}) {
		t.Errorf("assistant message: %+v", m)
	}
	if c, ok := r.ToolResult("call_1"); !ok || c != "a.txt\nb.txt" || r.ToolResults[0].Message != 4 {
		t.Errorf("tool result %q %v", c, ok)
	}
	if _, ok := r.ToolResult("nope"); ok {
		t.Error("unknown tool result found")
	}
	// Independent check with encoding/json.
	var std struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(agentRequest), &std); err != nil {
		t.Fatal(err)
	}
	for i, m := range std.Messages {
		if r.Messages[i].Role != m.Role {
			t.Errorf("message %d role %q vs %q", i, r.Messages[i].Role, m.Role)
		}
	}
}

func TestParseChatRequestErrors(t *testing.T) {
	for _, in := range []string{``, `{"model":`, `[]`, `{"messages":{}}`, `{"model":"a","model":"b"}`,
		`{"messages":[{"role":"user","content":"a","content":"b"}]}`} {
		if _, err := ParseChatRequest([]byte(in)); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("ParseChatRequest(%q) = %v, want ErrInvalidJSON", in, err)
		}
	}
	r, err := ParseChatRequest([]byte(`{"model":"m","functions":[{"name":"f"}],"messages":[{"role":"system","content":"s"}]}`))
	if err != nil || !r.LegacyFunctions || r.NewestUser != -1 || r.NewestUserText() != "" || r.HasAssistant ||
		!reflect.DeepEqual(r.ToolNames, []string{"f"}) {
		t.Errorf("legacy functions: %+v %v", r, err)
	}
}

// requestVariants are agentRequest as compact, pretty-printed and with
// leading whitespace, so offsets and splices are tested in each layout.
func requestVariants(t *testing.T) map[string][]byte {
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(agentRequest), "", "  "); err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"as sent":  []byte(agentRequest),
		"pretty":   pretty.Bytes(),
		"leading":  append([]byte("\n  \t"), agentRequest...),
		"no leads": []byte(strings.Replace(agentRequest, `{"role":"system","content":"You are terse."},{"role":"developer","content":[{"type":"text","text":"Use tools."}]},`, "", 1)),
	}
}

// assertOnlyMessagesChanged checks unknown members and number formats
// outside messages are byte-identical.
func assertOnlyMessagesChanged(t *testing.T, name string, in, out []byte) {
	t.Helper()
	if !gjson.ValidBytes(out) {
		t.Fatalf("%s: invalid JSON:\n%s", name, out)
	}
	for _, p := range []string{"model", "temperature", "top_p", "stream", "user", "x_vendor", "tools"} {
		if a, b := gjson.GetBytes(in, p).Raw, gjson.GetBytes(out, p).Raw; a != b {
			t.Errorf("%s: %s changed %s -> %s", name, p, a, b)
		}
	}
	var ka, kb []string
	gjson.ParseBytes(in).ForEach(func(k, _ gjson.Result) bool { ka = append(ka, k.Str); return true })
	gjson.ParseBytes(out).ForEach(func(k, _ gjson.Result) bool { kb = append(kb, k.Str); return true })
	if !reflect.DeepEqual(ka, kb) {
		t.Errorf("%s: key order %v -> %v", name, ka, kb)
	}
	if !bytes.Contains(out, []byte(`"temperature":0.70`)) && !bytes.Contains(out, []byte(`"temperature": 0.70`)) {
		t.Errorf("%s: number format lost", name)
	}
}

func TestInjectSystemMessage(t *testing.T) {
	for name, in := range requestVariants(t) {
		orig := bytes.Clone(in)
		before, err := ParseChatRequest(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, where := range []SystemPlacement{SystemFirst, SystemAfterLeading} {
			out, err := InjectSystemMessage(in, "Policy: no \"rm\".\n", where)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !bytes.Equal(in, orig) {
				t.Fatal("input modified")
			}
			assertOnlyMessagesChanged(t, name, in, out)
			after, err := ParseChatRequest(out)
			if err != nil {
				t.Fatal(err)
			}
			at := 0
			if where == SystemAfterLeading {
				for at < len(before.Messages) && (before.Messages[at].Role == "system" || before.Messages[at].Role == "developer") {
					at++
				}
			}
			if len(after.Messages) != len(before.Messages)+1 {
				t.Fatalf("%s: %d messages", name, len(after.Messages))
			}
			if m := after.Messages[at]; m.Role != "system" || m.Content != "Policy: no \"rm\".\n" {
				t.Errorf("%s/%d: message %d = %+v", name, where, at, m)
			}
			rest := append(append([]RequestMessage{}, after.Messages[:at]...), after.Messages[at+1:]...)
			if !reflect.DeepEqual(rest, before.Messages) {
				t.Errorf("%s/%d: other messages changed", name, where)
			}
		}
	}
	for _, in := range []string{`{"messages":[]}`, `{"messages":[{"role":"system","content":"a"}]}`, " {\"messages\" : [ ] }"} {
		for _, where := range []SystemPlacement{SystemFirst, SystemAfterLeading} {
			out, err := InjectSystemMessage([]byte(in), "x", where)
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			r, err := ParseChatRequest(out)
			if err != nil || r.SystemText == "" || !strings.Contains(r.SystemText, "x") {
				t.Errorf("%s -> %s: %v", in, out, err)
			}
		}
	}
	if _, err := InjectSystemMessage([]byte(`{"model":"m"}`), "x", SystemFirst); !errors.Is(err, ErrInvalidJSON) {
		t.Errorf("no messages: %v", err)
	}
}

func TestReplaceToolResult(t *testing.T) {
	for name, in := range requestVariants(t) {
		out, err := ReplaceToolResult(in, "call_1", "[redacted by hookgate]")
		if err != nil {
			t.Fatal(err)
		}
		assertOnlyMessagesChanged(t, name, in, out)
		r, _ := ParseChatRequest(out)
		if c, _ := r.ToolResult("call_1"); c != "[redacted by hookgate]" {
			t.Errorf("%s: result now %q", name, c)
		}
		for _, k := range diffKeys(flatten(t, in), flatten(t, out)) {
			if !strings.HasSuffix(k, ".content") || gjson.GetBytes(out, strings.TrimSuffix(k, ".content")+".role").Str != "tool" {
				t.Errorf("%s: %s changed", name, k)
			}
		}
		if _, err := ReplaceToolResult(in, "call_9", "x"); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown id: %v", err)
		}
	}
}
