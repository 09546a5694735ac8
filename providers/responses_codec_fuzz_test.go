package providers

import (
	"bytes"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// FuzzResponsesCodecDecode feeds arbitrary event payloads to
// ResponsesCodec: nothing panics, a call item a client reads (in an item
// event, or in a terminal event's output) is a piece of a call or one of
// the frame's calls whenever the payload decodes, and the edits of a
// terminal frame return valid JSON whose output lists no removed call.
func FuzzResponsesCodecDecode(f *testing.F) {
	for _, fx := range fixtures.List(f, fixtures.APIResponses, fixtures.KindSSE) {
		for _, line := range bytes.Split(fx.Read(f), []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok && len(d) < 4096 {
				f.Add(d)
			}
		}
	}
	f.Add([]byte(`{"type":"response.output_item.added","item":{"id":"fc","type":"function_call","arguments":"","call_id":"c","name":"x"},"output_index":0}`))
	f.Add([]byte(`{"type":"response.completed","response":{"output":[{"type":"function_call","arguments":{"a":1},"call_id":"c","name":"x"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fr CodecFrame
		if err := ResponsesCodec.DecodeFrame(data, &fr); err != nil {
			return
		}
		j := gjson.ParseBytes(data)
		typ := j.Get("type").Str
		if it := j.Get("item.type").Str; (it == "function_call" || it == "custom_tool_call") &&
			(typ == "response.output_item.added" || typ == "response.output_item.done") &&
			fr.Piece.Part != PieceStart && fr.Piece.Part != PieceEnd {
			t.Fatalf("a call item read as %+v: %s", fr.Piece, data)
		}
		if !fr.Ends || fr.Error {
			return
		}
		calls := 0
		for _, o := range j.Get("response.output").Array() {
			if it := o.Get("type").Str; it == "function_call" || it == "custom_tool_call" {
				calls++
			}
		}
		if calls != len(fr.Calls) {
			t.Fatalf("%d calls in the output, %d read: %s", calls, len(fr.Calls), data)
		}
		edits := make([]CallEdit, len(fr.Calls))
		for i := range edits {
			edits[i] = CallEdit{Call: i, Remove: true}
		}
		out, err := ResponsesCodec.EditFrame(data, &fr, edits, "note")
		if err != nil {
			return
		}
		if !gjson.ValidBytes(out) {
			t.Fatalf("edited into invalid JSON: %s", out)
		}
		for _, o := range gjson.GetBytes(out, "response.output").Array() {
			if it := o.Get("type").Str; it == "function_call" || it == "custom_tool_call" {
				t.Fatalf("a removed call is still listed: %s", out)
			}
		}
	})
}
