package interceptors

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
	"github.com/hookgate/hookgate/providers"
)

const (
	msgAllowTools = `
- id: allow
  event: pre_tool_use
  handler: {type: script, source: 'function handle(e) { return {decision: "allow"}; }'}
`
	msgBlockTools = `
- id: block-all
  event: pre_tool_use
  handler: {type: script, source: 'function handle(e) { return {decision: "block", reason: "no tools today"}; }'}
`
	msgStampTools = `
- id: stamp
  event: pre_tool_use
  allow_mutation: [toolInput.audited]
  handler: {type: script, source: 'function handle(e) { return {decision: "rewrite", updatedInput: {audited: true}}; }'}
`
)

// messageSeen is what a strict client assembles from a Messages stream: it
// refuses what the Anthropic SDKs refuse (a block started out of index
// order, an event for a block that does not exist).
type messageSeen struct {
	ID         string
	Blocks     []seenBlock
	StopReason string
	Stopped    bool   // message_stop came
	Error      string // the error event's payload
	Deltas     map[int]int
	// Garbled counts events whose payload is not JSON: only an event the
	// upstream left unfinished, before hookgate's error event.
	Garbled int
}

type seenBlock struct {
	Type, Text, ID, Name, Input string
	Thinking, Signature         string
	Closed                      bool
}

func readMessageStream(t *testing.T, out []byte) messageSeen {
	t.Helper()
	var m messageSeen
	m.Deltas = map[int]int{}
	p := providers.NewSSEParser(0)
	p.Feed(out)
	p.End()
	for {
		f, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		if f == nil {
			break
		}
		if !f.HasData() {
			continue
		}
		if m.Stopped || m.Error != "" {
			t.Fatalf("an event after the end: %s", f.Data)
		}
		if !gjson.ValidBytes(f.Data) {
			m.Garbled++
			continue
		}
		d := gjson.ParseBytes(f.Data)
		if d.Get("type").String() != string(f.Event) {
			t.Fatalf("event %q with payload %s", f.Event, f.Data)
		}
		idx := int(d.Get("index").Int())
		block := func() *seenBlock {
			if idx < 0 || idx >= len(m.Blocks) || m.Blocks[idx].Closed {
				t.Fatalf("%s for block %d, which is not open (%d blocks):\n%s", f.Event, idx, len(m.Blocks), out)
			}
			return &m.Blocks[idx]
		}
		switch string(f.Event) {
		case "message_start":
			m.ID = d.Get("message.id").String()
		case "content_block_start":
			if idx != len(m.Blocks) {
				t.Fatalf("block %d started after %d blocks:\n%s", idx, len(m.Blocks), out)
			}
			cb := d.Get("content_block")
			m.Blocks = append(m.Blocks, seenBlock{Type: cb.Get("type").String(), ID: cb.Get("id").String(), Name: cb.Get("name").String()})
		case "content_block_delta":
			b := block()
			m.Deltas[idx]++
			switch d.Get("delta.type").String() {
			case "text_delta":
				b.Text += d.Get("delta.text").String()
			case "input_json_delta":
				b.Input += d.Get("delta.partial_json").String()
			case "thinking_delta":
				b.Thinking += d.Get("delta.thinking").String()
			case "signature_delta":
				b.Signature += d.Get("delta.signature").String()
			}
		case "content_block_stop":
			block().Closed = true
		case "message_delta":
			m.StopReason = d.Get("delta.stop_reason").String()
		case "message_stop":
			m.Stopped = true
		case "error":
			m.Error = string(f.Data)
		}
	}
	if m.Garbled > 0 && m.Error == "" {
		t.Fatalf("%d events are not JSON, and no error event follows:\n%s", m.Garbled, out)
	}
	return m
}

func (m messageSeen) text() string {
	var b strings.Builder
	for _, c := range m.Blocks {
		b.WriteString(c.Text)
	}
	return b.String()
}

