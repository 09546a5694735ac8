package providers

import (
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

const ollamaChatRequest = `{"model":"qwen3","stream":false,"messages":[
{"role":"system","content":"be brief"},
{"role":"user","content":"first"},
{"role":"assistant","content":"","tool_calls":[{"function":{"name":"sh","arguments":{"cmd":"ls"}}},{"id":"c2","function":{"name":"sh","arguments":{"cmd":"pwd"}}}]},
{"role":"Tool","content":"a b","tool_name":"sh"},
{"role":"tool","content":"/","tool_call_id":"c2"},
{"role":"user","content":"newest"}],
"tools":[{"type":"function","function":{"name":"sh","parameters":{"type":"object","properties":{"Cmd":{"type":"string"}}}}}]}`

func TestParseOllamaRequest(t *testing.T) {
	r, err := ParseOllamaRequest([]byte(ollamaChatRequest))
	if err != nil {
		t.Fatal(err)
	}
	if r.Model != "qwen3" || r.Stream || r.System != "be brief" || r.FirstUserText() != "first" || r.NewestUserText() != "newest" {
		t.Errorf("%+v", r)
	}
	if len(r.ToolNames) != 1 || r.ToolNames[0] != "sh" || len(r.Messages[2].Calls) != 2 || r.Messages[2].Calls[0].Arguments != `{"cmd":"ls"}` {
		t.Errorf("tools %v calls %+v", r.ToolNames, r.Messages[2].Calls)
	}
	if len(r.ToolResults) != 2 {
		t.Fatalf("results %+v", r.ToolResults)
	}
	if res := r.ToolResults[0]; res.Message != 3 || res.CallMessage != 2 || res.CallPos != 0 || res.Content != "a b" {
		t.Errorf("result by name: %+v", res)
	}
	if res := r.ToolResults[1]; res.CallMessage != 2 || res.CallPos != 1 {
		t.Errorf("result by id: %+v", res)
	}
	if r, _ := ParseOllamaRequest([]byte(`{"messages":[]}`)); r == nil || !r.Stream || r.Structured {
		t.Error("stream absent should stream, format absent is not structured")
	}
	for _, f := range []string{`"json"`, `{"type":"object","properties":{"Answer":{"type":"string"}}}`} {
		if r, err := ParseOllamaRequest([]byte(`{"messages":[],"format":` + f + `}`)); err != nil || !r.Structured {
			t.Errorf("format %s: not structured (%v)", f, err)
		}
	}
	for _, c := range []struct {
		body string
		want error
	}{
		{`{"Messages":[{"role":"user","content":"x"}]}`, ErrKeySpelling},
		{`{"messages":[{"role":"user","content":"x","Content":"y"}]}`, ErrKeySpelling},
		{`{"messages":[{"role":"user","content":"x","content":"y"}]}`, ErrDuplicateKey},
		{`{"messages":{"role":"user"}}`, ErrInvalidJSON},
		{`{"messages":["x"]}`, ErrInvalidJSON},
		{`{"messages":[{"role":"user","content":["x"]}]}`, ErrInvalidJSON},
		{`{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"sh","arguments":"{}"}}]}]}`, ErrInvalidJSON},
	} {
		if _, err := ParseOllamaRequest([]byte(c.body)); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.body, err, c.want)
		}
	}
}

func TestOllamaRequestEdits(t *testing.T) {
	body := []byte(ollamaChatRequest)
	out, err := InjectOllamaSystem(body, "policy", false)
	if err != nil || gjson.GetBytes(out, "messages.0.content").Str != "policy" || gjson.GetBytes(out, "messages.1.content").Str != "be brief" {
		t.Fatalf("inject first: %v", err)
	}
	out, err = InjectOllamaSystem(body, "policy", true)
	if err != nil || gjson.GetBytes(out, "messages.1.content").Str != "policy" || gjson.GetBytes(out, "messages.#").Int() != 7 {
		t.Fatalf("inject after: %v", err)
	}
	out, err = InjectOllamaSystem([]byte(`{"model":"m"}`), "policy", true)
	if err != nil || gjson.GetBytes(out, "messages.0.role").Str != "system" {
		t.Fatalf("inject into none: %s %v", out, err)
	}
	out, err = ReplaceOllamaToolResult(body, 3, "[redacted]")
	if err != nil || gjson.GetBytes(out, "messages.3.content").Str != "[redacted]" || gjson.GetBytes(out, "messages.3.tool_name").Str != "sh" {
		t.Fatalf("replace: %v", err)
	}
	if _, err := ReplaceOllamaToolResult(body, 1, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("replace a user message: %v", err)
	}
	out, err = AppendOllamaMessageText(body, 5, "\n\n(context)")
	if err != nil || gjson.GetBytes(out, "messages.5.content").Str != "newest\n\n(context)" {
		t.Fatalf("append: %v", err)
	}
	if !strings.Contains(string(out), `"properties":{"Cmd":{"type":"string"}}`) {
		t.Error("an edit changed bytes it did not edit")
	}
	if _, err := AppendOllamaMessageText(body, 9, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("append past the end: %v", err)
	}
}
