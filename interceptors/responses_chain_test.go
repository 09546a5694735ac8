package interceptors

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"
)

// A Responses stream: created, then one function call per args, then
// completed listing them.
func callStream(respID string, args ...string) string {
	var b strings.Builder
	seq := 0
	ev := func(typ, payload string) {
		b.WriteString("event: " + typ + "\ndata: {\"type\":\"" + typ + "\"," + payload + ",\"sequence_number\":" + strconv.Itoa(seq) + "}\n\n")
		seq++
	}
	ev("response.created", `"response":{"id":"`+respID+`","status":"in_progress","output":[]}`)
	var items []string
	for i, a := range args {
		id, call := "fc_"+strconv.Itoa(i), "call_"+string(rune('A'+i))
		q, _ := json.Marshal(a)
		item := `{"id":"` + id + `","type":"function_call","status":"completed","arguments":` + string(q) + `,"call_id":"` + call + `","name":"exec"}`
		ev("response.output_item.added", `"item":{"id":"`+id+`","type":"function_call","status":"in_progress","arguments":"","call_id":"`+call+`","name":"exec"},"output_index":`+strconv.Itoa(i))
		ev("response.function_call_arguments.delta", `"delta":`+string(q)+`,"item_id":"`+id+`","output_index":`+strconv.Itoa(i))
		ev("response.function_call_arguments.done", `"arguments":`+string(q)+`,"item_id":"`+id+`","output_index":`+strconv.Itoa(i))
		ev("response.output_item.done", `"item":`+item+`,"output_index":`+strconv.Itoa(i))
		items = append(items, item)
	}
	ev("response.completed", `"response":{"id":"`+respID+`","status":"completed","output":[`+strings.Join(items, ",")+`]}`)
	return b.String()
}

const chainPolicy = `
- id: rules
  event: session_start
  handler: {type: script, source: 'function handle(e) { return {decision: "allow", additionalContext: "Rules for " + e.sessionId}; }'}
- id: no-rm
  event: pre_tool_use
  handler: {type: script, source: 'function handle(e) { if (String(e.toolInput.command).indexOf("rm") === 0) { return {decision: "block", reason: "no rm"}; } return {decision: "allow"}; }'}
- id: tag
  event: post_tool_use
  allow_mutation: [toolResult]
  handler: {type: script, source: 'function handle(e) { return {decision: "rewrite", updatedResult: e.toolName + " " + JSON.stringify(e.toolInput) + ": " + e.toolResult}; }'}
`

