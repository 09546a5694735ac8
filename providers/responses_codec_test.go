package providers

import (
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func decodeResponsesFrame(t *testing.T, payload string) *CodecFrame {
	t.Helper()
	var f CodecFrame
	if err := ResponsesCodec.DecodeFrame([]byte(payload), &f); err != nil {
		t.Fatalf("decode %s: %v", payload, err)
	}
	return &f
}

const codecFnItem = `{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"command\":\"ls\"}","call_id":"call_1","name":"exec"}`

func TestResponsesCodecDecodesPiecesSlotsAndEnds(t *testing.T) {
	f := decodeResponsesFrame(t, `{"type":"response.output_item.added","item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"exec"},"output_index":2,"sequence_number":4}`)
	if f.Piece.Part != PieceStart || f.Piece.Key != "2" || f.Piece.ID != "call_1" || f.Piece.Name != "exec" || f.Piece.Args != nil || f.Piece.Ref != "f:fc_1" {
		t.Errorf("added: %+v", f.Piece)
	}
	if f.Slot != (FrameSlot{Set: true, Opens: true, Index: 2}) {
		t.Errorf("added slot %+v", f.Slot)
	}
	f = decodeResponsesFrame(t, `{"type":"response.function_call_arguments.delta","delta":"{\"command\"","item_id":"fc_1","output_index":2,"sequence_number":5}`)
	if f.Piece.Part != PieceArgs || f.Piece.Key != "2" || string(f.Piece.Args) != `{"command"` || f.Slot.Opens || !f.Slot.Set {
		t.Errorf("delta: %+v %+v", f.Piece, f.Slot)
	}
	f = decodeResponsesFrame(t, `{"type":"response.function_call_arguments.done","arguments":"{}","item_id":"fc_1","output_index":2}`)
	if f.Piece.Part != PieceOther || f.Piece.Key != "2" {
		t.Errorf("args done: %+v", f.Piece)
	}
	f = decodeResponsesFrame(t, `{"type":"response.custom_tool_call_input.delta","delta":"*** Begin","item_id":"ctc_1","output_index":0}`)
	if f.Piece.Part != PieceOther {
		t.Errorf("custom delta: %+v", f.Piece)
	}
	f = decodeResponsesFrame(t, `{"type":"response.output_item.done","item":`+codecFnItem+`,"output_index":2}`)
	if f.Piece.Part != PieceEnd || f.Piece.Key != "2" || string(f.Piece.Args) != `{"command":"ls"}` || f.Piece.Name != "exec" || f.Slot.Opens {
		t.Errorf("item done: %+v %+v", f.Piece, f.Slot)
	}
	f = decodeResponsesFrame(t, `{"type":"response.output_item.done","item":{"id":"ctc_1","type":"custom_tool_call","call_id":"c","name":"apply_patch","input":"*** Begin\n"},"output_index":0}`)
	if string(f.Piece.Args) != `{"input":"*** Begin\n"}` || f.Piece.Ref != "c:ctc_1" {
		t.Errorf("custom done: %+v", f.Piece)
	}
	f = decodeResponsesFrame(t, `{"type":"response.output_text.delta","delta":"Hi \u00e9","item_id":"msg_1","output_index":0,"content_index":0}`)
	if string(f.Text) != "Hi é" || f.Piece.Part != PieceNone || !f.Slot.Set {
		t.Errorf("text: %q %+v", f.Text, f.Slot)
	}
	f = decodeResponsesFrame(t, `{"type":"response.completed","response":{"id":"r","output":[{"id":"m","type":"message","content":[]},`+codecFnItem+`]}}`)
	if !f.Ends || !f.Repeats || len(f.Calls) != 1 || f.Calls[0].Key != "1" || f.Calls[0].ID != "call_1" || string(f.Calls[0].Args) != `{"command":"ls"}` {
		t.Errorf("completed: %+v", f)
	}
	f = decodeResponsesFrame(t, `{"type":"error","code":"x","message":"y","sequence_number":3}`)
	if !f.Error || !f.Ends {
		t.Errorf("error: %+v", f)
	}
	for _, p := range []string{"", "[DONE]"} {
		if f = decodeResponsesFrame(t, p); f.Ends || f.Piece.Part != PieceNone || f.Slot.Set || !f.Meaningful {
			t.Errorf("%q: %+v", p, f)
		}
	}
}

func TestResponsesCodecRefusesWhatClientsReadApart(t *testing.T) {
	for name, payload := range map[string]string{
		"a repeated key":             `{"type":"response.output_item.added","item":` + codecFnItem + `,"output_index":0,"output_index":1}`,
		"a snapshot before the end":  `{"type":"response.in_progress","response":{"id":"r","output":[` + codecFnItem + `]}}`,
		"an item the agent runs":     `{"type":"response.output_item.done","item":{"id":"l","type":"local_shell_call","call_id":"c","action":{}},"output_index":0}`,
		"a final output that runs":   `{"type":"response.completed","response":{"id":"r","output":[{"id":"s","type":"shell_call","call_id":"c"}]}}`,
		"a call item in an update":   `{"type":"response.output_item.updated","item":` + codecFnItem + `,"output_index":0}`,
		"a call item without index":  `{"type":"response.output_item.added","item":` + codecFnItem + `}`,
		"call input without index":   `{"type":"response.function_call_arguments.delta","delta":"x","item_id":"fc_1"}`,
		"an index that is not plain": `{"type":"response.output_text.delta","delta":"x","output_index":1.0}`,
		"not an object":              `[1]`,
	} {
		var f CodecFrame
		if err := ResponsesCodec.DecodeFrame([]byte(payload), &f); err == nil {
			t.Errorf("%s: decoded %+v", name, f)
		}
	}
}

func TestResponsesCodecEncodesARewrittenCallWhole(t *testing.T) {
	for _, tc := range []struct {
		ref, args, member, input string
	}{
		{"f:fc_9", `{"command":"ls","dry_run":true}`, "arguments", `{"command":"ls","dry_run":true}`},
		{"c:ctc_9", `{"input":"*** Begin Patch\n*** End Patch"}`, "input", "*** Begin Patch\n*** End Patch"},
	} {
		payloads, err := ResponsesCodec.EncodeCall(3, CodecCall{ID: "call_9", Name: "exec", Args: []byte(tc.args), Ref: tc.ref})
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		built := ""
		for _, p := range payloads {
			var ev ResponsesEvent
			if err := ev.Decode(p); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if !ev.HasOutputIndex || ev.OutputIndex != 3 || ev.HasSequence {
				t.Errorf("%s: want output_index 3 and no sequence_number", p)
			}
			types = append(types, ev.Type.Text())
			j := gjson.ParseBytes(p)
			switch ev.Kind {
			case RespItemAdded, RespItemDone:
				if j.Get("item.id").Str != tc.ref[2:] || j.Get("item.call_id").Str != "call_9" || j.Get("item.name").Str != "exec" {
					t.Errorf("item %s", p)
				}
				built += j.Get("item." + tc.member).Str
			case RespArgsDelta:
				built += j.Get("delta").Str
			case RespArgsDone:
				if j.Get(tc.member).Str != tc.input {
					t.Errorf("done %s", p)
				}
			}
		}
		if len(types) != 4 || types[0] != "response.output_item.added" || types[3] != "response.output_item.done" {
			t.Errorf("events %v", types)
		}
		if built != tc.input+tc.input {
			t.Errorf("the delta and the done item carry %q, want the input twice", built)
		}
	}
	if _, err := ResponsesCodec.EncodeCall(0, CodecCall{Args: []byte(`{"input":1}`), Ref: "c:x"}); err == nil {
		t.Error("a custom tool call rewritten to a non-string input was encoded")
	}
}

func TestResponsesCodecPatchesTheTerminalSnapshot(t *testing.T) {
	payload := []byte(`{"type":"response.completed","response":{"id":"r","output":[` + codecFnItem + `,{"id":"m","type":"message","content":[]},` +
		strings.Replace(codecFnItem, "call_1", "call_2", 1) + `]},"sequence_number":9}`)
	f := decodeResponsesFrame(t, string(payload))
	out, err := ResponsesCodec.EditFrame(payload, f, []CallEdit{{Call: 0, Remove: true}, {Call: 1, Args: []byte(`{"command":"pwd"}`)}}, "a note")
	if err != nil {
		t.Fatal(err)
	}
	output := gjson.GetBytes(out, "response.output").Array()
	if len(output) != 3 || output[0].Get("id").Str != "m" || output[1].Get("arguments").Str != `{"command":"pwd"}` ||
		output[2].Get("content.0.text").Str != "a note" || output[2].Get("id").Str != noteItemID("a note") {
		t.Errorf("output %s", gjson.GetBytes(out, "response.output").Raw)
	}
	if gjson.GetBytes(out, "sequence_number").Int() != 9 {
		t.Errorf("the sequence number moved: %s", out)
	}
	texts := ResponsesCodec.TextSlot(2, "a note")
	if len(texts) != 6 || gjson.GetBytes(texts[0], "item.id").Str != noteItemID("a note") || gjson.GetBytes(texts[0], "output_index").Int() != 2 {
		t.Errorf("text events %q", texts)
	}
	delta := decodeResponsesFrame(t, `{"type":"response.output_text.delta","delta":"x","output_index":0}`)
	if _, err := ResponsesCodec.EditFrame([]byte(`{}`), delta, nil, "text"); !errors.Is(err, ErrNotFound) {
		t.Errorf("text added to a delta: %v", err)
	}
}

func TestResponsesCodecStreamNumbersWhatTheClientReads(t *testing.T) {
	ev := func(typ string, seq string) string {
		return "event: " + typ + "\ndata: {\"type\":\"" + typ + "\",\"output_index\":0" + seq + "}\n\n"
	}
	s := ResponsesCodec.NewStream(nil, 0)
	s.Feed([]byte(ev("response.output_text.delta", `,"sequence_number":0`) + ": ping\n\n" + ev("response.output_text.delta", `,"sequence_number":1`) + ev("response.output_text.delta", `,"sequence_number":2`)))
	s.End()
	var frames [][2][]byte
	for {
		raw, payload, ok, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		frames = append(frames, [2][]byte{append([]byte(nil), raw...), append([]byte(nil), payload...)})
	}
	if len(frames) != 4 || frames[1][1] != nil {
		t.Fatalf("frames %q", frames)
	}
	var out []byte
	out = s.Raw(out, frames[0][0], frames[0][1]) // 0 as it came
	out = s.Raw(out, frames[1][0], frames[1][1]) // the comment
	// frames[2] (1) is dropped: 2 goes out as 1.
	out = s.Raw(out, frames[3][0], frames[3][1])
	out = s.Frame(out, []byte(`{"type":"response.output_text.delta","output_index":0}`))
	out = s.ErrorFrame(out, "hookgate_error", "stop")
	want := ev("response.output_text.delta", `,"sequence_number":0`) + ": ping\n\n" +
		ev("response.output_text.delta", `,"sequence_number":1`) + ev("response.output_text.delta", `,"sequence_number":2`)
	if !strings.HasPrefix(string(out), want) {
		t.Fatalf("wrote\n%s\nwant it to begin\n%s", out, want)
	}
	tail := gjson.Parse(strings.TrimPrefix(strings.SplitN(string(out[len(want):]), "\n", 3)[1], "data: "))
	if tail.Get("type").Str != "error" || tail.Get("sequence_number").Int() != 3 || tail.Get("error.code").Str != "hookgate_error" {
		t.Errorf("error event %s", out[len(want):])
	}
	if s.Truncated() {
		t.Error("a whole stream reads as truncated")
	}
	bad := ResponsesCodec.NewStream(nil, 0)
	bad.Feed([]byte("event: response.output_text.delta\ndata: {\"type\":\"response.output_item.added\"}\n\n"))
	if _, _, _, err := bad.Next(); err == nil {
		t.Error("an event named otherwise than its type was read")
	}
	cut := ResponsesCodec.NewStream(nil, 0)
	cut.Feed([]byte("data: {\"type\":\"response.output_text.delta\""))
	cut.End()
	if _, _, ok, _ := cut.Next(); ok || !cut.Truncated() {
		t.Error("a stream cut inside an event does not read as truncated")
	}
}

// The text hookgate adds joins the last text part: one more delta, and
// every event that repeats the part's text, and the snapshot, end with it.
func TestResponsesCodecJoinsTheLastTextPart(t *testing.T) {
	const msg = `{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":"Hi."}],"role":"assistant"}`
	textDone := []byte(`{"type":"response.output_text.done","item_id":"msg_1","output_index":1,"content_index":0,"text":"Hi.","sequence_number":5}`)
	partDone := []byte(`{"type":"response.content_part.done","item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","annotations":[],"text":"Hi."},"sequence_number":6}`)
	itemDone := []byte(`{"type":"response.output_item.done","output_index":1,"item":` + msg + `,"sequence_number":7}`)
	other := []byte(`{"type":"response.output_text.done","item_id":"msg_0","output_index":0,"content_index":0,"text":"Before.","sequence_number":2}`)
	for _, p := range [][]byte{textDone, partDone, itemDone} {
		if f := decodeResponsesFrame(t, string(p)); !f.Slot.ClosesText {
			t.Errorf("%s does not close a text slot", p)
		}
	}
	delta := ResponsesCodec.AppendSlotText(1, textDone, "\n\nnote")
	if len(delta) != 1 || gjson.GetBytes(delta[0], "type").Str != "response.output_text.delta" || gjson.GetBytes(delta[0], "item_id").Str != "msg_1" ||
		gjson.GetBytes(delta[0], "output_index").Int() != 1 || gjson.GetBytes(delta[0], "content_index").Int() != 0 || gjson.GetBytes(delta[0], "delta").Str != "\n\nnote" {
		t.Fatalf("delta %q", delta)
	}
	for p, path := range map[*[]byte]string{&textDone: "text", &partDone: "part.text", &itemDone: "item.content.0.text"} {
		out, ok, err := ResponsesCodec.RepeatSlotText(*p, textDone, "\n\nnote")
		if err != nil || !ok || gjson.GetBytes(out, path).Str != "Hi.\n\nnote" {
			t.Errorf("%s: %v %v %s", path, ok, err, out)
		}
	}
	if _, ok, err := ResponsesCodec.RepeatSlotText(other, itemDone, "note"); ok || err != nil {
		t.Errorf("another part's text was joined: %v", err)
	}
	snap := `{"type":"response.completed","response":{"id":"r","output":[{"id":"msg_0","type":"message","content":[{"type":"output_text","text":"Before."}]},` + msg + `]},"sequence_number":9}`
	f := decodeResponsesFrame(t, snap)
	f.TextJoined = itemDone
	out, err := ResponsesCodec.EditFrame([]byte(snap), f, nil, "\n\nnote")
	if err != nil || gjson.GetBytes(out, "response.output.1.content.0.text").Str != "Hi.\n\nnote" ||
		gjson.GetBytes(out, "response.output.0.content.0.text").Str != "Before." || len(gjson.GetBytes(out, "response.output").Array()) != 2 {
		t.Errorf("snapshot %v %s", err, out)
	}
}
