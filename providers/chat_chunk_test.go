package providers

import (
	"errors"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/fixtures"
	"github.com/tidwall/gjson"
)

func TestChatChunkDecode(t *testing.T) {
	var c ChatChunk
	data := `{"id":"x","choices":[
		{"index":0,"delta":{"role":"assistant","content":null,"refusal":null,"tool_calls":[
			{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}},
			{"id":null,"function":{"name":null,"arguments":"{\"a\":1}"}},
			{"index":null,"id":"","function":{}}]},
		 "finish_reason":null},
		{"index":1,"delta":{"content":"hi\n","reasoning_content":"think"},"finish_reason":"stop"},
		{"delta":{"role":"assistant","graph_data":{},"llm_data":null,"channel":""}}
	],"usage":null,"error":{"code":400,"message":"Token limit reached"}}`
	if err := c.Decode([]byte(data)); err != nil {
		t.Fatal(err)
	}
	if len(c.Choices) != 3 {
		t.Fatalf("%d choices", len(c.Choices))
	}
	if c.HasUsage() || !c.Usage.IsNull() || !c.HasError() || !c.HasToolCalls() {
		t.Errorf("usage %q error %q", c.Usage.Raw, c.Error.Raw)
	}
	ch := c.Choices[0]
	if ch.Index != 0 || ch.Content.State() != FieldNull || ch.HasContent() || !ch.Role.Equal("assistant") ||
		ch.Other || ch.Finished() || ch.FinishReason.State() != FieldNull {
		t.Errorf("choice 0: %+v", ch)
	}
	if len(ch.ToolCalls) != 3 {
		t.Fatalf("%d tool call deltas", len(ch.ToolCalls))
	}
	d0, d1, d2 := ch.ToolCalls[0], ch.ToolCalls[1], ch.ToolCalls[2]
	if d0.Index != 0 || !d0.ID.Equal("call_1") || !d0.Name.Equal("f") || d0.Arguments.State() != FieldEmpty || !d0.Type.Equal("function") {
		t.Errorf("delta 0: %+v", d0)
	}
	if d1.HasIndex() || d1.ID.State() != FieldNull || d1.Name.State() != FieldNull || d1.Arguments.Text() != `{"a":1}` || d1.Pos != 1 {
		t.Errorf("delta 1: %+v", d1)
	}
	if d2.HasIndex() || d2.ID.State() != FieldEmpty || d2.Name.State() != FieldAbsent || d2.Arguments.Present() {
		t.Errorf("delta 2 (a null index is no index): %+v", d2)
	}
	ch = c.Choices[1]
	if ch.Index != 1 || ch.Content.Text() != "hi\n" || !ch.HasContent() || !ch.Other || !ch.Finished() || ch.FinishReason.Text() != "stop" {
		t.Errorf("choice 1: %+v", ch)
	}
	ch = c.Choices[2]
	if ch.Index != 2 || ch.Pos != 2 || ch.Other || ch.Content.Present() {
		t.Errorf("choice 2 (index from position, empty values not meaningful): %+v", ch)
	}
}

