package interceptors

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/providers"
)

const shellPolicy = `
- id: shell
  event: pre_tool_use
  allow_mutation: [toolInput.dry_run, toolInput.input]
  handler:
    type: script
    source: |
      function handle(e) {
        var c = String(e.toolInput.command || e.toolInput.input);
        if (c.indexOf("rm") === 0) { return {decision: "block", reason: "destructive"}; }
        if (c.indexOf("ls") === 0) { return {decision: "rewrite", updatedInput: {dry_run: true}}; }
        if (c.indexOf("*** Begin") === 0) { return {decision: "rewrite", updatedInput: {input: "*** Begin Patch\n*** End Patch"}}; }
        return {decision: "allow"};
      }
`

// A mixed batch: one call rewritten, one blocked, one allowed, then text.
func TestResponsesMixedBatchInOrder(t *testing.T) {
	r := NewResponses(Options{Engine: engineFor(t, shellPolicy)})
	stream := callStream("resp_m", `{"command":"ls"}`, `{"command":"rm -rf /"}`, `{"path":"README.md"}`)
	out, err := relayResponses(t, r, streamRequest, stream)
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
	// The allowed call went out as the bytes that came, but renumbered.
	if !strings.Contains(out, `"delta":"{\"path\":\"README.md\"}","item_id":"fc_2"`) {
		t.Errorf("the allowed call was re-encoded:\n%s", out)
	}
	// The blocked call leaves no item; the answer has no text, so its note
	// comes in a message item of its own, at the end.
	final := v.Final.Get("output").Array()
	if len(final) != 3 || final[2].Get("type").Str != "message" || final[2].Get("content.0.text").Str != noteOf(v.Text) || final[1].Get("call_id").Str != "call_C" {
		t.Errorf("final output %s", v.Final.Get("output").Raw)
	}
}

func noteOf(text string) string {
	i := strings.Index(text, "[hookgate]")
	return text[i:]
}

func TestResponsesCustomToolCall(t *testing.T) {
	stream := `event: response.created
data: {"type":"response.created","response":{"id":"resp_c","output":[]},"sequence_number":0}

event: response.output_item.added
data: {"type":"response.output_item.added","item":{"id":"ctc_1","type":"custom_tool_call","status":"in_progress","call_id":"call_p","input":"","name":"apply_patch"},"output_index":0,"sequence_number":1}

event: response.custom_tool_call_input.delta
data: {"type":"response.custom_tool_call_input.delta","delta":"*** Begin Patch\n*** Update File: a.go","item_id":"ctc_1","output_index":0,"sequence_number":2}

event: response.custom_tool_call_input.done
data: {"type":"response.custom_tool_call_input.done","input":"*** Begin Patch\n*** Update File: a.go","item_id":"ctc_1","output_index":0,"sequence_number":3}

event: response.output_item.done
data: {"type":"response.output_item.done","item":{"id":"ctc_1","type":"custom_tool_call","status":"completed","call_id":"call_p","input":"*** Begin Patch\n*** Update File: a.go","name":"apply_patch"},"output_index":0,"sequence_number":4}

event: response.completed
data: {"type":"response.completed","response":{"id":"resp_c","output":[{"id":"ctc_1","type":"custom_tool_call","status":"completed","call_id":"call_p","input":"*** Begin Patch\n*** Update File: a.go","name":"apply_patch"}]},"sequence_number":5}

`
	r := NewResponses(Options{Engine: engineFor(t, shellPolicy)})
	out, err := relayResponses(t, r, streamRequest, stream)
	if err != nil {
		t.Fatal(err)
	}
	v := viewOf(t, out)
	want := "*** Begin Patch\n*** End Patch"
	if len(v.Calls) != 1 || v.Calls[0].Args != want || v.Calls[0].Done != want || v.Calls[0].Item != want || v.Calls[0].Final != want {
		t.Fatalf("custom call %+v\n%s", v.Calls, out)
	}
	blocked, err := relayResponses(t, NewResponses(Options{Engine: engineFor(t, blockAllHook)}), streamRequest, stream)
	if err != nil {
		t.Fatal(err)
	}
	if v := viewOf(t, blocked); len(v.Calls) != 0 || !strings.Contains(v.Text, "apply_patch blocked by block-all") {
		t.Fatalf("blocked custom call: %+v", v)
	}
}

