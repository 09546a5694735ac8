package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// stdResponse is the shape encoding/json reads, an independent decoder.
type stdResponse struct {
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

func TestChatResponseFixtures(t *testing.T) {
	list := fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindJSON)
	if len(list) != 9 {
		t.Fatalf("%d chat .json fixtures", len(list))
	}
	for _, fx := range list {
		t.Run(fx.Rel, func(t *testing.T) {
			body := fx.Read(t)
			var std stdResponse
			if err := json.Unmarshal(body, &std); err != nil {
				t.Fatal(err)
			}
			r, err := ParseChatResponse(body)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Choices) != len(std.Choices) || len(r.Choices) == 0 {
				t.Fatalf("%d choices, encoding/json %d", len(r.Choices), len(std.Choices))
			}
			if !r.HasUsage {
				t.Error("usage not seen")
			}
			for i, sc := range std.Choices {
				c := r.Choices[i]
				if c.Index != sc.Index || c.Role != sc.Message.Role {
					t.Errorf("choice %d: %+v", i, c)
				}
				if sc.Message.Content != nil && c.Content != *sc.Message.Content {
					t.Errorf("content %q vs %q", c.Content, *sc.Message.Content)
				}
				if sc.FinishReason != nil && c.FinishReason != *sc.FinishReason {
					t.Errorf("finish_reason %q vs %q", c.FinishReason, *sc.FinishReason)
				}
				if len(c.ToolCalls) != len(sc.Message.ToolCalls) || len(c.ToolCalls) == 0 {
					t.Fatalf("%d tool calls, encoding/json %d", len(c.ToolCalls), len(sc.Message.ToolCalls))
				}
				for k, st := range sc.Message.ToolCalls {
					g := c.ToolCalls[k]
					if g.Pos != k || g.ID != st.ID || g.Type != st.Type || g.Name != st.Function.Name || g.Arguments != st.Function.Arguments {
						t.Errorf("tool call %d: %+v vs %+v", k, g, st)
					}
				}
			}
			checkResponseEdits(t, body, r)
		})
	}
}

// checkResponseEdits applies each edit to a fixture and checks that only
// the edited member changed.
func checkResponseEdits(t *testing.T, body []byte, r *ChatResponse) {
	t.Helper()
	orig := bytes.Clone(body)
	before := flatten(t, body)
	onlyUnder := func(name string, out []byte, prefixes ...string) map[string]string {
		t.Helper()
		if !bytes.Equal(body, orig) {
			t.Fatalf("%s modified its input", name)
		}
		after := flatten(t, out)
		for _, k := range diffKeys(before, after) {
			ok := false
			for _, p := range prefixes {
				ok = ok || strings.HasPrefix(k, p)
			}
			if !ok {
				t.Errorf("%s changed %s", name, k)
			}
		}
		return after
	}
	ch := r.Choices[0]
	cp := "choices.0."

	// Finish reason: a byte-level splice of the old value.
	out, err := SetResponseFinishReason(body, ch.Index, "stop")
	if err != nil {
		t.Fatal(err)
	}
	onlyUnder("SetResponseFinishReason", out, cp+"finish_reason")
	old := gjson.GetBytes(body, cp+"finish_reason")
	if want := string(body[:old.Index]) + `"stop"` + string(body[old.Index+len(old.Raw):]); string(out) != want {
		t.Errorf("finish_reason edit is not a splice:\n%s", out)
	}

	// Arguments of the last call.
	last := len(ch.ToolCalls) - 1
	out, err = SetResponseToolCallArguments(body, ch.Index, last, `{"path":"/tmp/\"x\""}`)
	if err != nil {
		t.Fatal(err)
	}
	onlyUnder("SetResponseToolCallArguments", out, cp+"message.tool_calls."+itoa(last)+".function.arguments")
	if got, _ := ParseChatResponse(out); got.Choices[0].ToolCalls[last].Arguments != `{"path":"/tmp/\"x\""}` {
		t.Errorf("arguments now %q", got.Choices[0].ToolCalls[last].Arguments)
	}

	// Content.
	out, err = AppendResponseContent(body, ch.Index, "\n[hookgate] blocked")
	if err != nil {
		t.Fatal(err)
	}
	onlyUnder("AppendResponseContent", out, cp+"message.content")
	if got, _ := ParseChatResponse(out); got.Choices[0].Content != ch.Content+"\n[hookgate] blocked" {
		t.Errorf("content now %q", got.Choices[0].Content)
	}

	// Remove the first call; the rest shift down and are renumbered.
	out, err = RemoveResponseToolCalls(body, ch.Index, 0)
	if err != nil {
		t.Fatal(err)
	}
	onlyUnder("RemoveResponseToolCalls", out, cp+"message.tool_calls")
	got, err := ParseChatResponse(out)
	if err != nil {
		t.Fatal(err)
	}
	rest := got.Choices[0].ToolCalls
	if len(rest) != len(ch.ToolCalls)-1 {
		t.Fatalf("%d calls left", len(rest))
	}
	for k, c := range rest {
		w := ch.ToolCalls[k+1]
		if c.ID != w.ID || c.Name != w.Name || c.Arguments != w.Arguments || (w.Index >= 0 && c.Index != k) {
			t.Errorf("after removal, call %d = %+v, want %+v renumbered", k, c, w)
		}
	}
	// Remove all: the member goes.
	all := make([]int, len(ch.ToolCalls))
	for i := range all {
		all[i] = i
	}
	out, err = RemoveResponseToolCalls(body, ch.Index, all...)
	if err != nil {
		t.Fatal(err)
	}
	onlyUnder("RemoveResponseToolCalls(all)", out, cp+"message.tool_calls")
	if gjson.GetBytes(out, cp+"message.tool_calls").Exists() {
		t.Error("tool_calls left after removing all")
	}
	if _, err := RemoveResponseToolCalls(body, ch.Index, len(ch.ToolCalls)); !errors.Is(err, ErrNotFound) {
		t.Errorf("out of range removal: %v", err)
	}
	if _, err := SetResponseFinishReason(body, 7, "stop"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing choice: %v", err)
	}
	if lead := len(body) - len(bytes.TrimLeft(body, " \t\r\n")); lead > 0 && !bytes.HasPrefix(out, body[:lead]) {
		t.Error("leading whitespace lost")
	}
}

func TestChatResponseContentForms(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"choices":[{"index":0,"message":{"role":"assistant","content":null}}]}`, `"x"`},
		{`{"choices":[{"index":0,"message":{"role":"assistant"}}]}`, `"x"`},
		{`{"choices":[{"index":0,"message":{"content":"a"}}]}`, `"ax"`},
		{`{"choices":[{"index":0,"message":{"content":[{"type":"text","text":"a"}]}}]}`, `[{"type":"text","text":"a"},{"type":"text","text":"x"}]`},
	}
	for _, c := range cases {
		out, err := AppendResponseContent([]byte(c.in), 0, "x")
		if err != nil {
			t.Fatal(err)
		}
		if got := gjson.GetBytes(out, "choices.0.message.content").Raw; got != c.want {
			t.Errorf("%s: content %s, want %s", c.in, got, c.want)
		}
	}
	for _, in := range []string{`{"choices":[{"message":{"content":"a","content":"b"}}]}`, `[1]`, `{"choices":`} {
		if _, err := ParseChatResponse([]byte(in)); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("ParseChatResponse(%s) = %v", in, err)
		}
		if _, err := AppendResponseContent([]byte(in), 0, "x"); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("AppendResponseContent(%s) = %v", in, err)
		}
	}
}
