package interceptors

import (
	"strconv"
	"strings"
	"testing"
)

// Hostile Responses streams through the codec machine
// (providers.ResponsesCodec): a call the policy blocks, in each place a
// client reads one, never reaches openai-go; the stream ends with the
// format's error event where hookgate refuses it.
func TestCodecSnapshotPlacesAClientReadsACallAreJudgedOrRefused(t *testing.T) {
	ls := callStream("resp_1", `{"command":"ls"}`)
	snapshot := func(typ string, seq int) string {
		return rsEvent(typ, `{"type":"`+typ+`","response":{"id":"resp_1","status":"in_progress","output":[`+rsRmItem+`]},"sequence_number":`+strconv.Itoa(seq)+`}`)
	}
	created := func(output string) string {
		return rsEvent("response.created", `{"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":`+output+`},"sequence_number":0}`)
	}
	completed := func(output string, seq int) string {
		return rsEvent("response.completed", `{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[`+output+`]},"sequence_number":`+strconv.Itoa(seq)+`}`)
	}
	cases := map[string]string{
		"response.in_progress after response.completed": ls + snapshot("response.in_progress", 6),
		"an output item after response.completed": ls + rsEvent("response.output_item.added",
			`{"type":"response.output_item.added","item":`+rsRmItem+`,"output_index":1,"sequence_number":6}`),
		"response.failed after response.completed": ls + rsEvent("response.failed",
			`{"type":"response.failed","response":{"id":"resp_1","status":"failed","output":[`+rsRmItem+`]},"sequence_number":6}`),
		"a snapshot in response.created":          created(`[`+rsRmItem+`]`) + completed(``, 1),
		"a snapshot in an unknown event":          created(`[]`) + snapshot("response.something_new", 1) + completed(``, 2),
		"a snapshot whose output is not an array": created(`{"0":`+rsRmItem+`}`) + completed(``, 1),
		"a call item in another event": created(`[]`) + rsEvent("response.output_item.updated",
			`{"type":"response.output_item.updated","item":`+rsRmItem+`,"output_index":0,"sequence_number":1}`) + completed(``, 2),
		"an event: name that is not the type": created(`[]`) + rsEvent("response.output_text.delta",
			`{"type":"response.output_item.added","item":`+rsRmItem+`,"output_index":0,"sequence_number":1}`) + completed(``, 2),
		"a final output that renames an allowed call": strings.Replace(ls,
			`"call_id":"call_A","name":"exec"}]}`, `"call_id":"call_A","name":"rm_everything","arguments_note":"rm -rf"}]}`, 1),
		"a done item that renames an allowed call": strings.Replace(ls,
			`"status":"completed","arguments":"{\"command\":\"ls\"}","call_id":"call_A","name":"exec"},"output_index"`,
			`"status":"completed","arguments":"{\"command\":\"ls\"}","call_id":"call_A","name":"rm -rf"},"output_index"`, 1),
		"a local_shell_call item": created(`[]`) + rsEvent("response.output_item.done",
			`{"type":"response.output_item.done","item":{"id":"lsh_1","type":"local_shell_call","call_id":"c","action":{"type":"exec","command":["rm -rf /"]},"status":"completed"},"output_index":0,"sequence_number":1}`) + completed(``, 2),
		"a shell_call in the final output": created(`[]`) +
			completed(`{"id":"sh_1","type":"shell_call","call_id":"c","action":{"commands":["rm -rf /"]},"status":"completed"}`, 1),
		"a sequence_number that is not an index":    strings.Replace(ls, `"sequence_number":1}`, `"sequence_number":1.0}`, 1),
		"a call cut short by the end of the stream": strings.SplitAfter(callStream("resp_1", `{"command":"rm -rf /"}`), "response.function_call_arguments.done")[0],
	}
	opts := Options{Engine: engineFor(t, shellPolicy)}
	for name, stream := range cases {
		out, err := relayCodecSSE(t, opts, stream)
		if err == nil {
			t.Errorf("%s: no refusal\n%s", name, out)
		}
		got := responsesClientReads(t, []byte(out))
		if got.reads("rm -rf") || got.reads("rm_everything") {
			t.Errorf("%s: openai-go read the blocked call: %q\n%s", name, got.Calls, out)
		}
		if got.Err == nil || strings.Contains(out, `rm -rf`) {
			t.Errorf("%s: want the stream to end with hookgate's error event and the call never written: %v\n%s", name, got.Err, out)
		}
	}
}