func (m messageSeen) toolUses() []seenBlock {
	var out []seenBlock
	for _, c := range m.Blocks {
		if c.Type == "tool_use" {
			out = append(out, c)
		}
	}
	return out
}

const messagesRequest = `{"model":"claude","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"go"}]}`

// relayMessages runs a stream through a Messages exchange under the engine
// and returns what the client got and the relay's error.
func relayMessages(t *testing.T, opts Options, upstream io.Reader) ([]byte, error) {
	t.Helper()
	ex, err := NewMessages(opts).Begin(context.Background(), &Request{Route: "/v1/messages", Body: []byte(messagesRequest)})
	if err != nil {
		t.Fatal(err)
	}
	var out bufferSink
	err = ex.RelayStream(context.Background(), upstream, &out)
	return out.Bytes(), err
}

func msgStreams(t *testing.T) []fixtures.Fixture {
	streams := fixtures.List(t, fixtures.APIAnthropic, fixtures.KindSSE)
	if len(streams) < 4 {
		t.Fatalf("only %d Anthropic streams among the fixtures", len(streams))
	}
	return streams
}

func TestMessagesStreamsUnderAnAllowingHookPassByteForByte(t *testing.T) {
	e := engineFor(t, msgAllowTools)
	for _, f := range msgStreams(t) {
		in := f.Read(t)
		for name, r := range map[string]io.Reader{"whole": bytes.NewReader(in), "one byte per read": iotest.OneByteReader(bytes.NewReader(in))} {
			out, err := relayMessages(t, Options{Engine: e}, r)
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("%s, %s: err %v; the bytes differ:\n%s", f.Rel, name, err, out)
			}
		}
	}
}

// recordedToolUses assembles the tool_use blocks of a recording the way a
// client does.
func msgRecordedToolUses(t *testing.T, in []byte) []seenBlock {
	t.Helper()
	return readMessageStream(t, in).toolUses()
}

func TestMessagesStreamsUnderABlockingHook(t *testing.T) {
	e := engineFor(t, msgBlockTools)
	for _, f := range msgStreams(t) {
		in := f.Read(t)
		want := readMessageStream(t, in)
		out, err := relayMessages(t, Options{Engine: e}, iotest.HalfReader(bytes.NewReader(in)))
		if err != nil {
			t.Fatalf("%s: %v", f.Rel, err)
		}
		got := readMessageStream(t, out)
		if len(got.toolUses()) != 0 || got.StopReason != "end_turn" || !got.Stopped {
			t.Fatalf("%s: blocks %+v stop %q\n%s", f.Rel, got.Blocks, got.StopReason, out)
		}
		// The blocked calls are gone and their notes join the last text
		// block (one text block of their own when the last block is not
		// text); every other block is as it came.
		var kept []seenBlock
		var notes []string
		for _, b := range want.Blocks {
			if b.Type == "tool_use" {
				notes = append(notes, "[hookgate] tool call "+b.Name+" blocked by block-all: no tools today")
				continue
			}
			kept = append(kept, b)
		}
		note := strings.Join(notes, "\n")
		if n := len(kept); n > 0 && kept[n-1].Type == "text" {
			if kept[n-1].Text != "" {
				note = "\n\n" + note
			}
			kept[n-1].Text += note
		} else {
			kept = append(kept, seenBlock{Type: "text", Text: note, Closed: true})
		}
		if !reflect.DeepEqual(got.Blocks, kept) {
			t.Errorf("%s: blocks %+v, want %+v", f.Rel, got.Blocks, kept)
		}
		// Thinking and its signature pass untouched, bytes and all.
		if i := bytes.Index(in, []byte(`"signature_delta"`)); i > 0 {
			start := bytes.LastIndex(in[:i], []byte("event: "))
			end := start + bytes.Index(in[start:], []byte("\n\n")) + 2
			if !bytes.Contains(out, in[start:end]) {
				t.Errorf("%s: the signature event did not pass as it came", f.Rel)
			}
		}
	}
}