func TestResponsesTruncatedStreamNeverEmitsTheHeldCall(t *testing.T) {
	full := callStream("resp_t", `{"command":"ls"}`)
	cut := full[:strings.Index(full, "response.function_call_arguments.done")]
	for _, policy := range []string{"", allowAllHook} {
		var r *Responses
		if policy == "" {
			r = NewResponses(Options{})
		} else {
			r = NewResponses(Options{Engine: engineFor(t, policy)})
		}
		out, err := relayResponses(t, r, streamRequest, cut)
		if !errors.Is(err, ErrTruncated) {
			t.Fatalf("policy %q: err %v", policy, err)
		}
		v := viewOf(t, out)
		if len(v.Errors) != 1 || v.Errors[0] != "stream_truncated" || v.Terminal != "" {
			t.Fatalf("policy %q: want one error event and no completion: %+v\n%s", policy, v, out)
		}
		if policy != "" && strings.Contains(out, "function_call") {
			t.Fatalf("a held partial call was emitted:\n%s", out)
		}
		if !contiguous(v.Seqs) {
			t.Errorf("sequence numbers %v", v.Seqs)
		}
	}
}

// A call that only the final event lists (a provider that streams no item
// events for it) is judged before the final event goes out.
func TestResponsesCallOnlyInTheFinalOutputIsJudged(t *testing.T) {
	stream := `data: {"type":"response.created","response":{"id":"resp_u","output":[]},"sequence_number":0}

data: {"type":"response.completed","response":{"id":"resp_u","output":[{"id":"fc_9","type":"function_call","arguments":"{\"command\":\"rm -rf /\"}","call_id":"call_9","name":"exec"}]},"sequence_number":1}

`
	out, err := relayResponses(t, NewResponses(Options{Engine: engineFor(t, shellPolicy)}), streamRequest, stream)
	if err != nil {
		t.Fatal(err)
	}
	v := viewOf(t, out)
	final := v.Final.Get("output").Array()
	if len(final) != 1 || final[0].Get("type").Str != "message" || !strings.Contains(final[0].Raw, "destructive") || !strings.Contains(v.Text, "destructive") || !contiguous(v.Seqs) {
		t.Fatalf("final output %s", out)
	}
}

// Sources of one call's arguments that disagree (deltas against the done
// item) are refused: the client might run either.
func TestResponsesConflictingArgumentsAreBlocked(t *testing.T) {
	stream := callStream("resp_x", `{"command":"ls"}`)
	stream = strings.Replace(stream, `"item":{"id":"fc_0","type":"function_call","status":"completed","arguments":"{\"command\":\"ls\"}"`,
		`"item":{"id":"fc_0","type":"function_call","status":"completed","arguments":"{\"command\":\"rm -rf /\"}"`, 1)
	out, err := relayResponses(t, NewResponses(Options{Engine: engineFor(t, allowAllHook)}), streamRequest, stream)
	if err != nil {
		t.Fatal(err)
	}
	if v := viewOf(t, out); len(v.Calls) != 0 || !strings.Contains(v.Text, "blocked by hookgate: the upstream sent conflicting arguments") {
		t.Fatalf("%+v", v)
	}
}

// An event hookgate cannot read safely ends the stream in error: a client
// might read a call in it.
func TestResponsesUnreadableEventFailsClosed(t *testing.T) {
	stream := "data: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"},\"sequence_number\":0}\n\n" +
		"data: {\"type\":\"response.output_text.delta\",\"type\":\"response.output_item.added\",\"item\":{\"type\":\"function_call\"}}\n\n"
	out, err := relayResponses(t, NewResponses(Options{Engine: engineFor(t, allowAllHook)}), streamRequest, stream)
	if err == nil || strings.Contains(out, "function_call") {
		t.Fatalf("err %v\n%s", err, out)
	}
	if v := viewOf(t, out); len(v.Errors) != 1 || v.Errors[0] != "unreadable_event" {
		t.Fatalf("%+v", v)
	}
}