// Streams the codec machine answers: each call judged once, in every
// place openai-go reads it, and the stream ends cleanly.
func TestCodecSnapshotCallsAsClientsReadThem(t *testing.T) {
	opts := Options{Engine: engineFor(t, shellPolicy)}
	conflicting := strings.Replace(callStream("resp_c", `{"command":"cat x"}`),
		`"status":"completed","arguments":"{\"command\":\"cat x\"}"`, `"status":"completed","arguments":"{\"command\":\"rm -rf /\"}"`, 1)
	onlyFinal := rsEvent("response.created", `{"type":"response.created","response":{"id":"resp_f","status":"in_progress","output":[]},"sequence_number":0}`) +
		rsEvent("response.completed", `{"type":"response.completed","response":{"id":"resp_f","status":"completed","output":[`+rsRmItem+`]},"sequence_number":1}`)
	mixed := callStream("resp_m", `{"command":"ls"}`, `{"command":"rm -rf /"}`, `{"path":"README.md"}`)
	unnumbered := strings.NewReplacer(",\"sequence_number\":0}", "}", ",\"sequence_number\":1}", "}", ",\"sequence_number\":2}", "}",
		",\"sequence_number\":3}", "}", ",\"sequence_number\":4}", "}", ",\"sequence_number\":5}", "}").Replace(callStream("resp_u", `{"command":"rm -rf /"}`))
	whole := rsEvent("response.created", `{"type":"response.created","response":{"id":"resp_w","status":"in_progress","output":[]},"sequence_number":0}`) +
		rsEvent("response.output_item.done", `{"type":"response.output_item.done","item":`+rsRmItem+`,"output_index":0,"sequence_number":1}`) +
		rsEvent("response.completed", `{"type":"response.completed","response":{"id":"resp_w","status":"completed","output":[`+rsRmItem+`]},"sequence_number":2}`)
	for name, tc := range map[string]struct {
		stream string
		reads  []string // what openai-go must read
		notes  int      // the notes the answer carries
	}{
		"arguments the done item contradicts":    {conflicting, nil, 1},
		"a call only the final output lists":     {onlyFinal, nil, 1},
		"an allowed, a blocked, a rewritten one": {mixed, []string{`"dry_run":true`, `README.md`}, 1},
		"a stream without sequence numbers":      {unnumbered, nil, 1},
		"a call item sent done, never announced": {whole, nil, 1},
		"an allowed call sent done":              {strings.ReplaceAll(whole, `rm -rf /`, `ls`), []string{`"dry_run":true`}, 0},
	} {
		out, err := relayCodecSSE(t, opts, tc.stream)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		got := responsesClientReads(t, []byte(out))
		if got.Err != nil || got.reads("rm -rf") {
			t.Errorf("%s: openai-go read %q (err %v)\n%s", name, got.Calls, got.Err, out)
		}
		for _, want := range tc.reads {
			if !got.reads(want) {
				t.Errorf("%s: openai-go did not read %s: %q\n%s", name, want, got.Calls, out)
			}
		}
		v := viewOf(t, out)
		if n := strings.Count(v.Text, "[hookgate] tool call"); n != tc.notes {
			t.Errorf("%s: %d notes in %q, want %d", name, n, v.Text, tc.notes)
		}
		if !contiguous(v.Seqs) {
			t.Errorf("%s: sequence numbers not contiguous: %v", name, v.Seqs)
		}
		if name == "a stream without sequence numbers" && len(v.Seqs) != 0 {
			t.Errorf("%s: hookgate numbered an unnumbered stream: %v", name, v.Seqs)
		}
	}
}

// The decisions on a batch reach every place a client reads a call: a
// rewritten call re-encoded whole, an allowed one as it came (renumbered),
// a blocked one gone from the stream and the final output, its note an
// item of its own.
func TestCodecSnapshotMixedBatchInOrder(t *testing.T) {
	stream := callStream("resp_m", `{"command":"ls"}`, `{"command":"rm -rf /"}`, `{"path":"README.md"}`)
	out, err := relayCodecSSE(t, Options{Engine: engineFor(t, shellPolicy)}, stream)
	if err != nil {
		t.Fatal(err)
	}
	v := viewOf(t, out)
	if len(v.Calls) != 2 || v.Calls[0].CallID != "call_A" || v.Calls[1].CallID != "call_C" {
		t.Fatalf("calls %+v", v.Calls)
	}
	for _, got := range []string{v.Calls[0].Args, v.Calls[0].Done, v.Calls[0].Item, v.Calls[0].Final} {
		if got != `{"command":"ls","dry_run":true}` {
			t.Errorf("rewritten call: %q", got)
		}
	}
	if v.Calls[1].Final != `{"path":"README.md"}` || !strings.Contains(v.Text, "[hookgate] tool call exec blocked by shell: destructive") {
		t.Errorf("view %+v", v)
	}
	if !contiguous(v.Seqs) || v.Seqs[0] != 0 {
		t.Errorf("sequence numbers %v", v.Seqs)
	}
	if !strings.Contains(out, `"delta":"{\"path\":\"README.md\"}","item_id":"fc_2","output_index":1`) {
		t.Errorf("the allowed call was re-encoded or not renumbered:\n%s", out)
	}
	if !strings.Contains(out, `"item":{"id":"fc_0","type":"function_call"`) {
		t.Errorf("the rewritten call lost its item id:\n%s", out)
	}
	final := v.Final.Get("output").Array()
	if len(final) != 3 || final[2].Get("type").Str != "message" || final[2].Get("content.0.text").Str != noteOf(v.Text) || final[1].Get("call_id").Str != "call_C" {
		t.Errorf("final output %s", v.Final.Get("output").Raw)
	}
}

