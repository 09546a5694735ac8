package interceptors

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicsse "github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"
	openaisse "github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// What hookgate adds to an answer (block notes, pre_response's text) must
// be in its last text as the SDKs assemble it: agents such as Claude Code
// -p, codex exec and the Agents SDK show only that.

const joinPolicy = `
- id: no-rm
  event: pre_tool_use
  if_expr: "toolInput.command.startsWith('rm')"
  handler: {type: script, source: 'function handle(e) { return {decision: "block", reason: "no rm"}; }'}
- id: disclaimer
  event: pre_response
  mode: append
  handler: {type: script, source: 'function handle(e) { return {decision: "allow", additionalContext: "Not advice."}; }'}
`

const (
	joinNote       = "[hookgate] tool call exec blocked by no-rm: no rm"
	joinDisclaimer = "Not advice."
)

// anthropicMessage is the message anthropic-sdk-go's Message.Accumulate
// builds from a stream, failing the test when the SDK reports an error.
func anthropicMessage(t *testing.T, out []byte) anthropic.Message {
	t.Helper()
	stream := anthropicsse.NewStream[anthropic.MessageStreamEventUnion](anthropicsse.NewDecoder(sseResponse(out)), nil)
	defer stream.Close()
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatalf("accumulate: %v\n%s", err, out)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v\n%s", err, out)
	}
	return msg
}

// lastText is the text of a message's last block, which must be text.
func lastText(t *testing.T, content []anthropic.ContentBlockUnion) string {
	t.Helper()
	if len(content) == 0 || content[len(content)-1].Type != "text" {
		t.Fatalf("the last block is not text: %+v", content)
	}
	return content[len(content)-1].Text
}

func toolUseNames(content []anthropic.ContentBlockUnion) []string {
	var out []string
	for _, b := range content {
		if b.Type == "tool_use" {
			out = append(out, b.Name+" "+string(b.Input))
		}
	}
	return out
}

func TestMessagesAdditionsJoinTheLastTextAsTheSDKReadsIt(t *testing.T) {
	ls := msgToolBlock
	cases := []struct {
		name   string
		blocks func() []string // the message's blocks, from index 0
		onAll  bool            // pre_response_on_tool_calls
		last   string          // the last block's text
		texts  int             // text blocks
		calls  []string        // tool_use blocks left
		stop   string
	}{
		{"a text answer", func() []string { return msgTextBlock(0, "Here.") }, false, "Here.\n\n" + joinDisclaimer, 1, nil, "end_turn"},
		{"text, an allowed call, text", func() []string {
			return msgJoin(msgTextBlock(0, "First."), ls(1, "t1", "exec", `{"command":"ls"}`), msgTextBlock(2, "Then."))
		}, true, "Then.\n\n" + joinDisclaimer, 2, []string{`exec {"command":"ls"}`}, "tool_use"},
		{"text, a blocked call", func() []string {
			return msgJoin(msgTextBlock(0, "Cleaning up."), ls(1, "t1", "exec", `{"command":"rm -rf /"}`))
		}, false, "Cleaning up.\n\n" + joinNote + "\n\n" + joinDisclaimer, 1, nil, "end_turn"},
		{"text, a blocked call, text", func() []string {
			return msgJoin(msgTextBlock(0, "Cleaning up."), ls(1, "t1", "exec", `{"command":"rm -rf /"}`), msgTextBlock(2, "Done."))
		}, false, "Done.\n\n" + joinNote + "\n\n" + joinDisclaimer, 2, nil, "end_turn"},
		{"only a blocked call", func() []string { return ls(0, "t1", "exec", `{"command":"rm -rf /"}`) }, false, joinNote + "\n\n" + joinDisclaimer, 1, nil, "end_turn"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := Options{Engine: engineFor(t, joinPolicy), PreResponseOnToolCalls: c.onAll}
			delta := evMsgDelta
			if c.calls == nil && !strings.Contains(c.name, "blocked") {
				delta = evEndTurn
			}
			stream := msgSSE(msgJoin([]string{evStart}, c.blocks(), []string{delta, evMsgStop})...)
			out, err := relayMessages(t, opts, strings.NewReader(stream))
			if err != nil {
				t.Fatal(err)
			}
			msg := anthropicMessage(t, out)
			texts := 0
			for _, b := range msg.Content {
				if b.Type == "text" {
					texts++
				}
			}
			if got := lastText(t, msg.Content); got != c.last || texts != c.texts || string(msg.StopReason) != c.stop ||
				strings.Join(toolUseNames(msg.Content), ",") != strings.Join(c.calls, ",") {
				t.Fatalf("last text %q (%d text blocks), stop %s, calls %v; want %q (%d), %s, %v\n%s",
					got, texts, msg.StopReason, toolUseNames(msg.Content), c.last, c.texts, c.stop, c.calls, out)
			}
			if strings.Contains(string(out), "rm -rf") {
				t.Fatalf("the blocked input reached the client:\n%s", out)
			}
			readMessageStream(t, out) // indices in order, every block closed once

			// The same message, not streamed.
			plain := plainMessage(t, opts, readMessageStream(t, []byte(stream)), c.stop)
			if got := lastText(t, plain.Content); got != c.last || strings.Join(toolUseNames(plain.Content), ",") != strings.Join(c.calls, ",") {
				t.Fatalf("plain: last text %q, calls %v; want %q, %v", got, toolUseNames(plain.Content), c.last, c.calls)
			}
		})
	}
}

