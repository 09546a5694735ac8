package interceptors

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/providers"
)

// rsEvent frames one Responses event as OpenAI does: "event:" named after
// the payload's type.
func rsEvent(typ, payload string) string {
	return "event: " + typ + "\ndata: " + payload + "\n\n"
}

const rsRmItem = `{"id":"fc_rm","type":"function_call","status":"completed","arguments":"{\"command\":\"rm -rf /\"}","call_id":"call_rm","name":"exec"}`

// A call hookgate's hook would block, in each place a Responses client
// reads one that hookgate does not hold: hookgate refuses the event, ends
// the stream with an error event, and openai-go reads no such call.
func TestResponsesPlacesAClientReadsACallAreJudgedOrRefused(t *testing.T) {
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
	// An allowed call's events, whose sequence_number, output_index or
	// content_index is written in the given form.
	numbered := func(member, value string) string {
		s := strings.Replace(ls, `"sequence_number":1}`, `"sequence_number":1,"content_index":0}`, 1)
		return strings.Replace(s, `"`+member+`":`+map[string]string{"sequence_number": "1", "output_index": "0", "content_index": "0"}[member], `"`+member+`":`+value, 1)
	}
	cases := map[string]string{
		"response.in_progress after response.completed": ls + snapshot("response.in_progress", 6),
		"response.queued after response.completed":      ls + snapshot("response.queued", 6),
		"an output item after response.completed": ls + rsEvent("response.output_item.added",
			`{"type":"response.output_item.added","item":`+rsRmItem+`,"output_index":1,"sequence_number":6}`),
		"response.failed after response.completed": ls + rsEvent("response.failed",
			`{"type":"response.failed","response":{"id":"resp_1","status":"failed","output":[`+rsRmItem+`]},"sequence_number":6}`),
		"a snapshot in response.created":          created(`[`+rsRmItem+`]`) + completed(``, 1),
		"a snapshot in response.in_progress":      created(`[]`) + snapshot("response.in_progress", 1) + completed(``, 2),
		"a snapshot in an unknown event":          created(`[]`) + snapshot("response.something_new", 1) + completed(``, 2),
		"a snapshot whose output is not an array": created(`{"0":`+rsRmItem+`}`) + completed(``, 1),
		"a call item in another event": created(`[]`) + rsEvent("response.output_item.updated",
			`{"type":"response.output_item.updated","item":`+rsRmItem+`,"output_index":0,"sequence_number":1}`) + completed(``, 2),
		"an event: name that is not the type": created(`[]`) + rsEvent("response.output_text.delta",
			`{"type":"response.output_item.added","item":`+rsRmItem+`,"output_index":0,"sequence_number":1}`) + completed(``, 2),
		"an event: name naming a call the type does not": created(`[]`) + rsEvent("response.output_item.done",
			`{"type":"response.output_text.done","item":`+rsRmItem+`,"output_index":0,"sequence_number":1}`) + completed(``, 2),
		"a final output that renames an allowed call": strings.Replace(ls,
			`"call_id":"call_A","name":"exec"}]}`, `"call_id":"call_A","name":"rm_everything","arguments_note":"rm -rf"}]}`, 1),
		"a done item that renames an allowed call": strings.Replace(ls,
			`"status":"completed","arguments":"{\"command\":\"ls\"}","call_id":"call_A","name":"exec"},"output_index"`,
			`"status":"completed","arguments":"{\"command\":\"ls\"}","call_id":"call_A","name":"rm -rf"},"output_index"`, 1),
		"a local_shell_call item": created(`[]`) + rsEvent("response.output_item.done",
			`{"type":"response.output_item.done","item":{"id":"lsh_1","type":"local_shell_call","call_id":"c","action":{"type":"exec","command":["rm -rf /"]},"status":"completed"},"output_index":0,"sequence_number":1}`) + completed(``, 2),
		"a shell_call in the final output": created(`[]`) +
			completed(`{"id":"sh_1","type":"shell_call","call_id":"c","action":{"commands":["rm -rf /"]},"status":"completed"}`, 1),
	}
	for _, form := range []string{`1.0`, `1e0`, `01`, `-1`, `9007199254740993`, `"1"`, `null`} {
		cases["sequence_number "+form] = numbered("sequence_number", form)
		cases["content_index "+form] = numbered("content_index", form)
	}
	for _, form := range []string{`0.0`, `0e0`, `00`, `-0`, `9007199254740992000`, `"0"`, `null`} {
		cases["output_index "+form] = numbered("output_index", form)
	}
	r := NewResponses(Options{Engine: engineFor(t, shellPolicy)})
	for name, stream := range cases {
		out, err := relayResponses(t, r, streamRequest, stream)
		if !errors.Is(err, ErrRefusedEvent) && !errors.Is(err, providers.ErrInvalidJSON) {
			t.Errorf("%s: err %v, want a refusal\n%s", name, err, out)
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

// What hookgate writes for recorded and built streams under a blocking
// hook, read by openai-go: a clean stream in which no blocked call shows,
// the final response's output included.
func TestResponsesClientsReadNoBlockedCall(t *testing.T) {
	r := NewResponses(Options{Engine: engineFor(t, blockAllHook)})
	for name, stream := range responsesStreams(t) {
		out, err := relayResponses(t, r, streamRequest, stream)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := responsesClientReads(t, []byte(out))
		if len(got.Calls) != 0 {
			t.Errorf("%s: the client read %q", name, got.Calls)
		}
		if got.Err != nil && !strings.Contains(name, "error-event") {
			t.Errorf("%s: %v", name, got.Err)
		}
	}
	mixed := callStream("resp_m", `{"command":"ls"}`, `{"command":"rm -rf /"}`, `{"path":"README.md"}`)
	out, err := relayResponses(t, NewResponses(Options{Engine: engineFor(t, shellPolicy)}), streamRequest, mixed)
	if err != nil {
		t.Fatal(err)
	}
	if got := responsesClientReads(t, []byte(out)); got.Err != nil || got.reads("rm -rf") || !got.reads(`"dry_run":true`) {
		t.Fatalf("the client read %q (err %v)\n%s", got.Calls, got.Err, out)
	}
}

// A non-streamed response with an item the agent runs that hookgate does
// not judge is refused with a 502.
func TestResponsesPlainUnjudgedItemIsRefused(t *testing.T) {
	body := `{"id":"resp_p","object":"response","status":"completed","output":[{"id":"lsh_1","type":"local_shell_call","call_id":"c","action":{"type":"exec","command":["rm","-rf","/"]},"status":"completed"}]}`
	r := NewResponses(Options{Engine: engineFor(t, shellPolicy)})
	ex, err := r.Begin(context.Background(), &Request{Route: "/v1/responses", Provider: "openai", Body: []byte(`{"model":"m","input":"go"}`)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := ex.FinishPlain(context.Background(), []byte(body))
	var re *RequestError
	if !errors.As(err, &re) || re.Status != 502 || re.Code != "unsupported_tool_call" || out != nil {
		t.Fatalf("err %v, body %s", err, out)
	}
}