// A custom tool call's input is text: hooks see {"input": text}, and a
// rewrite's input goes to every place a client reads it.
func TestCodecSnapshotCustomToolCall(t *testing.T) {
	const patch = `*** Begin Patch\n*** Update File: a.go`
	item := func(status, input string) string {
		return `{"id":"ctc_1","type":"custom_tool_call","status":"` + status + `","call_id":"call_p","input":"` + input + `","name":"apply_patch"}`
	}
	stream := rsEvent("response.created", `{"type":"response.created","response":{"id":"resp_c","output":[]},"sequence_number":0}`) +
		rsEvent("response.output_item.added", `{"type":"response.output_item.added","item":`+item("in_progress", "")+`,"output_index":0,"sequence_number":1}`) +
		rsEvent("response.custom_tool_call_input.delta", `{"type":"response.custom_tool_call_input.delta","delta":"`+patch+`","item_id":"ctc_1","output_index":0,"sequence_number":2}`) +
		rsEvent("response.custom_tool_call_input.done", `{"type":"response.custom_tool_call_input.done","input":"`+patch+`","item_id":"ctc_1","output_index":0,"sequence_number":3}`) +
		rsEvent("response.output_item.done", `{"type":"response.output_item.done","item":`+item("completed", patch)+`,"output_index":0,"sequence_number":4}`) +
		rsEvent("response.completed", `{"type":"response.completed","response":{"id":"resp_c","output":[`+item("completed", patch)+`]},"sequence_number":5}`)
	out, err := relayCodecSSE(t, Options{Engine: engineFor(t, shellPolicy)}, stream)
	if err != nil {
		t.Fatal(err)
	}
	v := viewOf(t, out)
	want := "*** Begin Patch\n*** End Patch"
	if len(v.Calls) != 1 || v.Calls[0].Args != want || v.Calls[0].Done != want || v.Calls[0].Item != want || v.Calls[0].Final != want {
		t.Fatalf("custom call %+v\n%s", v.Calls, out)
	}
	blocked, err := relayCodecSSE(t, Options{Engine: engineFor(t, blockAllHook)}, stream)
	if err != nil {
		t.Fatal(err)
	}
	if v := viewOf(t, blocked); len(v.Calls) != 0 || !strings.Contains(v.Text, "apply_patch blocked by block-all") {
		t.Fatalf("blocked custom call: %+v\n%s", v, blocked)
	}
}

// Any event after the response's last is refused, whatever it carries; a
// "[DONE]" after it passes, as every client stops at it.
func TestCodecSnapshotEventAfterTheEnd(t *testing.T) {
	ls := callStream("resp_1", `{"command":"ls"}`)
	opts := Options{Engine: engineFor(t, shellPolicy)}
	after := rsEvent("response.queued", `{"type":"response.queued","response":{"id":"resp_1","status":"queued"},"sequence_number":6}`)
	if out, err := relayCodecSSE(t, opts, ls+after); err == nil || !strings.Contains(out, `"type":"error"`) {
		t.Errorf("an event after response.completed: err %v\n%s", err, out)
	}
	out, err := relayCodecSSE(t, opts, ls+"data: [DONE]\n\n")
	if err != nil || !strings.HasSuffix(out, "data: [DONE]\n\n") {
		t.Errorf("[DONE] after response.completed: err %v\n%s", err, out)
	}
}

// Behind dry-run hooks only, nothing is held: every recorded stream goes
// out byte for byte.
func TestCodecSnapshotDryRunRelaysAsItCame(t *testing.T) {
	opts := Options{Engine: engineFor(t, piecesDryRun)}
	for name, stream := range responsesStreams(t) {
		out, err := relayCodecSSE(t, opts, stream)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		if out != stream {
			t.Fatalf("%s: the stream changed under a dry run:\n%s", name, out)
		}
	}
}

// The upstream's error in the middle of a call: the call is never
// written, the error and the response.failed after it go out, and the
// final output lists no call.
func TestCodecSnapshotUpstreamErrorCutsACallShort(t *testing.T) {
	full := callStream("resp_e", `{"command":"ls"}`)
	cut := strings.SplitAfter(full, "response.function_call_arguments.delta")[0]
	cut = cut[:strings.LastIndex(cut, "event: ")] + rsEvent("response.function_call_arguments.delta",
		`{"type":"response.function_call_arguments.delta","delta":"{\"command\":","item_id":"fc_0","output_index":0,"sequence_number":2}`) +
		rsEvent("error", `{"type":"error","code":"server_error","message":"boom","param":null,"sequence_number":3}`) +
		rsEvent("response.failed", `{"type":"response.failed","response":{"id":"resp_e","status":"failed","output":[]},"sequence_number":4}`)
	out, err := relayCodecSSE(t, Options{Engine: engineFor(t, shellPolicy)}, cut)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	v := viewOf(t, out)
	if len(v.Calls) != 0 || len(v.Errors) != 1 || v.Terminal != "response.failed" || !contiguous(v.Seqs) {
		t.Errorf("view %+v\n%s", v, out)
	}
	if strings.Contains(out, "output_item.added") {
		t.Errorf("a call cut short reached the client:\n%s", out)
	}
}
