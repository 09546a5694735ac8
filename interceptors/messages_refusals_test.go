package interceptors

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/providers"
)

// A tool_use hookgate's hook would block, in each place a Messages client
// reads one that hookgate does not hold: hookgate refuses the event, ends the
// stream with an error event, and no real client reads the call.
func TestMessagesPlacesAClientReadsACallAreJudgedOrRefused(t *testing.T) {
	const rm = `{"command":"rm -rf /"}`
	startWith := func(content string) string {
		return strings.Replace(evStart, `"content":[]`, `"content":`+content, 1)
	}
	rmBlock := func(i int) []string { return msgToolBlock(i, "toolu_rm", "exec", `{"command":`, `"rm -rf /"}`) }
	rmDelta := func(index string) string {
		return `{"type":"content_block_delta","index":` + index + `,"delta":{"type":"input_json_delta","partial_json":` + msgQuote(rm) + `}}`
	}
	lsStart := `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_ls","name":"exec","input":{}}}`
	cases := map[string]string{
		"message_start content carries a tool_use": msgSSE(msgJoin(
			[]string{startWith(`[{"type":"tool_use","id":"toolu_rm","name":"exec","input":` + rm + `}]`)},
			msgTextBlock(0, "ok"), []string{evEndTurn, evMsgStop})...),
		"message_start content carries a server_tool_use": msgSSE(msgJoin(
			[]string{startWith(`[{"type":"server_tool_use","id":"srv","name":"exec","input":` + rm + `}]`)},
			[]string{evEndTurn, evMsgStop})...),
		"message_start content is not an array": msgSSE(startWith(`{"type":"tool_use","name":"exec","input":`+rm+`}`), evEndTurn, evMsgStop),
		"a second message_start carries a tool_use": msgSSE(msgJoin(
			[]string{evStart}, msgTextBlock(0, "ok"),
			[]string{startWith(`[{"type":"tool_use","id":"toolu_rm","name":"exec","input":` + rm + `}]`), evMsgDelta, evMsgStop})...),
		"a tool_use after message_stop": msgSSE(msgJoin(
			[]string{evStart}, msgTextBlock(0, "ok"), []string{evEndTurn, evMsgStop}, rmBlock(1), []string{evMsgDelta, evMsgStop})...),
		"a message_start after message_stop": msgSSE(msgJoin(
			[]string{evStart}, msgTextBlock(0, "ok"), []string{evEndTurn, evMsgStop},
			[]string{startWith(`[{"type":"tool_use","id":"toolu_rm","name":"exec","input":` + rm + `}]`), evMsgDelta, evMsgStop})...),
		"a delta for a block never started": msgSSE(msgJoin(
			[]string{evStart}, msgTextBlock(0, "ok"), []string{rmDelta("1"), evMsgDelta, evMsgStop})...),
		"a tool_use start with input and fragments": msgSSE(msgJoin([]string{evStart,
			strings.Replace(lsStart, `"input":{}`, `"input":{"command":"ls"}`, 1), rmDelta("0"),
			`{"type":"content_block_stop","index":0}`, evMsgDelta, evMsgStop})...),
		"a tool_use start whose input is a string": msgSSE(msgJoin([]string{evStart,
			strings.Replace(lsStart, `"input":{}`, `"input":`+msgQuote(rm), 1),
			`{"type":"content_block_stop","index":0}`, evMsgDelta, evMsgStop})...),
		"an event: ping carrying a tool_use start": msgSSE(evStart) + "event: ping\ndata: " +
			strings.Replace(lsStart, `"input":{}`, `"input":`+rm, 1) + "\n\n" + msgSSE(`{"type":"content_block_stop","index":0}`, evMsgDelta, evMsgStop),
		"an event: named otherwise than its type": msgSSE(msgJoin([]string{evStart, lsStart})...) + "event: content_block_stop\ndata: " +
			rmDelta("0") + "\n\n" + msgSSE(`{"type":"content_block_stop","index":0}`, evMsgDelta, evMsgStop),
		"an escaped type named otherwise": msgSSE(evStart) + "event: content_block_start\ndata: " +
			strings.Replace(strings.Replace(lsStart, `"input":{}`, `"input":`+rm, 1), `"content_block_start"`, `"content_block_stor\u0074"`, 1) + "\n\n" + msgSSE(evMsgDelta, evMsgStop),
		"an unreadable payload": msgSSE(evStart) + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"name\":\"exec\",\"input\":" + rm + "}\n\n" + msgSSE(evMsgDelta, evMsgStop),
	}
	for _, index := range []string{`0.0`, `0e0`, `-0`, `00`, `9007199254740993`, `"0"`, `null`, `true`} {
		cases["a delta whose index is "+index] = msgSSE(msgJoin([]string{evStart, lsStart, rmDelta(index),
			`{"type":"content_block_stop","index":0}`, evMsgDelta, evMsgStop})...)
		cases["a tool_use start whose index is "+index] = msgSSE(msgJoin([]string{evStart,
			strings.Replace(lsStart, `"index":0`, `"index":`+index, 1), rmDelta("0"),
			`{"type":"content_block_stop","index":0}`, evMsgDelta, evMsgStop})...)
	}
	e := engineFor(t, msgShellPolicy)
	for name, stream := range cases {
		out, err := relayMessages(t, Options{Engine: e}, strings.NewReader(stream))
		if !errors.Is(err, ErrRefusedEvent) && !errors.Is(err, providers.ErrInvalidJSON) {
			t.Errorf("%s: err %v, want a refusal\n%s", name, err, out)
		}
		got := anthropicClientReads(t, out)
		if got.reads("rm -rf") {
			t.Errorf("%s: anthropic-sdk-go read the blocked call: %q\n%s", name, got.Calls, out)
		}
		if got.Err == nil || bytes.Contains(out, []byte("rm -rf")) {
			t.Errorf("%s: want the stream to end with hookgate's error event and the call never written: %v\n%s", name, got.Err, out)
		}
	}
}