func TestResponsesHeartbeatWhileHeld(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"decision":"allow"}`))
	}))
	t.Cleanup(srv.Close)
	r := NewResponses(Options{Engine: engineFor(t, "- id: slow\n  event: pre_tool_use\n  timeout: 10s\n  handler: {type: http, url: '"+srv.URL+"'}\n"), Heartbeat: 10 * time.Millisecond})
	go func() {
		time.Sleep(80 * time.Millisecond)
		close(release)
	}()
	out, err := relayResponses(t, r, streamRequest, callStream("resp_h", `{"command":"ls"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, ": hookgate: holding a tool call for its hooks\n\n") {
		t.Fatalf("no heartbeat while the call was held:\n%s", out)
	}
	if v := viewOf(t, out); len(v.Calls) != 1 || !contiguous(v.Seqs) {
		t.Fatalf("%+v", v)
	}
}

const disclaimerHook = `
- id: disclaimer
  event: pre_response
  mode: append
  handler: {type: script, source: 'function handle(e) { return {decision: "allow", additionalContext: "Not advice."}; }'}
`

func TestResponsesPreResponseJoinsTheLastMessageItem(t *testing.T) {
	r := NewResponses(Options{Engine: engineFor(t, disclaimerHook)})
	stream := responsesStreams(t)["lmstudio/responses-tool-call.chunks.jsonl"]
	// With a call the answer is not final: nothing is appended.
	out, err := relayResponses(t, r, streamRequest, stream)
	if err != nil || out != stream {
		t.Fatalf("a response with a call changed: %v", err)
	}
	text := `data: {"type":"response.created","response":{"id":"resp_d","output":[]},"sequence_number":0}

data: {"type":"response.output_item.added","item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"},"output_index":0,"sequence_number":1}

data: {"type":"response.content_part.added","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""},"sequence_number":2}

data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Buy low.","sequence_number":3}

data: {"type":"response.output_item.done","item":{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":"Buy low."}],"role":"assistant"},"output_index":0,"sequence_number":4}

data: {"type":"response.completed","response":{"id":"resp_d","output":[{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":"Buy low."}],"role":"assistant"}]},"sequence_number":5}

`
	out, err = relayResponses(t, r, streamRequest, text)
	if err != nil {
		t.Fatal(err)
	}
	v := viewOf(t, out)
	if v.Text != "Buy low.\n\nNot advice." || !contiguous(v.Seqs) || len(v.Seqs) != 7 {
		t.Fatalf("%+v\n%s", v, out)
	}
	if got := v.Final.Get("output.0.content.0.text").Str; got != "Buy low.\n\nNot advice." || len(v.Final.Get("output").Array()) != 1 {
		t.Fatalf("final output %s", v.Final.Raw)
	}
	ex := begin(t, r, "", `{"model":"m","input":"tips?"}`)
	plain, err := ex.FinishPlain(context.Background(), []byte(`{"id":"resp_q","status":"completed","output":[{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Buy low."}],"role":"assistant"}]}`))
	if err != nil || gjson.GetBytes(plain, "output.0.content.0.text").Str != "Buy low.\n\nNot advice." || len(gjson.GetBytes(plain, "output").Array()) != 1 {
		t.Fatalf("plain: %v %s", err, plain)
	}
}

