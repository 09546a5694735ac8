package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// The gjson-based views ParseChatRequest and ParseChatResponse replaced,
// kept as the reference the one-pass views must agree with exactly
// (values, errors, oddities).

// refParseChatRequest is the former ParseChatRequest.
func refParseChatRequest(body []byte) (*ChatRequest, error) {
	root, err := parseBody(body, "chat request")
	if err != nil {
		return nil, err
	}
	msgs := root.Get("messages")
	if msgs.Exists() && !msgs.IsArray() {
		return nil, fmt.Errorf("chat request: messages is %s, not an array: %w", msgs.Type, ErrInvalidJSON)
	}
	r := &ChatRequest{
		Model:      root.Get("model").String(),
		Stream:     root.Get("stream").Bool(),
		User:       root.Get("user").String(),
		NewestUser: -1,
	}
	var system []string
	i := 0
	msgs.ForEach(func(_, m gjson.Result) bool {
		msg := RequestMessage{
			Role:       m.Get("role").String(),
			Name:       m.Get("name").String(),
			ToolCallID: m.Get("tool_call_id").String(),
		}
		msg.Content, msg.ContentState = refContentText(m.Get("content"))
		if msg.ContentState == FieldOther {
			m.Get("content").ForEach(func(_, p gjson.Result) bool {
				if t := p.Get("type"); t.Exists() && t.Str != "text" {
					msg.NonTextParts++
				}
				return true
			})
		}
		m.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
			call := RequestToolCall{ID: tc.Get("id").String(), Name: tc.Get("function.name").String()}
			if a := tc.Get("function.arguments"); a.Type == gjson.String {
				call.Arguments = a.Str
			} else if a.Exists() && a.Type != gjson.Null {
				call.Arguments = a.Raw
			}
			msg.ToolCalls = append(msg.ToolCalls, call)
			return true
		})
		switch msg.Role {
		case "system", "developer":
			system = append(system, msg.Content)
		case "user":
			r.NewestUser = i
		case "assistant":
			r.HasAssistant = true
		case "tool":
			r.ToolResults = append(r.ToolResults, ToolResult{ToolCallID: msg.ToolCallID, Content: msg.Content, Message: i})
		}
		r.Messages = append(r.Messages, msg)
		i++
		return true
	})
	r.SystemText = strings.Join(system, "\n\n")
	root.Get("tools").ForEach(func(_, t gjson.Result) bool {
		if n := t.Get("function.name"); n.Exists() {
			r.ToolNames = append(r.ToolNames, n.String())
		}
		return true
	})
	if f := root.Get("functions"); f.Exists() && f.Type != gjson.Null {
		r.LegacyFunctions = true
		f.ForEach(func(_, fn gjson.Result) bool {
			r.ToolNames = append(r.ToolNames, fn.Get("name").String())
			return true
		})
	}
	return r, nil
}

