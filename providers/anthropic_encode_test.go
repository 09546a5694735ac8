package providers

import (
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// eventsOf parses a synthesised stream back into (event line, payload)
// pairs, checking that each payload decodes.
func eventsOf(t *testing.T, b []byte) [][2]string {
	t.Helper()
	p := NewSSEParser(0)
	p.Feed(b)
	p.End()
	var out [][2]string
	var ev MessagesEvent
	for {
		f, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		if f == nil {
			break
		}
		if err := ev.Decode(f.Data); err != nil {
			t.Fatalf("%v: %s", err, f.Data)
		}
		if !ev.Type.Equal(string(f.Event)) {
			t.Fatalf("event line %q, payload type %s", f.Event, ev.Type.Raw)
		}
		out = append(out, [2]string{string(f.Event), string(f.Data)})
	}
	if len(p.Trailing()) > 0 {
		t.Fatalf("trailing %q", p.Trailing())
	}
	return out
}

func TestMessagesEncoders(t *testing.T) {
	got := eventsOf(t, AppendMessagesTextBlockEvents(nil, 3, "blocked \"rm\"\nnext line"))
	want := [][2]string{
		{"content_block_start", `{"type":"content_block_start","index":3,"content_block":{"type":"text","text":""}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"blocked \"rm\"\nnext line"}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":3}`},
	}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("text block:\n%q", got)
	}
	d := eventsOf(t, AppendMessagesEvent(nil, ContentBlockDelta, messagesInputJSONDelta(1, []byte(`{"a": 2, "audited":true}`))))
	if len(d) != 1 || d[0][1] != `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\": 2, \"audited\":true}"}}` {
		t.Fatalf("input delta %q", d)
	}

	start := []byte(`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"add","input":{},"caller":{"type":"direct"}}     }`)
	moved, err := SetMessagesEventIndex(start, 4)
	if err != nil || gjson.GetBytes(moved, "index").Int() != 4 || gjson.GetBytes(moved, "content_block").Raw != `{"type":"tool_use","id":"t","name":"add","input":{},"caller":{"type":"direct"}}` {
		t.Fatalf("reindex: %s %v", moved, err)
	}
	md := []byte(`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":76}      }`)
	end, err := SetMessagesStopReason(md, "end_turn")
	if err != nil || gjson.GetBytes(end, "delta.stop_reason").String() != "end_turn" || gjson.GetBytes(end, "usage").Raw != `{"output_tokens":76}` {
		t.Fatalf("stop reason: %s %v", end, err)
	}
	if string(md) != `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":76}      }` {
		t.Fatal("an edit wrote to its input")
	}
	if _, err := SetMessagesEventIndex([]byte(`{"index":1,"index":2}`), 0); !errors.Is(err, ErrDuplicateKey) {
		t.Fatalf("duplicate keys: %v", err)
	}
}

func TestMessagesErrorsAndSynthesis(t *testing.T) {
	if b := MessagesErrorBody("api_error", "it \"broke\""); string(b) != `{"type":"error","error":{"type":"api_error","message":"it \"broke\""}}` {
		t.Fatalf("body %s", b)
	}
	if ev := eventsOf(t, MessagesErrorEvent("overloaded_error", "busy")); len(ev) != 1 || ev[0][0] != "error" {
		t.Fatalf("event %q", ev)
	}
	for status, typ := range map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
		413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 502: "api_error", 503: "api_error", 529: "overloaded_error", 422: "invalid_request_error"} {
		if got := MessagesErrorType(status); got != typ {
			t.Errorf("%d: %s, want %s", status, got, typ)
		}
	}

	msg := SynthesizeMessage("msg_hg", "claude", "no passwords")
	r, err := ParseMessagesResponse(msg)
	if err != nil || r.ID != "msg_hg" || r.StopReason != "end_turn" || r.Text() != "no passwords" || len(r.Content) != 1 {
		t.Fatalf("message %s %v", msg, err)
	}
	ev := eventsOf(t, SynthesizeMessageStream("msg_hg", "claude", "no passwords"))
	var types []string
	for _, e := range ev {
		types = append(types, e[0])
	}
	if strings.Join(types, ",") != "message_start,content_block_start,content_block_delta,content_block_stop,message_delta,message_stop" {
		t.Fatalf("stream events %v", types)
	}
	if gjson.Get(ev[0][1], "message.id").String() != "msg_hg" || gjson.Get(ev[2][1], "delta.text").String() != "no passwords" {
		t.Fatalf("stream %q", ev)
	}
}

func TestMessagesResponseEdits(t *testing.T) {
	body := readFixture(t, "anthropic/messages-two-tool-use.json")
	orig := string(body)

	out, err := SetMessagesToolInput(body, 2, []byte(`{"a":2,"b":3,"audited":true}`))
	if err != nil || gjson.GetBytes(out, "content.2.input").Raw != `{"a":2,"b":3,"audited":true}` || gjson.GetBytes(out, "content.2.caller").Raw != `{"type":"direct"}` {
		t.Fatalf("set input: %s %v", out, err)
	}
	if _, err := SetMessagesToolInput(body, 2, []byte(`{`)); !errors.Is(err, ErrInvalidJSON) {
		t.Fatalf("invalid input: %v", err)
	}

	out, err = RemoveMessagesBlocks(body, 2, 1)
	if r, _ := ParseMessagesResponse(out); err != nil || len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("remove: %s %v", out, err)
	}
	if _, err := RemoveMessagesBlocks(body, 3); !errors.Is(err, ErrNotFound) {
		t.Fatalf("remove out of range: %v", err)
	}

	out, err = AppendMessagesText(body, "\n\nNot advice.")
	if r, _ := ParseMessagesResponse(out); err != nil || len(r.Content) != 4 || r.Content[3].Text != "\n\nNot advice." {
		t.Fatalf("append: %s %v", out, err)
	}
	out, err = SetMessagesResponseStopReason(body, "end_turn")
	if r, _ := ParseMessagesResponse(out); err != nil || r.StopReason != "end_turn" {
		t.Fatalf("stop reason: %s %v", out, err)
	}
	if string(body) != orig {
		t.Fatal("an edit wrote to its input")
	}
}