func TestMessagesStreamsUnderARewritingHook(t *testing.T) {
	e := engineFor(t, msgStampTools)
	for _, f := range msgStreams(t) {
		in := f.Read(t)
		want := msgRecordedToolUses(t, in)
		out, err := relayMessages(t, Options{Engine: e}, iotest.OneByteReader(bytes.NewReader(in)))
		if err != nil {
			t.Fatalf("%s: %v", f.Rel, err)
		}
		got := readMessageStream(t, out)
		uses := got.toolUses()
		if len(uses) != len(want) || got.StopReason != "tool_use" || !got.Stopped {
			t.Fatalf("%s: %d tool uses, stop %q:\n%s", f.Rel, len(uses), got.StopReason, out)
		}
		for i, w := range want {
			var args, wantArgs map[string]any
			if err := json.Unmarshal([]byte(uses[i].Input), &args); err != nil {
				t.Fatalf("%s: input %q is not JSON", f.Rel, uses[i].Input)
			}
			_ = json.Unmarshal([]byte(w.Input), &wantArgs)
			wantArgs["audited"] = true
			if uses[i].ID != w.ID || uses[i].Name != w.Name || !reflect.DeepEqual(args, wantArgs) {
				t.Errorf("%s: call %d: %+v, want %s %s %v", f.Rel, i, uses[i], w.ID, w.Name, wantArgs)
			}
		}
		for idx, b := range got.Blocks {
			if b.Type == "tool_use" && got.Deltas[idx] != 1 {
				t.Errorf("%s: a rewritten block went out in %d deltas, want one", f.Rel, got.Deltas[idx])
			}
		}
	}
}

// A stream of the given events, each framed as Anthropic frames them.
func msgSSE(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("event: " + gjson.Get(e, "type").String() + "\ndata: " + e + "\n\n")
	}
	return b.String()
}

const (
	evStart        = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}`
	evMsgDelta     = `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}`
	evEndTurn      = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}`
	evMsgStop      = `{"type":"message_stop"}`
	evPing         = `{"type": "ping"}`
	msgShellPolicy = `
- id: no-rm
  event: pre_tool_use
  if_expr: "toolInput.command.startsWith('rm')"
  handler: {type: script, source: 'function handle(e) { return {decision: "block", reason: "no rm"}; }'}
`
)

func msgTextBlock(i int, text string) []string {
	idx := msgItoa(i)
	return []string{
		`{"type":"content_block_start","index":` + idx + `,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":` + idx + `,"delta":{"type":"text_delta","text":` + msgQuote(text) + `}}`,
		`{"type":"content_block_stop","index":` + idx + `}`,
	}
}

func msgToolBlock(i int, id, name string, fragments ...string) []string {
	idx := msgItoa(i)
	out := []string{`{"type":"content_block_start","index":` + idx + `,"content_block":{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":{}}}`}
	for _, f := range fragments {
		out = append(out, `{"type":"content_block_delta","index":`+idx+`,"delta":{"type":"input_json_delta","partial_json":`+msgQuote(f)+`}}`)
	}
	return append(out, `{"type":"content_block_stop","index":`+idx+`}`)
}