func TestResponsesRefusals(t *testing.T) {
	r := NewResponses(Options{Engine: engineFor(t, allowAllHook)})
	for body, code := range map[string]string{
		`{"model":"m","input":"x","tools":[{"type":"local_shell"}]}`: "unsupported_tool_type",
		`{"model":"m","input":"x","background":true}`:                "background_unsupported",
		`{"model":"m","input":3}`:                                    "invalid_json",
	} {
		_, err := r.Begin(context.Background(), &Request{Body: []byte(body)})
		var re *RequestError
		if !errors.As(err, &re) || re.Status != 400 || re.Code != code {
			t.Errorf("%s: %v, want 400 %s", body, err, code)
		}
	}
	if _, err := r.Begin(context.Background(), &Request{Body: []byte(`{"model":"m","input":"x","background":true,"stream":true,"tools":[{"type":"web_search"},{"type":"custom"}]}`)}); err != nil {
		t.Errorf("a streamed background response with hosted and custom tools: %v", err)
	}
}

func TestResponsesBlockedPromptIsAnswered(t *testing.T) {
	r := NewResponses(Options{Engine: engineFor(t, `
- id: no-secrets
  event: user_prompt_submit
  handler: {type: script, source: 'function handle(e) { return {decision: "block", reason: "not about passwords"}; }'}
`)})
	for _, stream := range []bool{true, false} {
		body := `{"model":"m","input":"the password?","stream":` + map[bool]string{true: "true", false: "false"}[stream] + `}`
		rep := begin(t, r, "", body).Reply()
		if rep == nil || rep.Status != 200 {
			t.Fatalf("stream=%v: no reply", stream)
		}
		if stream {
			if v := viewOf(t, string(rep.Body)); v.Text != "not about passwords" || v.Terminal != "response.completed" || !contiguous(v.Seqs) {
				t.Fatalf("streamed reply %+v", v)
			}
		} else if gjson.GetBytes(rep.Body, "output.0.content.0.text").Str != "not about passwords" {
			t.Fatalf("plain reply %s", rep.Body)
		}
	}
}

// watchSink tells when the client has been sent some bytes.
type watchSink struct {
	bufferSink
	want string
	seen chan struct{}
}

func (w *watchSink) Flush() error {
	if w.seen != nil && strings.Contains(w.String(), w.want) {
		close(w.seen)
		w.seen = nil
	}
	return nil
}

// Text before a call is never delayed by the call's judgement.
func TestResponsesTextBeforeAHeldCallIsNotDelayed(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"decision":"allow"}`))
	}))
	t.Cleanup(srv.Close)
	r := NewResponses(Options{Engine: engineFor(t, "- id: slow\n  event: pre_tool_use\n  timeout: 10s\n  handler: {type: http, url: '"+srv.URL+"'}\n")})
	stream := responsesStreams(t)["lmstudio/responses-tool-call.chunks.jsonl"]
	ex := begin(t, r, "", streamRequest)
	sink := &watchSink{want: `"delta":".","logprobs"`, seen: make(chan struct{})}
	seen := sink.seen
	done := make(chan error, 1)
	go func() { done <- ex.RelayStream(context.Background(), strings.NewReader(stream), sink) }()
	select {
	case <-seen:
	case <-time.After(5 * time.Second):
		t.Fatal("the text did not reach the client while the call was held")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if sink.String() != stream {
		t.Fatal("the allowed stream changed")
	}
}

func TestResponsesStreamEnds(t *testing.T) {
	for _, c := range []struct {
		raw  string
		ends bool
	}{
		{"event: response.completed\ndata: {}\n\n", true},
		{"event: response.output_text.delta\ndata: {\"type\":\"response.completed\"}\n\n", false},
		{"data: {\"type\":\"response.failed\"}\n\n", true},
		{"event: message\ndata: {\"type\":\"response.incomplete\"}\n\n", true},
		{"event: error\ndata: {\"type\":\"error\"}\n\n", true},
		{"data: {\"type\":\"response.output_item.done\"}\n\n", false},
	} {
		p := providers.NewSSEParser(0)
		p.Feed([]byte(c.raw))
		f, _ := p.Next()
		if got := responsesStreamEnds(f); got != c.ends {
			t.Errorf("%q: ends %v, want %v", c.raw, got, c.ends)
		}
	}
}
