package providers

// Hardening fuzzers: what hookgate reads out of a request or a
// chunk must be what an ordinary JSON decoder reads out of the same bytes.
// The reference decoder is encoding/json into map[string]any, which keeps
// the LAST of repeated keys and matches keys exactly (as Python's json and
// JavaScript's JSON.parse do). hookgate refuses repeated keys it reads, so
// whenever both accept a body they must agree on every value a hook sees.

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// refDecode decodes b with encoding/json; ok is false when it refuses.
func refDecode(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false // trailing data
	}
	return v, true
}

// refStr is m[key] when it is a string.
func refStr(m any, key string) (string, bool) {
	o, ok := m.(map[string]any)
	if !ok {
		return "", false
	}
	s, ok := o[key].(string)
	return s, ok
}

func refObj(m any, key string) any {
	o, ok := m.(map[string]any)
	if !ok {
		return nil
	}
	return o[key]
}

// refObjFold reads a member as encoding/json matches struct fields (and
// so go-openai reads chunks): an exact key first, else one equal under
// Unicode case folding. Chunks are read by agents' decoders this way;
// requests by the upstream, which matches keys exactly.
func refObjFold(m any, key string) any {
	o, ok := m.(map[string]any)
	if !ok {
		return nil
	}
	if v, ok := o[key]; ok {
		return v
	}
	for k, v := range o {
		if strings.EqualFold(k, key) {
			return v
		}
	}
	return nil
}

// refStrFold is refStr with refObjFold's matching.
func refStrFold(m any, key string) (string, bool) {
	s, ok := refObjFold(m, key).(string)
	return s, ok
}

func refArr(m any, key string) []any {
	a, _ := refObj(m, key).([]any)
	return a
}

// comparable reports input on which a byte-level comparison is fair:
// encoding/json replaces invalid UTF-8 and lone surrogates with U+FFFD
// while gjson keeps the bytes; neither form is a bypass (both are
// refused downstream or compared as bytes by the hooks), so such inputs
// only have to not crash.
func comparable(b []byte) bool {
	return utf8.Valid(b) && !bytes.Contains(b, []byte(`\ud`)) && !bytes.Contains(b, []byte(`\uD`))
}

// requestSeeds builds request bodies from the recorded plain responses:
// the assistant message of each becomes the history of a request, with a
// tool result for each of its calls.
func requestSeeds(f *testing.F) [][]byte {
	var out [][]byte
	for _, fx := range fixtures.List(f, fixtures.APIChatCompletions, fixtures.KindJSON) {
		msg := gjson.GetBytes(fx.Read(f), "choices.0.message")
		if !msg.IsObject() {
			continue
		}
		var b strings.Builder
		b.WriteString(`{"model":"gpt-4o","stream":true,"user":"u1","messages":[{"role":"system","content":"be careful"},{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"x"}}]},`)
		b.WriteString(msg.Raw)
		msg.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
			b.WriteString(`,{"role":"tool","tool_call_id":` + strconv.Quote(tc.Get("id").String()) + `,"content":"ok"}`)
			return true
		})
		b.WriteString(`],"tools":[{"type":"function","function":{"name":"exec","parameters":{"type":"object"}}}]}`)
		if len(b.String()) < 16<<10 {
			out = append(out, []byte(b.String()))
		}
	}
	return out
}