func msgItoa(i int) string     { b, _ := json.Marshal(i); return string(b) }
func msgQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func msgJoin(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestMessagesMixedBlocksKeepIndicesContiguous(t *testing.T) {
	e := engineFor(t, msgShellPolicy)
	stream := msgSSE(msgJoin(
		[]string{evStart},
		msgTextBlock(0, "On it."),
		msgToolBlock(1, "toolu_rm", "exec", `{"command":`, `"rm -rf /"}`),
		[]string{evPing},
		msgToolBlock(2, "toolu_ls", "exec", `{"command":"ls"}`),
		[]string{evMsgDelta, evMsgStop},
	)...)
	out, err := relayMessages(t, Options{Engine: e}, strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	got := readMessageStream(t, out)
	// The blocked call leaves no block; the allowed one takes index 1.
	// The text block closed before it, so the note comes at the end, in a
	// text block of its own.
	if len(got.Blocks) != 3 || got.Blocks[0].Text != "On it." || got.Blocks[1].Input != `{"command":"ls"}` || got.Blocks[1].ID != "toolu_ls" ||
		got.Blocks[2].Text != "[hookgate] tool call exec blocked by no-rm: no rm" {
		t.Fatalf("blocks %+v\n%s", got.Blocks, out)
	}
	if got.StopReason != "tool_use" || strings.Contains(string(out), "rm -rf") {
		t.Fatalf("a call survives, so stop_reason stays tool_use; the blocked input never shows:\n%s", out)
	}
	// The allowed call went out as it came, renumbered only.
	for _, ev := range msgToolBlock(1, "toolu_ls", "exec", `{"command":"ls"}`) {
		if !bytes.Contains(out, []byte("data: "+ev+"\n\n")) {
			t.Errorf("the allowed block's event %s was changed", ev)
		}
	}
}

func TestMessagesBlocksAreRenumberedWhenTheUpstreamSkipsIndices(t *testing.T) {
	e := engineFor(t, msgAllowTools)
	stream := msgSSE(msgJoin([]string{evStart}, msgTextBlock(1, "a"), msgToolBlock(3, "t", "f", `{}`), []string{evMsgDelta, evMsgStop})...)
	out, err := relayMessages(t, Options{Engine: e}, strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	if got := readMessageStream(t, out); len(got.Blocks) != 2 || got.Blocks[0].Text != "a" || got.Blocks[1].Input != "{}" {
		t.Fatalf("blocks %+v\n%s", got.Blocks, out)
	}
}

func TestMessagesTruncationIsAnErrorNeverAStop(t *testing.T) {
	e := engineFor(t, msgAllowTools)
	full := msgSSE(msgJoin([]string{evStart}, msgTextBlock(0, "Sure."), msgToolBlock(1, "t", "exec", `{"command":`, `"ls"}`), []string{evMsgDelta, evMsgStop})...)
	for name, cut := range map[string]int{
		"mid tool block":       strings.Index(full, `ls\"}`),
		"before message_stop":  strings.Index(full, "event: message_stop"),
		"mid the text":         strings.Index(full, `"Sure."`) + 3,
		"after message_delta:": strings.Index(full, "event: message_stop") - 1,
	} {
		if cut <= 0 {
			t.Fatalf("%s: no such place in the stream", name)
		}
		for hooked, opts := range map[string]Options{"holding": {Engine: e}, "no hooks": {}} {
			out, err := relayMessages(t, opts, strings.NewReader(full[:cut]))
			if !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s, %s: err %v", name, hooked, err)
			}
			got := readMessageStream(t, out)
			if got.Stopped || !strings.Contains(got.Error, `"type":"error"`) || !strings.Contains(got.Error, "stream_truncated") {
				t.Fatalf("%s, %s: want an error event and no message_stop:\n%s", name, hooked, out)
			}
			// A block cut short is never written. A block that was
			// complete before the cut may be, once judged (its judgement
			// can finish before the reader sees the end): then whole.
			if uses := got.toolUses(); hooked == "holding" && len(uses) != 0 {
				complete := cut > strings.Index(full, `"index":1}`)
				if !complete || len(uses) != 1 || uses[0].Input != `{"command":"ls"}` {
					t.Fatalf("%s: a held partial block was written:\n%s", name, out)
				}
			}
		}
	}
}

func TestMessagesUpstreamErrorMidBlockPassesAndTheBlockDoesNot(t *testing.T) {
	e := engineFor(t, msgAllowTools)
	stream := msgSSE(msgJoin([]string{evStart}, msgTextBlock(0, "Sure."), msgToolBlock(1, "t", "exec", `{"command":`)[:2],
		[]string{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`})...)
	out, err := relayMessages(t, Options{Engine: e}, strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	got := readMessageStream(t, out)
	if len(got.Blocks) != 1 || !strings.Contains(got.Error, "overloaded_error") {
		t.Fatalf("want the text and the upstream's error:\n%s", out)
	}
}

func TestMessagesHeartbeatsWhileABlockIsHeld(t *testing.T) {
	e := engineFor(t, msgAllowTools)
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(msgSSE(msgJoin([]string{evStart}, msgToolBlock(0, "t", "f", `{"a":`)[:2])...)))
		time.Sleep(150 * time.Millisecond)
		pw.Write([]byte(msgSSE(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"1}"}}`,
			`{"type":"content_block_stop","index":0}`, evMsgDelta, evMsgStop)))
		pw.Close()
	}()
	out, err := relayMessages(t, Options{Engine: e, Heartbeat: 20 * time.Millisecond}, pr)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(out, []byte(": hookgate: holding a tool call")); n < 3 {
		t.Fatalf("%d heartbeats in a 150ms hold at 20ms:\n%s", n, out)
	}
	if got := readMessageStream(t, out); len(got.toolUses()) != 1 || got.toolUses()[0].Input != `{"a":1}` {
		t.Fatalf("blocks %+v", got.Blocks)
	}
}

const msgDisclaimer = `
- id: disclaimer
  event: pre_response
  mode: append
  handler: {type: script, source: 'function handle(e) { return {decision: "allow", additionalContext: "Not advice."}; }'}
`

func TestMessagesPreResponseJoinsTheLastTextBlockOfFinalAnswers(t *testing.T) {
	e := engineFor(t, msgDisclaimer)
	answer := msgSSE(msgJoin([]string{evStart}, msgTextBlock(0, "Buy."), []string{evEndTurn, evMsgStop})...)
	out, err := relayMessages(t, Options{Engine: e}, strings.NewReader(answer))
	if err != nil {
		t.Fatal(err)
	}
	got := readMessageStream(t, out)
	if got.text() != "Buy.\n\nNot advice." || len(got.Blocks) != 1 || got.StopReason != "end_turn" || !got.Stopped {
		t.Fatalf("%+v\n%s", got, out)
	}
	withCall := msgSSE(msgJoin([]string{evStart}, msgTextBlock(0, "Buy."), msgToolBlock(1, "t", "f", "{}"), []string{evMsgDelta, evMsgStop})...)
	out, err = relayMessages(t, Options{Engine: e}, strings.NewReader(withCall))
	if err != nil || string(out) != withCall {
		t.Fatalf("a response with a tool call is not a final answer: %v\n%s", err, out)
	}
}

func TestMessagesPlainResponses(t *testing.T) {
	body := msgFixture(t, "anthropic/messages-two-tool-use.json")
	plain := func(doc string, in []byte) []byte {
		t.Helper()
		ex, err := NewMessages(Options{Engine: engineFor(t, doc)}).Begin(context.Background(), &Request{Body: []byte(`{"model":"claude","messages":[{"role":"user","content":"go"}]}`)})
		if err != nil {
			t.Fatal(err)
		}
		out, err := ex.FinishPlain(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := plain(msgAllowTools, body); !bytes.Equal(out, body) {
		t.Fatalf("allowed: %s", out)
	}
	blocked, _ := providers.ParseMessagesResponse(plain(msgBlockTools, body))
	if blocked.StopReason != "end_turn" || len(blocked.ToolUses()) != 0 || len(blocked.Content) != 1 ||
		blocked.Content[0].Text != "I'll add and multiply the numbers 2 and 3 for you.\n\n[hookgate] tool call add blocked by block-all: no tools today\n[hookgate] tool call multiply blocked by block-all: no tools today" {
		t.Fatalf("blocked: %+v", blocked)
	}
	stamped, _ := providers.ParseMessagesResponse(plain(msgStampTools, body))
	if stamped.StopReason != "tool_use" || stamped.Content[1].Input != `{"a":2,"b":3,"audited":true}` || stamped.Content[2].Input != `{"a":2,"b":3,"audited":true}` {
		t.Fatalf("rewritten: %+v", stamped)
	}
	final := []byte(`{"id":"msg_2","type":"message","role":"assistant","model":"claude","content":[{"type":"text","text":"Buy."}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
	if got, _ := providers.ParseMessagesResponse(plain(msgDisclaimer, final)); got.Text() != "Buy.\n\nNot advice." {
		t.Fatalf("disclaimer: %+v", got)
	}
	if out := plain(msgDisclaimer, body); !bytes.Equal(out, body) {
		t.Fatalf("a response with tool calls got the disclaimer: %s", out)
	}
}

func TestMessagesRequestSide(t *testing.T) {
	e := engineFor(t, `
- id: rules
  event: session_start
  handler: {type: script, source: 'function handle(e) { return {decision: "allow", additionalContext: "Rules for " + e.provider + "."}; }'}
- id: no-secrets
  event: user_prompt_submit
  if_expr: "prompt.contains('password')"
  handler: {type: script, source: 'function handle(e) { return {decision: "block", reason: "not about passwords"}; }'}
`)
	m := NewMessages(Options{Engine: e, SessionHeader: "X-Session-Id"})
	hdr := func(string) string { return "s1" }
	body := `{"model":"claude","system":[{"type":"text","text":"Agent.","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}]}`
	ex, err := m.Begin(context.Background(), &Request{Header: hdr, Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(ex.Body(), "system").Raw; got != `[{"type":"text","text":"Rules for anthropic."},{"type":"text","text":"Agent.","cache_control":{"type":"ephemeral"}}]` {
		t.Fatalf("system %s", got)
	}
	ex, err = m.Begin(context.Background(), &Request{Header: hdr, Body: []byte(`{"model":"claude","stream":true,"messages":[{"role":"user","content":"the password?"}]}`)})
	if err != nil || ex.Reply() == nil {
		t.Fatalf("a blocked prompt must be answered by hookgate: %v", err)
	}
	if got := readMessageStream(t, ex.Reply().Body); got.text() != "not about passwords" || got.StopReason != "end_turn" || !got.Stopped {
		t.Fatalf("reply %s", ex.Reply().Body)
	}
	_, err = m.Begin(context.Background(), &Request{Body: []byte(`{"messages":`)})
	var re *RequestError
	if !errors.As(err, &re) || re.Status != 400 {
		t.Fatalf("bad JSON: %v", err)
	}
	if b := providers.AnthropicErrorShape(re.Status, re.Type, re.Code, re.Message); gjson.GetBytes(b, "type").String() != "error" || gjson.GetBytes(b, "error.type").String() != "invalid_request_error" ||
		!strings.HasPrefix(gjson.GetBytes(b, "error.message").String(), "invalid_json: ") {
		t.Fatalf("rendered %s", b)
	}
}

func TestMessagesTurnReadsToolResultsAndPrompts(t *testing.T) {
	view, err := providers.ParseMessagesRequest([]byte(`{"messages":[{"role":"user","content":"ls"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt"}]},` +
		`{"role":"assistant","content":"one file"},{"role":"user","content":[{"type":"text","text":"thanks"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tr := messagesTurn(view)
	if !tr.HasAssistant || len(tr.Users) != 2 || tr.Users[1] != (turnMessage{Pos: 4, Text: "thanks"}) ||
		tr.Calls["t1"] != (turnCall{Name: "Bash", Arguments: `{"command":"ls"}`}) || tr.Results[0] != (turnResult{CallID: "t1", Content: "a.txt"}) {
		t.Fatalf("turn %+v", tr)
	}
}

func msgFixture(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures.Dir(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