// plainMessage encodes what a stream assembles to as a plain response,
// runs it through FinishPlain and decodes the result as the SDK does.
func plainMessage(t *testing.T, opts Options, m messageSeen, stop string) anthropic.Message {
	t.Helper()
	var content []map[string]any
	for _, b := range m.Blocks {
		switch b.Type {
		case "text":
			content = append(content, map[string]any{"type": "text", "text": b.Text})
		case "tool_use":
			content = append(content, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": json.RawMessage(b.Input)})
		}
	}
	if stop == "end_turn" && len(m.toolUses()) > 0 {
		stop = "tool_use"
	}
	body, _ := json.Marshal(map[string]any{"id": "msg_p", "type": "message", "role": "assistant", "model": "claude", "content": content,
		"stop_reason": stop, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}})
	ex, err := NewMessages(opts).Begin(context.Background(), &Request{Route: "/v1/messages", Body: []byte(`{"model":"claude","max_tokens":64,"messages":[{"role":"user","content":"go"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := ex.FinishPlain(context.Background(), body)
	if err != nil {
		t.Fatal(err)
	}
	var msg anthropic.Message
	if err := json.Unmarshal(out, &msg); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return msg
}

// Every recorded Anthropic stream, every call blocked, a disclaimer on: the
// SDK's message has no tool_use, and its last block is text that ends with
// the notes and the disclaimer.
func TestMessagesRecordedStreamsEndWithNotesAndDisclaimer(t *testing.T) {
	opts := Options{Engine: engineFor(t, msgBlockTools+msgDisclaimer)}
	for _, f := range msgStreams(t) {
		in := f.Read(t)
		out, err := relayMessages(t, opts, strings.NewReader(string(in)))
		if err != nil {
			t.Fatalf("%s: %v", f.Rel, err)
		}
		msg := anthropicMessage(t, out)
		if len(toolUseNames(msg.Content)) != 0 {
			t.Fatalf("%s: tool calls reached the client: %v", f.Rel, toolUseNames(msg.Content))
		}
		last := lastText(t, msg.Content)
		if !strings.HasSuffix(last, "\n\n"+"Not advice.") {
			t.Errorf("%s: the last text does not end with the disclaimer: %q", f.Rel, last)
		}
		for _, name := range toolNames(readMessageStream(t, in).toolUses()) {
			if !strings.Contains(last, "[hookgate] tool call "+name+" blocked by block-all: no tools today") {
				t.Errorf("%s: the last text lacks the note for %s: %q", f.Rel, name, last)
			}
		}
		readMessageStream(t, out)
	}
}

func toolNames(bs []seenBlock) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}

// rsBuilder writes a Responses stream with contiguous sequence numbers.
type rsBuilder struct {
	b      strings.Builder
	seq    int
	output []string // the items of the final output
}

func (r *rsBuilder) event(typ, body string) {
	r.b.WriteString("event: " + typ + "\ndata: {\"type\":\"" + typ + "\"," + body + ",\"sequence_number\":" + strconv.Itoa(r.seq) + "}\n\n")
	r.seq++
}

func (r *rsBuilder) message(idx int, id, text string) {
	at := `"item_id":"` + id + `","output_index":` + strconv.Itoa(idx) + `,"content_index":0`
	q, _ := json.Marshal(text)
	item := `{"id":"` + id + `","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":` + string(q) + `}],"role":"assistant"}`
	r.event("response.output_item.added", `"output_index":`+strconv.Itoa(idx)+`,"item":{"id":"`+id+`","type":"message","status":"in_progress","content":[],"role":"assistant"}`)
	r.event("response.content_part.added", at+`,"part":{"type":"output_text","annotations":[],"text":""}`)
	for _, w := range strings.SplitAfter(text, " ") {
		d, _ := json.Marshal(w)
		r.event("response.output_text.delta", at+`,"delta":`+string(d)+`,"logprobs":[]`)
	}
	r.event("response.output_text.done", at+`,"text":`+string(q)+`,"logprobs":[]`)
	r.event("response.content_part.done", at+`,"part":{"type":"output_text","annotations":[],"text":`+string(q)+`}`)
	r.event("response.output_item.done", `"output_index":`+strconv.Itoa(idx)+`,"item":`+item)
	r.output = append(r.output, item)
}

func (r *rsBuilder) call(idx int, id, callID, args string) {
	q, _ := json.Marshal(args)
	item := `{"id":"` + id + `","type":"function_call","status":"completed","arguments":` + string(q) + `,"call_id":"` + callID + `","name":"exec"}`
	r.event("response.output_item.added", `"output_index":`+strconv.Itoa(idx)+`,"item":{"id":"`+id+`","type":"function_call","status":"in_progress","arguments":"","call_id":"`+callID+`","name":"exec"}`)
	r.event("response.function_call_arguments.delta", `"item_id":"`+id+`","output_index":`+strconv.Itoa(idx)+`,"delta":`+string(q))
	r.event("response.function_call_arguments.done", `"item_id":"`+id+`","output_index":`+strconv.Itoa(idx)+`,"arguments":`+string(q))
	r.event("response.output_item.done", `"output_index":`+strconv.Itoa(idx)+`,"item":`+item)
	r.output = append(r.output, item)
}

func (r *rsBuilder) stream(text string) string {
	head := "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_j\",\"status\":\"in_progress\",\"output\":[]},\"sequence_number\":0}\n\n"
	r.event("response.completed", `"response":{"id":"resp_j","status":"completed","output":[`+strings.Join(r.output, ",")+`],"usage":{"input_tokens":3,"output_tokens":5,"total_tokens":8}}`)
	return head + text + r.b.String()
}

func newRSBuilder() *rsBuilder { return &rsBuilder{seq: 1} }

// responsesAnswer is what openai-go v3 reads out of a Responses stream: the
// last output_text of the last message item as each source gives it (the
// deltas accumulated per output_index and content_index as openai-node's
// accumulator does, output_text.done, content_part.done, output_item.done
// (what codex reads), and response.completed's output and OutputText (what
// the Agents SDK reads)), and the calls in the completed output.
type responsesAnswer struct {
	Last      map[string]string
	Calls     []string
	Seqs      []int64
	Usage     int64
	Completed responses.Response
}

func readResponsesAnswer(t *testing.T, out string) responsesAnswer {
	t.Helper()
	stream := openaisse.NewStream[responses.ResponseStreamEventUnion](openaisse.NewDecoder(sseResponse([]byte(out))), nil)
	defer stream.Close()
	a := responsesAnswer{Last: map[string]string{}}
	type part struct{ item, content int64 }
	deltas := map[part]string{}
	var items []string // the type of each announced item, by output_index
	var lastMsg int64 = -1
	var lastPart int64
	for stream.Next() {
		ev := stream.Current()
		a.Seqs = append(a.Seqs, ev.SequenceNumber)
		switch ev.Type {
		case "response.output_item.added":
			if ev.OutputIndex != int64(len(items)) {
				t.Fatalf("item announced at output_index %d after %d items:\n%s", ev.OutputIndex, len(items), out)
			}
			items = append(items, ev.Item.Type)
		case "response.output_text.delta":
			if ev.OutputIndex >= int64(len(items)) || items[ev.OutputIndex] != "message" {
				t.Fatalf("a text delta at output_index %d, items %v", ev.OutputIndex, items)
			}
			deltas[part{ev.OutputIndex, ev.ContentIndex}] += ev.Delta
			lastMsg, lastPart = ev.OutputIndex, ev.ContentIndex
		case "response.output_text.done":
			a.Last["output_text.done"] = ev.Text
		case "response.content_part.done":
			a.Last["content_part.done"] = ev.Part.Text
		case "response.output_item.done":
			if ev.OutputIndex >= int64(len(items)) || items[ev.OutputIndex] != ev.Item.Type {
				t.Fatalf("item %d done as %s, items %v", ev.OutputIndex, ev.Item.Type, items)
			}
			if ev.Item.Type == "message" {
				m := ev.Item.AsMessage()
				a.Last["output_item.done"] = m.Content[len(m.Content)-1].Text
			}
		case "response.completed":
			a.Completed = ev.Response
			a.Usage = ev.Response.Usage.TotalTokens
			for _, it := range ev.Response.Output {
				switch it.Type {
				case "message":
					m := it.AsMessage()
					a.Last["completed"] = m.Content[len(m.Content)-1].Text
				case "function_call":
					a.Calls = append(a.Calls, it.Name+" "+it.Arguments.OfString)
				}
			}
			a.Last["output_text"] = ev.Response.OutputText()
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v\n%s", err, out)
	}
	if lastMsg >= 0 {
		a.Last["deltas"] = deltas[part{lastMsg, lastPart}]
	}
	return a
}

func TestResponsesAdditionsJoinTheLastTextAsTheSDKReadsIt(t *testing.T) {
	cases := []struct {
		name   string
		build  func(r *rsBuilder)
		onAll  bool
		last   string
		whole  string // OutputText: every message's text joined
		calls  []string
		others []string // sources that must not hold last (the answer's last text is elsewhere)
	}{
		{"a text answer", func(r *rsBuilder) { r.message(0, "msg_a", "Here you go.") }, false,
			"Here you go.\n\n" + joinDisclaimer, "Here you go.\n\n" + joinDisclaimer, nil, nil},
		{"text, an allowed call, text", func(r *rsBuilder) {
			r.message(0, "msg_a", "First.")
			r.call(1, "fc_1", "call_1", `{"command":"ls"}`)
			r.message(2, "msg_b", "Then.")
		}, true, "Then.\n\n" + joinDisclaimer, "First.Then.\n\n" + joinDisclaimer, []string{`exec {"command":"ls"}`}, nil},
		{"text, a blocked call", func(r *rsBuilder) {
			r.message(0, "msg_a", "Cleaning up.")
			r.call(1, "fc_1", "call_1", `{"command":"rm -rf /"}`)
		}, false, "Cleaning up.\n\n" + joinNote + "\n\n" + joinDisclaimer, "Cleaning up.\n\n" + joinNote + "\n\n" + joinDisclaimer, nil, nil},
		{"a blocked call between two texts", func(r *rsBuilder) {
			r.message(0, "msg_a", "Cleaning up.")
			r.call(1, "fc_1", "call_1", `{"command":"rm -rf /"}`)
			r.message(2, "msg_b", "Done.")
		}, false, "Done.\n\n" + joinNote + "\n\n" + joinDisclaimer, "Cleaning up.Done.\n\n" + joinNote + "\n\n" + joinDisclaimer, nil, nil},
		{"only a blocked call", func(r *rsBuilder) { r.call(0, "fc_1", "call_1", `{"command":"rm -rf /"}`) }, false,
			joinNote + "\n\n" + joinDisclaimer, joinNote + "\n\n" + joinDisclaimer, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rb := newRSBuilder()
			c.build(rb)
			stream := rb.stream("")
			r := NewResponses(Options{Engine: engineFor(t, joinPolicy), PreResponseOnToolCalls: c.onAll})
			out, err := relayResponses(t, r, streamRequest, stream)
			if err != nil {
				t.Fatal(err)
			}
			a := readResponsesAnswer(t, out)
			for _, src := range []string{"deltas", "output_text.done", "content_part.done", "output_item.done", "completed"} {
				if got := a.Last[src]; got != c.last {
					t.Errorf("%s: the last text is %q, want %q", src, got, c.last)
				}
			}
			if a.Last["output_text"] != c.whole {
				t.Errorf("output_text %q, want %q", a.Last["output_text"], c.whole)
			}
			if strings.Join(a.Calls, ",") != strings.Join(c.calls, ",") || strings.Contains(out, "rm -rf") {
				t.Errorf("calls %v, want %v", a.Calls, c.calls)
			}
			if !contiguous(a.Seqs) || a.Seqs[0] != 0 {
				t.Errorf("sequence numbers %v", a.Seqs)
			}
			if a.Usage != 8 {
				t.Errorf("usage %d, want the upstream's 8", a.Usage)
			}
			if got := responsesClientReads(t, []byte(out)); got.reads("rm -rf") || got.Err != nil {
				t.Errorf("the client read %v (%v)", got.Calls, got.Err)
			}
			viewOf(t, out) // indices consistent

			// The same response, not streamed.
			body := `{"id":"resp_p","object":"response","status":"completed","output":[` + strings.Join(rb.output, ",") + `]}`
			ex := begin(t, r, "", `{"model":"m","input":"go"}`)
			plain, err := ex.FinishPlain(context.Background(), []byte(body))
			if err != nil {
				t.Fatal(err)
			}
			var resp responses.Response
			if err := json.Unmarshal(plain, &resp); err != nil {
				t.Fatal(err)
			}
			var last string
			var calls []string
			for _, it := range resp.Output {
				switch it.Type {
				case "message":
					m := it.AsMessage()
					last = m.Content[len(m.Content)-1].Text
				case "function_call":
					calls = append(calls, it.Name+" "+it.Arguments.OfString)
				}
			}
			if last != c.last || resp.OutputText() != c.whole || strings.Join(calls, ",") != strings.Join(c.calls, ",") {
				t.Errorf("plain: last text %q, output_text %q, calls %v\n%s", last, resp.OutputText(), calls, plain)
			}
		})
	}
}

// Every recorded Responses stream, every call blocked, a disclaimer on:
// what the SDK reads ends with the notes and the disclaimer everywhere.
func TestResponsesRecordedStreamsEndWithNotesAndDisclaimer(t *testing.T) {
	r := NewResponses(Options{Engine: engineFor(t, blockAllHook+disclaimerHook)})
	for name, stream := range responsesStreams(t) {
		direct := viewOf(t, stream)
		if direct.Terminal != "response.completed" {
			continue // no answer to join
		}
		out, err := relayResponses(t, r, streamRequest, stream)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		a := readResponsesAnswer(t, out)
		if len(a.Calls) != 0 {
			t.Errorf("%s: calls reached the client: %v", name, a.Calls)
		}
		if !contiguous(a.Seqs) {
			t.Errorf("%s: sequence numbers %v", name, a.Seqs)
		}
		for _, src := range []string{"deltas", "output_item.done", "completed"} {
			got := a.Last[src]
			if !strings.HasSuffix(got, "\n\nNot advice.") {
				t.Errorf("%s: %s: the last text does not end with the disclaimer: %q", name, src, got)
			}
			for _, c := range direct.Calls {
				if !strings.Contains(got, "[hookgate] tool call "+c.Name+" blocked by block-all: no tools today") {
					t.Errorf("%s: %s: the last text lacks the note for %s: %q", name, src, c.Name, got)
				}
			}
		}
	}
}

// The plain Messages and Responses fixtures, every call blocked, a
// disclaimer on.
func TestPlainFixturesEndWithNotesAndDisclaimer(t *testing.T) {
	for _, f := range fixtures.List(t, fixtures.APIResponses, fixtures.KindJSON) {
		r := NewResponses(Options{Engine: engineFor(t, blockAllHook+disclaimerHook)})
		out, err := begin(t, r, "", `{"model":"m","input":"go"}`).FinishPlain(context.Background(), f.Read(t))
		if err != nil {
			t.Fatal(err)
		}
		var resp responses.Response
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatal(err)
		}
		if n := len(resp.Output); n == 0 || resp.Output[n-1].Type != "message" {
			t.Fatalf("%s: %s", f.Rel, out)
		}
		if txt := resp.OutputText(); !strings.HasSuffix(txt, "\n\nNot advice.") || !strings.Contains(txt, "blocked by block-all") || strings.Contains(string(out), `"function_call"`) {
			t.Errorf("%s: %s", f.Rel, out)
		}
	}
	for _, f := range fixtures.List(t, fixtures.APIAnthropic, fixtures.KindJSON) {
		ex, err := NewMessages(Options{Engine: engineFor(t, msgBlockTools+msgDisclaimer)}).Begin(context.Background(), &Request{Body: []byte(`{"model":"claude","messages":[{"role":"user","content":"go"}]}`)})
		if err != nil {
			t.Fatal(err)
		}
		out, err := ex.FinishPlain(context.Background(), f.Read(t))
		if err != nil {
			t.Fatal(err)
		}
		var msg anthropic.Message
		if err := json.Unmarshal(out, &msg); err != nil {
			t.Fatal(err)
		}
		if last := lastText(t, msg.Content); !strings.HasSuffix(last, "\n\nNot advice.") || len(toolUseNames(msg.Content)) != 0 ||
			(strings.Contains(string(f.Read(t)), `"tool_use"`) && !strings.Contains(last, "blocked by block-all")) {
			t.Errorf("%s: %s", f.Rel, out)
		}
	}
}

// A server whose done item and final output do not repeat the text (their
// content is empty) still gets the disclaimer in the streamed text, and
// its stream is not refused for it.
func TestResponsesJoinWithoutRepeatedText(t *testing.T) {
	rb := newRSBuilder()
	rb.event("response.output_item.added", `"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}`)
	rb.event("response.content_part.added", `"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}`)
	rb.event("response.output_text.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi."`)
	rb.event("response.output_item.done", `"output_index":0,"item":{"id":"msg_1","type":"message","status":"completed","content":[],"role":"assistant"}`)
	rb.output = append(rb.output, `{"id":"msg_1","type":"message","status":"completed","content":[],"role":"assistant"}`)
	out, err := relayResponses(t, NewResponses(Options{Engine: engineFor(t, disclaimerHook)}), streamRequest, rb.stream(""))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	v := viewOf(t, out)
	if v.Text != "Hi.\n\nNot advice." || !contiguous(v.Seqs) || v.Terminal != "response.completed" {
		t.Fatalf("%+v\n%s", v, out)
	}
}

// A message that ends without message_delta still shows the notes in its
// last text (pre_response, which runs at message_delta, does not run).
func TestMessagesJoinWithoutMessageDelta(t *testing.T) {
	stream := msgSSE(msgJoin([]string{evStart}, msgTextBlock(0, "Ok."), msgToolBlock(1, "t1", "exec", `{"command":"rm -rf /"}`), []string{evMsgStop})...)
	out, err := relayMessages(t, Options{Engine: engineFor(t, joinPolicy)}, strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	got := readMessageStream(t, out)
	if len(got.Blocks) != 1 || got.Blocks[0].Text != "Ok.\n\n"+joinNote || !got.Blocks[0].Closed || !got.Stopped || strings.Contains(string(out), "rm -rf") {
		t.Fatalf("%+v\n%s", got, out)
	}
}