// FuzzParseChatRequest: any body either is refused with ErrInvalidJSON or
// reads exactly as encoding/json reads it (roles, contents, tool calls,
// tool results, the newest user message), so a hook never judges a
// conversation other than the one the upstream receives.
func FuzzParseChatRequest(f *testing.F) {
	for _, s := range requestSeeds(f) {
		f.Add(s)
	}
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		`{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}],"messages":[]}`,
		`{"messages":[{"role":"tool","tool_call_id":"c1","content":"x","tool_call_id":"c2"}]}`,
		`{"messages":[{"r\u006fle":"user","content":"esc"}]}`,
		`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"exec","arguments":{"command":"ls"}}}]}]}`,
		`{"messages":"nope"}`, `[]`, `{"messages":[{"role":"user","content":"\u0000"}]}`,
		"{\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}", `{"functions":[{"name":"f"}]}`,
		`{"messages":[{"role":"user","content":"a"}]} {"x":1}`, `{"messages":[1,null,true,{}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseChatRequest(body)
		if err != nil {
			if !errors.Is(err, ErrInvalidJSON) {
				t.Fatalf("error of an unexpected kind: %v", err)
			}
			return
		}
		if r.NewestUser >= len(r.Messages) || (r.NewestUser >= 0 && r.Messages[r.NewestUser].Role != "user") {
			t.Fatalf("NewestUser %d of %d messages", r.NewestUser, len(r.Messages))
		}
		ref, ok := refDecode(body)
		if !ok || !comparable(body) {
			return
		}
		msgs := refArr(ref, "messages")
		if len(msgs) != len(r.Messages) {
			t.Fatalf("%d messages, encoding/json reads %d", len(r.Messages), len(msgs))
		}
		newest := -1
		tools := 0
		for i, m := range msgs {
			got := r.Messages[i]
			if role, ok := refStr(m, "role"); ok {
				if got.Role != role {
					t.Fatalf("message %d: role %q, encoding/json reads %q", i, got.Role, role)
				}
				if role == "user" {
					newest = i
				}
				if role == "tool" {
					tools++
				}
			}
			if c, ok := refStr(m, "content"); ok && got.Content != c {
				t.Fatalf("message %d: content %q, encoding/json reads %q", i, got.Content, c)
			}
			if id, ok := refStr(m, "tool_call_id"); ok && got.ToolCallID != id {
				t.Fatalf("message %d: tool_call_id %q, encoding/json reads %q", i, got.ToolCallID, id)
			}
			calls := refArr(m, "tool_calls")
			if _, isArr := refObj(m, "tool_calls").([]any); isArr && len(calls) != len(got.ToolCalls) {
				t.Fatalf("message %d: %d tool calls, encoding/json reads %d", i, len(got.ToolCalls), len(calls))
			}
			for k, c := range calls {
				if k >= len(got.ToolCalls) {
					break
				}
				if id, ok := refStr(c, "id"); ok && got.ToolCalls[k].ID != id {
					t.Fatalf("message %d call %d: id %q vs %q", i, k, got.ToolCalls[k].ID, id)
				}
				fn := refObj(c, "function")
				if n, ok := refStr(fn, "name"); ok && got.ToolCalls[k].Name != n {
					t.Fatalf("message %d call %d: name %q vs %q", i, k, got.ToolCalls[k].Name, n)
				}
				if a, ok := refStr(fn, "arguments"); ok && got.ToolCalls[k].Arguments != a {
					t.Fatalf("message %d call %d: arguments %q vs %q", i, k, got.ToolCalls[k].Arguments, a)
				}
			}
		}
		if _, isArr := refObj(ref, "messages").([]any); isArr {
			if newest != r.NewestUser {
				t.Fatalf("newest user message %d, encoding/json reads %d", r.NewestUser, newest)
			}
			if tools != len(r.ToolResults) {
				t.Fatalf("%d tool results, encoding/json reads %d", len(r.ToolResults), tools)
			}
		}
	})
}

// FuzzChatChunkView: a chunk payload is refused, or hookgate's view of it
// (choices, their tool-call entries with id, name and arguments, content,
// finish_reason) is what encoding/json reads. A tool-call entry hookgate
// did not see would reach the agent without being judged.
func FuzzChatChunkView(f *testing.F) {
	for _, fx := range fixtures.List(f, fixtures.APIChatCompletions, fixtures.KindSSE) {
		for _, l := range bytes.Split(fx.Read(f), []byte("\n")) {
			l = bytes.TrimRight(l, "\r")
			if p, ok := bytes.CutPrefix(l, []byte("data:")); ok && bytes.Contains(p, []byte("tool_calls")) && len(p) < 4096 {
				f.Add(bytes.TrimSpace(p))
			}
		}
	}
	for _, s := range []string{
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"exec","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"t\u006fol_calls":[{"index":0,"function":{"n\u0061me":"exec","arguments":""}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"a"}},{"function":{"name":"b"}}]},"finish_reason":"stop"}]}`,
		`{"choices":[],"usage":{"total_tokens":1}}`, `{"error":{"message":"x"},"choices":[]}`,
		`{"choices":[{"index":0,"delta":{"content":"\u00e9\n"}}]}`,
	} {
		f.Add([]byte(s))
	}
	var chunk ChatChunk
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := chunk.Decode(data); err != nil {
			if !errors.Is(err, ErrInvalidJSON) {
				t.Fatalf("error of an unexpected kind: %v", err)
			}
			return
		}
		ref, ok := refDecode(data)
		if !ok {
			t.Fatalf("hookgate read a chunk encoding/json refuses: %q", data)
		}
		if !comparable(data) {
			return
		}
		choices, isArr := refObjFold(ref, "choices").([]any)
		if !isArr {
			if len(chunk.Choices) != 0 {
				t.Fatalf("%d choices where encoding/json reads none", len(chunk.Choices))
			}
			return
		}
		if len(choices) != len(chunk.Choices) {
			t.Fatalf("%d choices, encoding/json reads %d", len(chunk.Choices), len(choices))
		}
		for i, c := range choices {
			got := &chunk.Choices[i]
			delta := refObjFold(c, "delta")
			if s, ok := refStrFold(delta, "content"); ok && got.Content.Text() != s {
				t.Fatalf("choice %d: content %q, encoding/json reads %q", i, got.Content.Text(), s)
			}
			if s, ok := refStrFold(c, "finish_reason"); ok && got.Finished() != (s != "") {
				t.Fatalf("choice %d: finished %v, encoding/json reads finish_reason %q", i, got.Finished(), s)
			}
			calls, isArr := refObjFold(delta, "tool_calls").([]any)
			if !isArr {
				if len(got.ToolCalls) != 0 {
					t.Fatalf("choice %d: %d tool-call entries where encoding/json reads none", i, len(got.ToolCalls))
				}
				continue
			}
			if len(calls) != len(got.ToolCalls) {
				t.Fatalf("choice %d: %d tool-call entries, encoding/json reads %d", i, len(got.ToolCalls), len(calls))
			}
			for k, tc := range calls {
				d := &got.ToolCalls[k]
				if s, ok := refStrFold(tc, "id"); ok && d.ID.Text() != s {
					t.Fatalf("choice %d call %d: id %q vs %q", i, k, d.ID.Text(), s)
				}
				fn := refObjFold(tc, "function")
				if s, ok := refStrFold(fn, "name"); ok && d.Name.Text() != s {
					t.Fatalf("choice %d call %d: name %q vs %q", i, k, d.Name.Text(), s)
				}
				if s, ok := refStrFold(fn, "arguments"); ok && d.Arguments.Text() != s {
					t.Fatalf("choice %d call %d: arguments %q vs %q", i, k, d.Arguments.Text(), s)
				}
			}
		}
	})
}