func begin(t *testing.T, r *Responses, tenant, body string) *responsesExchange {
	t.Helper()
	ex, err := r.Begin(context.Background(), &Request{Route: "/v1/responses", Provider: "openai", Tenant: tenant, Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	return ex.(*responsesExchange)
}

func TestResponsesChainCarriesSessionAndBlockedCalls(t *testing.T) {
	r := NewResponses(Options{Engine: engineFor(t, chainPolicy)})
	first := begin(t, r, "", `{"model":"m","stream":true,"instructions":"Be brief.","input":"clean up"}`)
	session := first.id.session
	if got := gjson.GetBytes(first.Body(), "instructions").Str; got != "Rules for "+session+"\n\nBe brief." {
		t.Fatalf("instructions %q", got)
	}
	var out bufferSink
	if err := first.RelayStream(context.Background(), strings.NewReader(callStream("resp_1", `{"command":"ls"}`, `{"command":"rm -rf /"}`)), &out); err != nil {
		t.Fatal(err)
	}
	v := viewOf(t, out.String())
	if len(v.Calls) != 1 || v.Calls[0].CallID != "call_A" || !strings.Contains(v.Text, "blocked by no-rm: no rm") || !contiguous(v.Seqs) {
		t.Fatalf("first response: %+v\n%s", v, out.String())
	}

	// The agent answers the call it saw, continuing the chain.
	next := begin(t, r, "", `{"model":"m","stream":true,"previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"call_A","output":"a.txt"}]}`)
	if next.id.session != session {
		t.Fatalf("the chain left its session: %s, want %s", next.id.session, session)
	}
	body := next.Body()
	in := gjson.GetBytes(body, "input").Array()
	if len(in) != 2 || in[0].Get("call_id").Str != "call_B" || in[0].Get("type").Str != "function_call_output" || in[0].Get("output").Str != "blocked by no-rm: no rm" {
		t.Fatalf("no synthetic output for the blocked call: %s", body)
	}
	if got := in[1].Get("output").Str; got != `exec {"command":"ls"}: a.txt` {
		t.Fatalf("post_tool_use did not see the call from the chain: %q", got)
	}
	if got := gjson.GetBytes(body, "instructions").Str; got != "Rules for "+session {
		t.Fatalf("the session context is not on the chained request: %q", got)
	}

	// An agent that answers the blocked call itself gets no second output.
	own := begin(t, r, "", `{"model":"m","previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"call_B","output":"skipped"},{"type":"function_call_output","call_id":"call_A","output":"a.txt"}]}`)
	if n := len(gjson.GetBytes(own.Body(), "input").Array()); n != 2 {
		t.Fatalf("%d input items: %s", n, own.Body())
	}
	// Another tenant cannot join the chain by naming the response.
	other := begin(t, r, "t2", `{"model":"m","previous_response_id":"resp_1","input":"hi"}`)
	if other.id.session == session || gjson.GetBytes(other.Body(), "input").Type != gjson.String {
		t.Fatalf("another tenant followed the chain: %s %s", other.id.session, other.Body())
	}
}

func TestResponsesChainThroughAPlainResponse(t *testing.T) {
	r := NewResponses(Options{Engine: engineFor(t, chainPolicy)})
	first := begin(t, r, "", `{"model":"m","input":"clean up"}`)
	plain := `{"id":"resp_p","object":"response","status":"completed","output":[` +
		`{"id":"fc_0","type":"function_call","arguments":"{\"command\":\"rm x\"}","call_id":"call_rm","name":"exec"},` +
		`{"id":"fc_1","type":"function_call","arguments":"{\"command\":\"ls\"}","call_id":"call_ls","name":"exec"}]}`
	out, err := first.FinishPlain(context.Background(), []byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	items := gjson.GetBytes(out, "output").Array()
	// The blocked call is gone; the answer has no text, so its note comes
	// in a message item of its own, at the end.
	if len(items) != 2 || items[0].Get("call_id").Str != "call_ls" || items[1].Get("type").Str != "message" || !strings.Contains(items[1].Get("content.0.text").Str, "blocked by no-rm: no rm") {
		t.Fatalf("plain: %s", out)
	}
	next := begin(t, r, "", `{"model":"m","previous_response_id":"resp_p","input":"and then?"}`)
	in := gjson.GetBytes(next.Body(), "input").Array()
	if len(in) != 2 || in[0].Get("call_id").Str != "call_rm" || in[1].Get("content").Str != "and then?" || next.id.session != first.id.session {
		t.Fatalf("chained: %s", next.Body())
	}
}

// recorder is a hook server on loopback that keeps the events it gets.
type recorder struct {
	mu     sync.Mutex
	events []map[string]any
}

func (rec *recorder) url(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev map[string]any
		_ = json.NewDecoder(r.Body).Decode(&ev)
		rec.mu.Lock()
		rec.events = append(rec.events, ev)
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"decision":"allow"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (rec *recorder) prompts() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []string
	for _, ev := range rec.events {
		if ev["event"] == "user_prompt_submit" {
			out = append(out, ev["prompt"].(string))
		}
	}
	return out
}

// In a chain every request carries only its new prompt: a prompt sent
// again later ("continue") is a new prompt and is judged again, and a
// request with only tool outputs fires no user_prompt_submit.
func TestResponsesChainJudgesEveryNewPrompt(t *testing.T) {
	var rec recorder
	r := NewResponses(Options{Engine: engineFor(t, "- id: prompts\n  event: user_prompt_submit\n  handler: {type: http, url: '"+rec.url(t)+"'}\n")})
	var out bufferSink
	x := begin(t, r, "", `{"model":"m","stream":true,"input":"continue"}`)
	if err := x.RelayStream(context.Background(), strings.NewReader(callStream("resp_a", `{"command":"ls"}`)), &out); err != nil {
		t.Fatal(err)
	}
	y := begin(t, r, "", `{"model":"m","previous_response_id":"resp_a","input":[{"type":"function_call_output","call_id":"call_A","output":"ok"}]}`)
	if _, err := y.FinishPlain(context.Background(), []byte(`{"id":"resp_b","output":[]}`)); err != nil {
		t.Fatal(err)
	}
	begin(t, r, "", `{"model":"m","previous_response_id":"resp_b","input":"continue"}`)
	if got := rec.prompts(); len(got) != 2 || got[0] != "continue" || got[1] != "continue" {
		t.Fatalf("user_prompt_submit fired for %q; want the two prompts", got)
	}
}

// Hooks get the same event on this route as on chat completions: the
// provider, the route in metadata, the tool's name, call id and input.
func TestResponsesHookEventShape(t *testing.T) {
	var rec recorder
	r := NewResponses(Options{Engine: engineFor(t, "- id: seen\n  event: pre_tool_use\n  handler: {type: http, url: '"+rec.url(t)+"'}\n")})
	if _, err := relayResponses(t, r, streamRequest, callStream("resp_e", `{"command":"ls"}`)); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.events) != 1 {
		t.Fatalf("%d events", len(rec.events))
	}
	ev := rec.events[0]
	md, _ := ev["metadata"].(map[string]any)
	input, _ := ev["toolInput"].(map[string]any)
	if ev["event"] != "pre_tool_use" || ev["provider"] != "openai" || md["route"] != "/v1/responses" || ev["toolName"] != "exec" ||
		ev["toolCallId"] != "call_A" || input["command"] != "ls" || ev["model"] != "m" {
		t.Fatalf("event %v", ev)
	}
}

// A conversation object keeps state like a chain: the request after a
// response with a blocked call answers it for the agent, once.
func TestResponsesConversationCarriesBlockedCalls(t *testing.T) {
	r := NewResponses(Options{Engine: engineFor(t, chainPolicy)})
	first := begin(t, r, "", `{"model":"m","conversation":"conv_1","input":"clean up"}`)
	plain := `{"id":"resp_c1","status":"completed","output":[{"id":"fc_0","type":"function_call","arguments":"{\"command\":\"rm x\"}","call_id":"call_rm","name":"exec"}]}`
	if _, err := first.FinishPlain(context.Background(), []byte(plain)); err != nil {
		t.Fatal(err)
	}
	second := begin(t, r, "", `{"model":"m","conversation":{"id":"conv_1"},"input":"and then?"}`)
	in := gjson.GetBytes(second.Body(), "input").Array()
	if len(in) != 2 || in[0].Get("call_id").Str != "call_rm" || second.id.session != first.id.session {
		t.Fatalf("second: %s", second.Body())
	}
	if got := gjson.GetBytes(second.Body(), "instructions").Str; got != "Rules for "+first.id.session {
		t.Fatalf("instructions %q", got)
	}
	if _, err := second.FinishPlain(context.Background(), []byte(`{"id":"resp_c2","status":"completed","output":[]}`)); err != nil {
		t.Fatal(err)
	}
	third := begin(t, r, "", `{"model":"m","conversation":"conv_1","input":"thanks"}`)
	if in := gjson.GetBytes(third.Body(), "input"); in.Type != gjson.String || third.id.session != first.id.session {
		t.Fatalf("third: %s", third.Body())
	}
}
