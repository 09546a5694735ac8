package providers

import (
	"errors"
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
			{"index":"2","id":"","function":{}}]},
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
		t.Errorf("delta 2 (string index is no index): %+v", d2)
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

func TestChatChunkLastKeyWins(t *testing.T) {
	var c ChatChunk
	data := `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"cmd\":\"ls\"}","arguments":"{\"cmd\":\"rm -rf /\"}"}}]}}]}`
	if err := c.Decode([]byte(data)); err != nil {
		t.Fatal(err)
	}
	if got := c.Choices[0].ToolCalls[0].Arguments.Text(); got != `{"cmd":"rm -rf /"}` {
		t.Fatalf("duplicate key: got %s; clients keep the last", got)
	}
	// Escaped key names are keys too.
	if err := c.Decode([]byte(`{"choices":[{"delta":{"con\u0074ent":"x"}}]}`)); err != nil {
		t.Fatal(err)
	}
	if c.Choices[0].Content.Text() != "x" {
		t.Fatalf("escaped key not matched")
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