// refParseChatResponse is the former ParseChatResponse.
func refParseChatResponse(body []byte) (*ChatResponse, error) {
	root, err := parseBody(body, "chat response")
	if err != nil {
		return nil, err
	}
	r := &ChatResponse{ID: root.Get("id").String()}
	u := root.Get("usage")
	r.HasUsage = u.Exists() && u.Type != gjson.Null
	pos := 0
	var refused error
	root.Get("choices").ForEach(func(_, c gjson.Result) bool {
		ch := ResponseChoice{Index: pos, Pos: pos}
		if i := c.Get("index"); refBadIndex(i) {
			refused = ErrBadIndex
			return false
		} else if i.Type == gjson.Number {
			ch.Index = int(i.Int())
		}
		msg := c.Get("message")
		if meaningful([]byte(msg.Get("function_call").Raw)) {
			refused = ErrUnjudgedCall
			return false
		}
		ch.Role = msg.Get("role").String()
		ch.Content, ch.ContentState = refContentText(msg.Get("content"))
		k := 0
		msg.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
			call := ResponseToolCall{Pos: k, Index: -1, ID: tc.Get("id").String(), Type: tc.Get("type").String(),
				Name: tc.Get("function.name").String()}
			if a := tc.Get("function.arguments"); a.Type == gjson.String {
				call.Arguments = a.Str
			} else if a.Exists() && a.Type != gjson.Null {
				call.Arguments = a.Raw // an object instead of a string holding one
			}
			if i := tc.Get("index"); refBadIndex(i) {
				refused = ErrBadIndex
				return false
			} else if i.Type == gjson.Number {
				call.Index = int(i.Int())
			}
			if cu := tc.Get("custom"); meaningful([]byte(cu.Raw)) || call.Type == "custom" {
				if meaningful([]byte(tc.Get("function").Raw)) || call.Type != "custom" {
					refused = ErrUnjudgedCall
					return false
				}
				input, _ := json.Marshal(cu.Get("input").String())
				call.Custom, call.Name, call.Arguments = true, cu.Get("name").String(), `{"input":`+string(input)+`}`
			}
			ch.ToolCalls = append(ch.ToolCalls, call)
			k++
			return true
		})
		if refused != nil {
			return false
		}
		if fr := c.Get("finish_reason"); fr.Type == gjson.String {
			ch.FinishReason = fr.Str
		}
		r.Choices = append(r.Choices, ch)
		pos++
		return true
	})
	if refused != nil {
		return nil, refused
	}
	return r, nil
}

// refBadIndex reports an index member that is neither absent, null, nor a
// plain non-negative integer of at most nine digits.
func refBadIndex(i gjson.Result) bool {
	if !i.Exists() || i.Type == gjson.Null {
		return false
	}
	if i.Type != gjson.Number || len(i.Raw) > 9 || (len(i.Raw) > 1 && i.Raw[0] == '0') {
		return true
	}
	return strings.Trim(i.Raw, "0123456789") != ""
}

// refContentText is the former contentText.
func refContentText(v gjson.Result) (string, FieldState) {
	switch {
	case !v.Exists():
		return "", FieldAbsent
	case v.Type == gjson.Null:
		return "", FieldNull
	case v.Type == gjson.String && v.Str == "":
		return "", FieldEmpty
	case v.Type == gjson.String:
		return v.Str, FieldString
	case v.IsArray():
		var parts []string
		v.ForEach(func(_, p gjson.Result) bool {
			if p.Type == gjson.String {
				parts = append(parts, p.Str)
			} else if t := p.Get("text"); t.Type == gjson.String && (p.Get("type").Str == "text" || !p.Get("type").Exists()) {
				parts = append(parts, t.Str)
			}
			return true
		})
		return strings.Join(parts, "\n"), FieldOther
	default:
		return "", FieldOther
	}
}

// refInjectSystemMessage is the former InjectSystemMessage.
func refInjectSystemMessage(body []byte, text string, where SystemPlacement) ([]byte, error) {
	const what = "inject system message"
	if _, err := parseBody(body, what); err != nil {
		return nil, err
	}
	// GetBytes and ForEach give offsets into body (Result.Index).
	msgs := gjson.GetBytes(body, "messages")
	if !msgs.IsArray() {
		return nil, fmt.Errorf("%s: no messages array: %w", what, ErrInvalidJSON)
	}
	msg := append(appendQuoted([]byte(`{"role":"system","content":`), text), '}')

	// Find the element to insert before (or the end of the array).
	var elems []gjson.Result
	msgs.ForEach(func(_, m gjson.Result) bool {
		elems = append(elems, m)
		return true
	})
	k := 0
	if where == SystemAfterLeading {
		for k < len(elems) {
			role := elems[k].Get("role").String()
			if role != "system" && role != "developer" {
				break
			}
			k++
		}
	}
	var at int
	var ins []byte
	switch {
	case len(elems) == 0:
		open := strings.IndexByte(msgs.Raw, '[')
		at, ins = msgs.Index+open+1, msg
	case k < len(elems):
		at, ins = elems[k].Index, append(msg, ',')
	default:
		last := elems[len(elems)-1]
		at, ins = last.Index+len(last.Raw), append([]byte{','}, msg...)
	}
	if msgs.Index <= 0 || at <= 0 || at > len(body) || (len(elems) > 0 && string(body[elems[0].Index:elems[0].Index+len(elems[0].Raw)]) != elems[0].Raw) {
		return nil, fmt.Errorf("%s: cannot locate messages in the body: %w", what, ErrInvalidJSON)
	}
	out := make([]byte, 0, len(body)+len(ins))
	out = append(append(append(out, body[:at]...), ins...), body[at:]...)
	if !gjson.ValidBytes(out) {
		return nil, fmt.Errorf("%s: splice produced invalid JSON: %w", what, ErrInvalidJSON)
	}
	return out, nil
}

