package providers

import (
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// codecFrames splits a stream with MessagesCodec and decodes each frame
// through the stream's decoder.
func codecFrames(t *testing.T, stream string) ([]CodecFrame, error) {
	t.Helper()
	s := MessagesCodec.NewStream(nil, 1<<20)
	s.Feed([]byte(stream))
	s.End()
	var out []CodecFrame
	for {
		_, payload, ok, err := s.Next()
		if err != nil {
			return out, err
		}
		if !ok {
			break
		}
		var f CodecFrame
		if err := s.(StreamDecoder).DecodeFrame(payload, &f); err != nil {
			return out, err
		}
		f.Text = append([]byte(nil), f.Text...)
		f.Piece.Args = append([]byte(nil), f.Piece.Args...)
		out = append(out, f)
	}
	if s.Truncated() {
		t.Fatalf("a whole stream read as truncated")
	}
	return out, nil
}

func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("event: " + gjson.Get(e, "type").String() + "\ndata: " + e + "\n\n")
	}
	return b.String()
}

const (
	cStart   = `{"type":"message_start","message":{"id":"msg_7","type":"message","role":"assistant","content":[],"usage":{"input_tokens":3}}}`
	cText0   = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	cDelta0  = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`
	cStop0   = `{"type":"content_block_stop","index":0}`
	cTool1   = `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"exec","input":{}}}`
	cArgs1   = `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1}"}}`
	cStop1   = `{"type":"content_block_stop","index":1}`
	cMsgDel  = `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}`
	cMsgStop = `{"type":"message_stop"}`
)

// A delta means what its block's start said: text in a text block, a
// fragment of the call in a tool_use block; the text block's stop closes
// a text slot; message_delta ends the answer and message_stop completes
// the stream.
func TestMessagesCodecReadsAStream(t *testing.T) {
	fs, err := codecFrames(t, sse(cStart, cText0, cDelta0, cStop0, cTool1, cArgs1, cStop1, cMsgDel, cMsgStop)+": keepalive\n\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 10 {
		t.Fatalf("%d frames", len(fs))
	}
	if string(fs[0].Usage) != `{"input_tokens":3}` {
		t.Errorf("message_start usage %q", fs[0].Usage)
	}
	if s := fs[1].Slot; !s.Set || !s.Opens || s.Index != 0 || fs[1].Piece.Part != PieceNone {
		t.Errorf("text start %+v", fs[1])
	}
	if string(fs[2].Text) != "Hi" || fs[2].Slot.Index != 0 {
		t.Errorf("text delta %+v", fs[2])
	}
	if !fs[3].Slot.ClosesText || fs[3].Piece.Part != PieceNone {
		t.Errorf("text stop %+v", fs[3])
	}
	p := fs[4].Piece
	if p.Part != PieceStart || p.Key != "1" || p.ID != "toolu_1" || p.Name != "exec" || string(p.Args) != "{}" ||
		strings.Join(p.EventKey, ",") != "msg_7,toolu_1,1" || !fs[4].Slot.Opens {
		t.Errorf("tool start %+v", fs[4])
	}
	if fs[5].Piece.Part != PieceArgs || string(fs[5].Piece.Args) != `{"a":1}` || len(fs[5].Text) != 0 {
		t.Errorf("tool fragment %+v", fs[5])
	}
	if fs[6].Piece.Part != PieceEnd || fs[6].Slot.ClosesText {
		t.Errorf("tool stop %+v", fs[6])
	}
	if !fs[7].Ends || fs[7].Completes || string(fs[7].Usage) != `{"output_tokens":5}` {
		t.Errorf("message_delta %+v", fs[7])
	}
	if fs[8].Ends || !fs[8].Completes {
		t.Errorf("message_stop %+v", fs[8])
	}
	if fs[9].Meaningful || fs[9].Slot.Set {
		t.Errorf("a comment %+v", fs[9])
	}
}

// A text_delta in a tool_use block is a piece of the call, not answer
// text; a delta for a block never started is a piece no start opened.
func TestMessagesCodecReadsDeltasByTheirBlock(t *testing.T) {
	textInTool := `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"rm -rf /"}}`
	stray := `{"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"x"}}`
	fs, err := codecFrames(t, sse(cStart, cTool1, textInTool, stray, cStop1, cMsgDel, cMsgStop))
	if err != nil {
		t.Fatal(err)
	}
	if fs[2].Piece.Part != PieceArgs || len(fs[2].Text) != 0 {
		t.Errorf("text_delta in a tool_use %+v", fs[2])
	}
	if fs[3].Piece.Part != PieceArgs || fs[3].Piece.Key != "4" || len(fs[3].Text) != 0 {
		t.Errorf("a delta for no block %+v", fs[3])
	}
}