// What hookgate writes for recorded streams under a blocking hook and for
// its own blocks and rewrites, read by anthropic-sdk-go: a clean stream in
// which no blocked call shows.
func TestMessagesClientsReadNoBlockedCall(t *testing.T) {
	e := engineFor(t, msgBlockTools)
	for _, f := range msgStreams(t) {
		out, err := relayMessages(t, Options{Engine: e}, bytes.NewReader(f.Read(t)))
		if err != nil {
			t.Fatalf("%s: %v", f.Rel, err)
		}
		if got := anthropicClientReads(t, out); got.Err != nil || len(got.Calls) != 0 {
			t.Errorf("%s: the client read %q (err %v)", f.Rel, got.Calls, got.Err)
		}
	}
	stream := msgSSE(msgJoin([]string{evStart}, msgTextBlock(0, "On it."),
		msgToolBlock(1, "toolu_rm", "exec", `{"command":`, `"rm -rf /"}`),
		[]string{strings.Replace(msgToolBlock(2, "toolu_ls", "exec", `{"command":"ls"}`)[0], `"input":{}`, `"input":{"command":"ls"}`, 1),
			`{"type":"content_block_stop","index":2}`, evMsgDelta, evMsgStop})...)
	out, err := relayMessages(t, Options{Engine: engineFor(t, msgShellPolicy+msgStampAll)}, strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	got := anthropicClientReads(t, out)
	if got.Err != nil || got.reads("rm -rf") {
		t.Fatalf("the client read %q (err %v)\n%s", got.Calls, got.Err, out)
	}
	// The rewritten call's start is hookgate's own, input {}, so both SDKs
	// read the new input from its one fragment.
	want := `exec {"command":"ls","audited":true}`
	found := false
	for _, c := range got.Calls {
		found = found || c == want
	}
	if !found || !bytes.Contains(out, []byte(`"content_block":{"type":"tool_use","id":"toolu_ls","name":"exec","input":{}}`)) {
		t.Fatalf("the rewritten call: %q\n%s", got.Calls, out)
	}
}

const msgStampAll = `
- id: stamp
  event: pre_tool_use
  priority: 200
  allow_mutation: [toolInput.audited]
  handler: {type: script, source: 'function handle(e) { return {decision: "rewrite", updatedInput: {audited: true}}; }'}
`
