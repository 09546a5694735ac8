package providers

import (
	"errors"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// FuzzMessagesEvent checks that the event view never panics and, for what
// it accepts, agrees with gjson on every member it reads.
func FuzzMessagesEvent(f *testing.F) {
	for _, fx := range fixtures.List(f, fixtures.APIAnthropic, fixtures.KindSSE) {
		p := NewSSEParser(0)
		p.Feed(fx.Read(f))
		p.End()
		for fr, _ := p.Next(); fr != nil; fr, _ = p.Next() {
			if fr.HasData() {
				f.Add(append([]byte(nil), fr.Data...))
			}
		}
	}
	for _, s := range []string{
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}`,
		`{"type":"content_block_delta","index":01,"delta":{"type":"input_json_delta","partial_json":"{\"a\\u0022"}}`,
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		`{"type":"x","type":"y"}`, `{"delta":{"text":"a","text":"b"}}`, `[1]`, `"s"`, `{"index":-1}`, `{"ty\u0070e":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ev MessagesEvent
		err := ev.Decode(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidJSON) {
				t.Fatalf("error %v does not wrap ErrInvalidJSON", err)
			}
			if ev.Type.Present() || ev.Index != -1 {
				t.Fatal("a failed decode left members set")
			}
			return
		}
		if !gjson.ValidBytes(data) {
			t.Fatal("accepted invalid JSON")
		}
		root := gjson.ParseBytes(data)
		check := func(name string, got Field, path string) {
			want := root.Get(path)
			if got.Present() != want.Exists() {
				t.Fatalf("%s: present %v, gjson %v", name, got.Present(), want.Exists())
			}
			if got.Present() && string(got.Raw) != want.Raw {
				t.Fatalf("%s: %q, gjson %q", name, got.Raw, want.Raw)
			}
			if got.IsString() && got.Text() != want.Str {
				t.Fatalf("%s text: %q, gjson %q", name, got.Text(), want.Str)
			}
		}
		if !hasEscapedKey(data) {
			// gjson paths match keys literally; the view decodes escaped
			// keys, so only plain keys can be compared.
			check("type", ev.Type, "type")
			check("message", ev.Message, "message")
			check("usage", ev.Usage, "usage")
			check("error", ev.Error, "error")
			if b := root.Get("content_block"); b.IsObject() {
				check("block.type", ev.Block.Type, "content_block.type")
				check("block.id", ev.Block.ID, "content_block.id")
				check("block.input", ev.Block.Input, "content_block.input")
			}
			if d := root.Get("delta"); d.IsObject() {
				check("delta.partial_json", ev.Delta.PartialJSON, "delta.partial_json")
				check("delta.stop_reason", ev.Delta.StopReason, "delta.stop_reason")
			}
			if i := root.Get("index"); ev.Index >= 0 && (i.Type != gjson.Number || int(i.Int()) != ev.Index) {
				t.Fatalf("index %d, gjson %s", ev.Index, i.Raw)
			}
		}
	})
}

func hasEscapedKey(data []byte) bool {
	escaped := false
	var walk func(gjson.Result)
	walk = func(v gjson.Result) {
		v.ForEach(func(k, e gjson.Result) bool {
			if hasByte([]byte(k.Raw), '\\') {
				escaped = true
			}
			if e.IsObject() || e.IsArray() {
				walk(e)
			}
			return !escaped
		})
	}
	if root := gjson.ParseBytes(data); root.IsObject() || root.IsArray() {
		walk(root)
	}
	return escaped
}