// What only the events before it show to be unsafe is refused as the
// stream is split.
func TestMessagesCodecRefusesWhatTheStreamBeforeShowsUnsafe(t *testing.T) {
	withInput := strings.Replace(cTool1, `"input":{}`, `"input":{"a":2}`, 1)
	for name, c := range map[string]struct {
		stream string
		code   string
	}{
		"a second message_start":              {sse(cStart, cStart), "unreadable_event"},
		"message_start with content":          {sse(strings.Replace(cStart, `"content":[]`, `"content":[{"type":"tool_use"}]`, 1)), "unreadable_event"},
		"an event: name that is not its type": {"event: ping\ndata: " + cTool1 + "\n\n", "unreadable_event"},
		"a tool_use input that is no object":  {sse(cStart, strings.Replace(cTool1, `"input":{}`, `"input":"x"`, 1)), "invalid_tool_call"},
		"fragments after a start's input":     {sse(cStart, withInput, cArgs1), "invalid_tool_call"},
		"an ambiguous line form":              {sse(cStart) + " data: " + cTool1 + "\n\n", "ambiguous_stream"},
	} {
		_, err := codecFrames(t, c.stream)
		var r *StreamRefusal
		if !errors.As(err, &r) || r.Code != c.code || !errors.Is(err, r.Err) {
			t.Errorf("%s: err %v, want a refusal %s", name, err, c.code)
		}
	}
}

// After message_stop, a bare [DONE] is nothing; any other event is
// handed on for the interceptor to refuse. A stream without message_stop
// is truncated.
func TestMessagesCodecEnds(t *testing.T) {
	s := MessagesCodec.NewStream(nil, 1<<20)
	s.Feed([]byte(sse(cStart, cMsgStop) + "data: [DONE]\n\n" + sse(cText0)))
	s.End()
	var payloads []string
	for {
		_, p, ok, err := s.Next()
		if err != nil || !ok {
			break
		}
		payloads = append(payloads, string(p))
	}
	if len(payloads) != 4 || payloads[2] != "" || payloads[3] != cText0 {
		t.Fatalf("payloads %q", payloads)
	}
	cut := MessagesCodec.NewStream(nil, 1<<20)
	cut.Feed([]byte(sse(cStart, cMsgDel)))
	cut.End()
	for {
		if _, _, ok, err := cut.Next(); !ok || err != nil {
			break
		}
	}
	if !cut.Truncated() {
		t.Error("a stream cut after message_delta is not truncated")
	}
}

// A rewritten call is a start with input {}, its whole input in one
// fragment, and the stop; frames are renumbered in place, and only a
// tool_use message_delta of an answer without calls left changes.
func TestMessagesCodecEncodings(t *testing.T) {
	payloads, err := MessagesCodec.EncodeCall(2, CodecCall{ID: "toolu_9", Name: "exec", Args: []byte(`{"b":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	s := MessagesCodec.NewStream(nil, 0)
	var out []byte
	for _, p := range payloads {
		out = s.Frame(out, p)
	}
	evs := eventsOf(t, out)
	if len(evs) != 3 || gjson.Get(evs[0][1], "content_block.input").Raw != "{}" || gjson.Get(evs[1][1], "delta.partial_json").String() != `{"b":true}` ||
		gjson.Get(evs[2][1], "index").Int() != 2 || evs[2][0] != ContentBlockStop {
		t.Fatalf("rewritten call %q", evs)
	}
	var f CodecFrame
	if err := MessagesCodec.DecodeFrame([]byte(cArgs1), &f); err != nil {
		t.Fatal(err)
	}
	moved, err := MessagesCodec.Renumber([]byte(cArgs1), &f, 0)
	if err != nil || string(moved) != strings.Replace(cArgs1, `"index":1`, `"index":0`, 1) {
		t.Fatalf("renumbered %s (%v)", moved, err)
	}
	if err := MessagesCodec.DecodeFrame([]byte(cMsgDel), &f); err != nil {
		t.Fatal(err)
	}
	same, _ := MessagesCodec.EditFrame([]byte(cMsgDel), &f, nil, "")
	f.CallsRemoved = true
	patched, _ := MessagesCodec.EditFrame([]byte(cMsgDel), &f, nil, "")
	if string(same) != cMsgDel || gjson.GetBytes(patched, "delta.stop_reason").String() != "end_turn" {
		t.Fatalf("message_delta %s / %s", same, patched)
	}
	if _, err := MessagesCodec.EditFrame([]byte(cMsgDel), &f, nil, "a note"); err == nil {
		t.Error("text was edited into an event")
	}
	text := MessagesCodec.TextSlot(3, "note")
	if len(text) != 3 || gjson.GetBytes(text[1], "delta.text").String() != "note" || gjson.GetBytes(text[2], "index").Int() != 3 {
		t.Errorf("text slot %q", text)
	}
}