// responseSeeds are the recorded plain completions and a few odd ones.
func responseSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	for _, fx := range fixtures.List(tb, fixtures.APIChatCompletions, fixtures.KindJSON) {
		out = append(out, fx.Read(tb))
	}
	for _, s := range []string{
		`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"total_tokens":1}}`,
		`{"choices":[{"index":"1","message":{"content":[{"type":"text","text":"a"},"b",{"text":"c"},{"type":"image","text":"d"}]}}]}`,
		`{"choices":[{"index":2.5,"message":{"tool_calls":null}},{"message":{"tool_calls":"x"}},{"message":{"tool_calls":{"a":{"id":"c"}}}}]}`,
		`{"choices":{"a":{"index":-3,"message":{"role":1,"content":{}}}},"usage":null}`,
		`{"choices":[{"message":{"tool_calls":[{"index":1e2,"id":"c","type":"function","function":{"name":"exec","arguments":{"command":"ls"}}},{"function":"x"},{"function":{"arguments":null}}]}}]}`,
		`{"choices":[{"message":{"t\u006fol_calls":[{"id":"c","function":{"\u006e\u0061\u006d\u0065":"n","arguments":"{\"a\":\"\ud83d\ude00\"}"}}]},"finish_reason":"t\u006fol_calls"}],"id":12}`,
		`{"choices":[{"message":{"tool_calls":[{"id":"c","type":"custom","custom":{"name":"exec","input":"rm \"-rf\" /"}}]}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"id":"c","type":"function","function":{"name":"ls"},"custom":{"name":"exec","input":"rm -rf /"}}]}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"id":"c","type":"custom","function":{"name":"ls"}}]}}]}`,
		`{"choices":[{"message":{"function_call":{"name":"exec","arguments":"{}"},"tool_calls":null}}]}`,
		`{"choices":[{"index":null,"message":{"function_call":null,"tool_calls":[{"index":null,"function":{"name":"ls"}}]}}]}`,
		`  {"choices":[],"id":null}`, `{"choices":"x"}`, `{"choices":null}`, `{"choices":[1,"a",null,[]]}`,
	} {
		out = append(out, []byte(s))
	}
	return out
}

// oddRequestSeeds are requests with the members' unusual shapes.
var oddRequestSeeds = []string{
	`{"model":1.50,"stream":"true","user":null,"messages":[{"role":"user","content":[{"type":"text","text":"a"},"b",{"text":"c"},{"type":null},{"type":"image_url"}]}]}`,
	`{"model":true,"stream":1,"messages":[{"role":"assistant","tool_calls":null},{"role":"assistant","tool_calls":"x"},{"role":"assistant","tool_calls":{"k":{"id":"a","function":{"name":"n","arguments":null}}}}]}`,
	`{"messages":[{"role":"tool","content":{"a":{"type":"image"}},"tool_call_id":5},{"role":"developer","content":7},{"role":"system","content":null}]}`,
	`{"messages":[{"\u0074\u006f\u006f\u006c\u005f\u0063\u0061\u006c\u006c\u005f\u0069\u0064":"c1","role":"tool","content":"x"}]}`,
	`{"tools":null,"functions":"x"}`, `{"tools":[{"function":{"name":null}},{"function":"f"},1],"functions":[{"x":1},{"name":"g"}]}`,
	`{"functions":null,"stream":false,"messages":null}`, `{"messages":{}}`, `{"messages":3}`,
	`{"messages":[{"role":"user","content":"\ud800\u0041 \ud83d\ude00"}]}`,
}