func TestChatChunkDuplicateKeys(t *testing.T) {
	var c ChatChunk
	for _, in := range []string{
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"cmd\":\"ls\"}","arguments":"{\"cmd\":\"rm -rf /\"}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","id":"b"}]}}]}`,
		`{"choices":[{"delta":{}}],"choices":[]}`,
		`{"choices":[{"finish_reason":null,"finish_reason":"stop"}]}`,
	} {
		if err := c.Decode([]byte(in)); !errors.Is(err, ErrDuplicateKey) || !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("Decode(%s) = %v, want ErrDuplicateKey", in, err)
		}
	}
	// Repeats are refused at any depth, among keys the view does not read
	// too: a client's struct may read them.
	if err := c.Decode([]byte(`{"x":1,"x":2,"choices":[{"delta":{"content":"a","refusal":null,"refusal":null}}]}`)); !errors.Is(err, ErrDuplicateKey) {
		t.Errorf("unread duplicate: %v, want ErrDuplicateKey", err)
	}
	// An escaped spelling of a member is refused (canonical_keys.go).
	for _, in := range []string{
		`{"choices":[{"delta":{"con\u0074ent":"x"}}]}`,
		`{"choices":[{"delta":{"content":"a","con\u0074ent":"b"}}]}`,
	} {
		if err := c.Decode([]byte(in)); !errors.Is(err, ErrKeySpelling) || !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("Decode(%s) = %v, want ErrKeySpelling", in, err)
		}
	}
}

func TestValidateUniqueRefusesRepeatedKeys(t *testing.T) {
	ok := []string{`{}`, `[]`, `{"a":{"a":1},"b":[{"a":1},{"a":2}]}`, `"x"`, `{"a":1,"b":{"c":{"a":2}},"c":3}`}
	bad := []string{`{"a":1,"a":2}`, `{"x":[{"k":1,"k":2}]}`, `{"a":1,"\u0061":2}`, `{"a":{"b":1},"c":{"d":1,"d":2}}`}
	for _, in := range ok {
		if err := validateUnique([]byte(in), nil); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
	for _, in := range bad {
		if err := validateUnique([]byte(in), nil); !errors.Is(err, ErrDuplicateKey) {
			t.Errorf("%s: got %v", in, err)
		}
	}
	deep := strings.Repeat("[", maxJSONDepth+2) + strings.Repeat("]", maxJSONDepth+2)
	if err := validateUnique([]byte(deep), nil); !errors.Is(err, ErrInvalidJSON) {
		t.Errorf("deep nesting: %v", err)
	}
}

func TestChatChunkInvalid(t *testing.T) {
	var c ChatChunk
	for _, in := range []string{"", "[DONE]", `{"choices":[`, `[1,2]`, `"x"`, `{"a":1}x`} {
		if err := c.Decode([]byte(in)); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("Decode(%q) = %v, want ErrInvalidJSON", in, err)
		}
	}
}

// Every chunk of every chat fixture decodes, and the view agrees with gjson
// on what each choice carries.
func TestChatChunkAgreesWithGJSON(t *testing.T) {
	var c ChatChunk
	check := func(t *testing.T, data []byte) {
		if err := c.Decode(data); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		g := gjson.ParseBytes(data)
		if n := len(g.Get("choices").Array()); n != len(c.Choices) {
			t.Fatalf("choices %d vs %d", len(c.Choices), n)
		}
		if c.HasUsage() != (g.Get("usage").Exists() && g.Get("usage").Type != gjson.Null) {
			t.Errorf("usage disagrees: %s", data)
		}
		for i, gc := range g.Get("choices").Array() {
			ch := c.Choices[i]
			if int(gc.Get("index").Int()) != ch.Index {
				t.Errorf("index %d vs %d", ch.Index, gc.Get("index").Int())
			}
			if gc.Get("delta.content").String() != ch.Content.Text() {
				t.Errorf("content %q vs %q", ch.Content.Text(), gc.Get("delta.content").String())
			}
			if gc.Get("finish_reason").String() != ch.FinishReason.Text() {
				t.Errorf("finish_reason")
			}
			gtc := gc.Get("delta.tool_calls").Array()
			if len(gtc) != len(ch.ToolCalls) {
				t.Fatalf("tool calls %d vs %d", len(ch.ToolCalls), len(gtc))
			}
			for j, gt := range gtc {
				d := ch.ToolCalls[j]
				if gt.Get("id").String() != d.ID.Text() || gt.Get("function.name").String() != d.Name.Text() ||
					gt.Get("function.arguments").String() != d.Arguments.Text() {
					t.Errorf("tool call %d disagrees: %+v vs %s", j, d, gt.Raw)
				}
				if gi := gt.Get("index"); gi.Exists() != d.HasIndex() || (gi.Exists() && int(gi.Int()) != d.Index) {
					t.Errorf("tool call index %d vs %s", d.Index, gi.Raw)
				}
			}
		}
	}
	for _, fx := range fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindSSE) {
		t.Run(fx.Rel, func(t *testing.T) {
			p := NewSSEParser(0)
			p.Feed(fx.Read(t))
			p.End()
			for f, err := p.Next(); f != nil || err != nil; f, err = p.Next() {
				if err != nil {
					t.Fatal(err)
				}
				if f.HasData() && !f.Done {
					check(t, f.Data)
				}
			}
		})
	}
}
