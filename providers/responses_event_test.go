package providers

import (
	"errors"
	"testing"

	"github.com/tidwall/gjson"
)

func TestResponsesEventDecode(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		kind    ResponsesEventKind
		call    ResponsesCallKind
		final   string
	}{
		{"function call added", `{"type":"response.output_item.added","item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"c1","name":"f"},"output_index":1,"sequence_number":4}`,
			RespItemAdded, FunctionCall, ""},
		// Bedrock sorts keys: type comes last.
		{"type last", `{"arguments":"{}","item_id":"fc_1","output_index":1,"sequence_number":6,"type":"response.function_call_arguments.done"}`,
			RespArgsDone, NotACall, "{}"},
		{"custom input done", `{"type":"response.custom_tool_call_input.done","input":"*** Begin Patch","item_id":"ct_1","output_index":0}`,
			RespArgsDone, NotACall, "*** Begin Patch"},
		{"custom tool call", `{"type":"response.output_item.done","item":{"type":"custom_tool_call","call_id":"c","name":"apply_patch","input":"x"},"output_index":0}`,
			RespItemDone, CustomToolCall, ""},
		// A client decodes the escaped type as response.output_item.added:
		// so must hookgate, or the call would pass unheld.
		{"escaped type", `{"type":"response\u002eoutput_item.added","item":{"type":"function\u005fcall","call_id":"c"},"output_index":0}`,
			RespItemAdded, FunctionCall, ""},
		{"error", `{"type":"error","sequence_number":2,"error":{"code":"insufficient_quota"}}`, RespError, NotACall, ""},
		{"unknown", `{"type":"response.reasoning_text.delta","delta":"x"}`, RespOther, NotACall, ""},
	}
	var ev ResponsesEvent
	for _, tt := range tests {
		if err := ev.Decode([]byte(tt.payload)); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if ev.Kind != tt.kind || ev.Item.CallKind() != tt.call || ev.Final().Text() != tt.final {
			t.Errorf("%s: kind %d call %d final %q", tt.name, ev.Kind, ev.Item.CallKind(), ev.Final().Text())
		}
	}
	if err := ev.Decode([]byte(`{"type":"response.created","sequence_number":0,"response":{"id":"resp_9"}}`)); err != nil || ev.ResponseID().Text() != "resp_9" || !ev.HasSequence {
		t.Fatalf("created: %v %+v", err, ev)
	}
}

// A repeated key is read one way by hookgate and another by the client's
// decoder (the last one wins there): such events are refused.
func TestResponsesEventDuplicateKeys(t *testing.T) {
	for _, p := range []string{
		`{"type":"response.output_text.delta","type":"response.output_item.added"}`,
		`{"type":"response.output_item.done","item":{"type":"function_call","arguments":"{}","arguments":"{\"rm\":1}"}}`,
		`{"type":"response.completed","response":{"output":[{"type":"function_call","name":"a","call_id":"c","call_id":"d"}]}}`,
		`{"type":"response.function_call_arguments.done","arguments":"{}","delta":"","delta":"x","sequence_number":1,"item_id":"i","output_index":0,"item":{},"input":"","response":{},"error":null,"error":1}`,
	} {
		var ev ResponsesEvent
		if err := ev.Decode([]byte(p)); !errors.Is(err, ErrDuplicateKey) {
			t.Errorf("%s: err %v, want ErrDuplicateKey", p, err)
		}
		if ev.Kind != RespOther || ev.Item.Raw != nil {
			t.Errorf("a refused event left a view: %+v", ev)
		}
	}
}

func TestResponsesEncoders(t *testing.T) {
	var n int64 = 40
	seq := func() (int64, bool) { n++; return n, true }
	evs := MessageItemEvents("msg_1", 2, "[hookgate] blocked", seq)
	types := []string{"response.output_item.added", "response.content_part.added", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done"}
	if len(evs) != len(types) {
		t.Fatalf("%d events", len(evs))
	}
	for i, e := range evs {
		d := gjson.ParseBytes(e.Payload)
		if !gjson.ValidBytes(e.Payload) || e.Event != types[i] || d.Get("type").Str != types[i] || d.Get("sequence_number").Int() != int64(41+i) || d.Get("output_index").Int() != 2 {
			t.Errorf("event %d: %s %s", i, e.Event, e.Payload)
		}
	}
	if got := gjson.GetBytes(evs[5].Payload, "item.content.0.text").Str; got != "[hookgate] blocked" {
		t.Errorf("done item text %q", got)
	}
	if got := gjson.GetBytes(evs[0].Payload, "item.content").Raw; got != "[]" {
		t.Errorf("added item content %s", got)
	}

	p := NewSSEParser(0)
	p.Feed(ResponsesErrorEvent("upstream_error", "stream_truncated", "cut", func() (int64, bool) { return 7, true }))
	f, _ := p.Next()
	if f == nil || string(f.Event) != "error" || gjson.GetBytes(f.Data, "error.code").Str != "stream_truncated" ||
		gjson.GetBytes(f.Data, "code").Str != "stream_truncated" || gjson.GetBytes(f.Data, "sequence_number").Int() != 7 {
		t.Fatalf("error event %+v", f)
	}
}

func TestSynthesizedResponses(t *testing.T) {
	plain := SynthesizeResponse("resp_h", "gpt-5", 1, "refused")
	r, err := ParseResponsesResponse(plain)
	if err != nil || r.ID != "resp_h" || r.Status != "completed" || r.Text != "refused" {
		t.Fatalf("plain: %v %+v", err, r)
	}
	p := NewSSEParser(0)
	p.Feed(SynthesizeResponseStream("resp_h", "gpt-5", 1, "refused"))
	p.End()
	var ev ResponsesEvent
	var seqs []int64
	var kinds []ResponsesEventKind
	for f, _ := p.Next(); f != nil; f, _ = p.Next() {
		if err := ev.Decode(f.Data); err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, ev.Sequence)
		kinds = append(kinds, ev.Kind)
	}
	if len(seqs) != 8 || seqs[0] != 0 || seqs[7] != 7 || kinds[0] != RespCreated || kinds[7] != RespCompleted {
		t.Fatalf("stream: %v %v", seqs, kinds)
	}
}