func FuzzParseChatRequestMatchesReference(f *testing.F) {
	for _, s := range requestSeeds(f) {
		f.Add(s)
	}
	for _, s := range oddRequestSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := ParseChatRequest(body)
		want, wantErr := refParseChatRequest(body)
		if (err == nil) != (wantErr == nil) || errors.Is(err, ErrDuplicateKey) != errors.Is(wantErr, ErrDuplicateKey) {
			t.Fatalf("%q: error %v, reference %v", body, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", body, got, want)
		}
	})
}

func FuzzParseChatResponseMatchesReference(f *testing.F) {
	for _, s := range responseSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := ParseChatResponse(body)
		if errors.Is(err, ErrKeySpelling) {
			// The canonical-form gate refuses what the views would read
			// otherwise than a Go client; FuzzCheckCanonicalMatchesEncodingJSON
			// checks the gate against its reference.
			return
		}
		want, wantErr := refParseChatResponse(body)
		if (err == nil) != (wantErr == nil) || errors.Is(err, ErrDuplicateKey) != errors.Is(wantErr, ErrDuplicateKey) {
			t.Fatalf("%q: error %v, reference %v", body, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", body, got, want)
		}
	})
}

// TestChatViewsMatchReference runs the seeds without fuzzing.
func TestChatViewsMatchReference(t *testing.T) {
	var reqs [][]byte
	for _, fx := range fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindJSON) {
		if msg := gjson.GetBytes(fx.Read(t), "choices.0.message"); msg.IsObject() {
			reqs = append(reqs, []byte(`{"messages":[{"role":"user","content":"x"},`+msg.Raw+`]}`))
		}
	}
	for _, s := range oddRequestSeeds {
		reqs = append(reqs, []byte(s))
	}
	reqs = append(reqs, []byte(benchChatRequest))
	for _, body := range reqs {
		got, err := ParseChatRequest(body)
		want, wantErr := refParseChatRequest(body)
		if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("request %.120s:\n got %+v, %v\nwant %+v, %v", body, got, err, want, wantErr)
		}
	}
	for _, body := range responseSeeds(t) {
		got, err := ParseChatResponse(body)
		if errors.Is(err, ErrKeySpelling) {
			if refErr, _ := refCanonical(body); !errors.Is(refErr, ErrKeySpelling) {
				t.Errorf("response %.120s: gate %v, encoding/json reference %v", bytes.TrimSpace(body), err, refErr)
			}
			continue
		}
		want, wantErr := refParseChatResponse(body)
		if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("response %.120s:\n got %+v, %v\nwant %+v, %v", bytes.TrimSpace(body), got, err, want, wantErr)
		}
	}
}

func FuzzInjectSystemMessageMatchesReference(f *testing.F) {
	for _, s := range requestSeeds(f) {
		f.Add(s, "ctx", true)
	}
	for _, s := range []string{`{"messages":[]}`, ` {"messages":[ ]} `, `{"messages":[{"role":"system"},{"role":"developer"}]}`,
		`{"messages":[{"r\u006fle":"system"},{"role":"user"}],"x":1}`, `{"messages":[1,"a",null]}`, `{"messages":{}}`} {
		f.Add([]byte(s), "a \"b\"\n", false)
		f.Add([]byte(s), "", true)
	}
	f.Fuzz(func(t *testing.T, body []byte, text string, after bool) {
		where := SystemFirst
		if after {
			where = SystemAfterLeading
		}
		got, err := InjectSystemMessage(body, text, where)
		want, wantErr := refInjectSystemMessage(body, text, where)
		if (err == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, %v\nwant %s, %v", body, got, err, want, wantErr)
		}
	})
}
