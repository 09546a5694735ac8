package interceptors

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
	"github.com/hookgate/hookgate/providers"
)

const (
	allowAllHook = `
- id: allow-all
  event: pre_tool_use
  handler: {type: script, source: 'function handle(e) { return {decision: "allow"}; }'}
`
	blockAllHook = `
- id: block-all
  event: pre_tool_use
  handler: {type: script, source: 'function handle(e) { return {decision: "block", reason: "no tools today"}; }'}
`
	stampHook = `
- id: stamp
  event: pre_tool_use
  allow_mutation: [toolInput.audited, toolInput.input]
  handler: {type: script, source: 'function handle(e) { if (e.toolName === "apply_patch") { return {decision: "rewrite", updatedInput: {input: "*** patched"}}; } return {decision: "rewrite", updatedInput: {audited: true}}; }'}
`
)

// relayResponses runs a stream body through a Responses exchange.
func relayResponses(t *testing.T, r *Responses, req, stream string) (string, error) {
	t.Helper()
	ex, err := r.Begin(context.Background(), &Request{Route: "/v1/responses", Provider: "openai", Body: []byte(req)})
	if err != nil {
		t.Fatal(err)
	}
	var out bufferSink
	err = ex.RelayStream(context.Background(), strings.NewReader(stream), &out)
	return out.String(), err
}

const streamRequest = `{"model":"m","stream":true,"input":"go"}`

// respEvent is one event a client received.
type respEvent struct {
	Type string
	Data gjson.Result
	Raw  string
}

// eventsOf parses what a client received, checking it is well-formed SSE
// of JSON events.
func eventsOf(t *testing.T, out string) []respEvent {
	t.Helper()
	p := providers.NewSSEParser(0)
	p.Feed([]byte(out))
	p.End()
	var evs []respEvent
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
		if !gjson.ValidBytes(f.Data) {
			t.Fatalf("the client got an event that is not JSON: %s", f.Data)
		}
		d := gjson.ParseBytes(f.Data)
		if f.Event != nil && string(f.Event) != d.Get("type").Str {
			t.Fatalf("event line %q names another type than %s", f.Event, f.Data)
		}
		evs = append(evs, respEvent{Type: d.Get("type").Str, Data: d, Raw: string(f.Raw)})
	}
	return evs
}

// assembledCall is a call as a client puts it together from the events.
type respCall struct {
	Name, CallID string
	Args         string // from the deltas (or the added item)
	Done         string // from the .done event
	Item         string // from output_item.done
	Final        string // from the terminal event's output
}

// clientView puts a response together the way the SDKs' accumulators do:
// items appended as announced and addressed by output_index.
type clientView struct {
	Calls    []respCall
	Text     string
	Final    gjson.Result
	Terminal string
	Errors   []string
	Seqs     []int64
}

func viewOf(t *testing.T, out string) clientView {
	t.Helper()
	var v clientView
	type item struct {
		typ string
		c   *respCall
	}
	var items []*item
	for _, ev := range eventsOf(t, out) {
		if s := ev.Data.Get("sequence_number"); s.Exists() {
			v.Seqs = append(v.Seqs, s.Int())
		}
		idx := int(ev.Data.Get("output_index").Int())
		at := func() *item {
			if idx >= len(items) {
				t.Fatalf("event %s addresses output_index %d; %d items announced\n%s", ev.Type, idx, len(items), out)
			}
			return items[idx]
		}
		switch ev.Type {
		case "response.output_item.added":
			if idx != len(items) {
				t.Fatalf("item announced at output_index %d, want %d", idx, len(items))
			}
			it := &item{typ: ev.Data.Get("item.type").Str}
			if it.typ == "function_call" || it.typ == "custom_tool_call" {
				member := "arguments"
				if it.typ == "custom_tool_call" {
					member = "input"
				}
				it.c = &respCall{Name: ev.Data.Get("item.name").Str, CallID: ev.Data.Get("item.call_id").Str, Args: ev.Data.Get("item." + member).Str}
			}
			items = append(items, it)
		case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
			at().c.Args += ev.Data.Get("delta").Str
		case "response.function_call_arguments.done":
			at().c.Done = ev.Data.Get("arguments").Str
		case "response.custom_tool_call_input.done":
			at().c.Done = ev.Data.Get("input").Str
		case "response.output_text.delta":
			if at().typ != "message" {
				t.Fatalf("text delta for a %s item", at().typ)
			}
			v.Text += ev.Data.Get("delta").Str
		case "response.output_item.done":
			it := at()
			if typ := ev.Data.Get("item.type").Str; typ != it.typ {
				t.Fatalf("item %d announced as %s, done as %s", idx, it.typ, typ)
			}
			if it.c != nil {
				it.c.Item = ev.Data.Get("item.arguments").Str + ev.Data.Get("item.input").Str
			}
		case "response.completed", "response.incomplete", "response.failed":
			v.Terminal = ev.Type
			v.Final = ev.Data.Get("response")
		case "error":
			v.Errors = append(v.Errors, ev.Data.Get("error.code").Str)
		}
	}
	for _, it := range items {
		if it.c != nil {
			v.Calls = append(v.Calls, *it.c)
		}
	}
	k := 0
	for _, o := range v.Final.Get("output").Array() {
		if typ := o.Get("type").Str; typ == "function_call" || typ == "custom_tool_call" {
			if k < len(v.Calls) {
				v.Calls[k].Final = o.Get("arguments").Str + o.Get("input").Str
			}
			k++
		}
	}
	return v
}

// contiguous reports sequence numbers that count up by one.
func contiguous(seqs []int64) bool {
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			return false
		}
	}
	return true
}

// responsesStreams are the recorded Responses streams, framed: the .sse
// files as they are, the .chunks.jsonl payloads (whose recorder dropped
// the framing) one "data:" event each.
func responsesStreams(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range fixtures.List(t, fixtures.APIResponses, fixtures.KindSSE) {
		out[f.Rel] = string(f.Read(t))
	}
	for _, f := range fixtures.List(t, fixtures.APIResponses, fixtures.KindChunks) {
		var b []byte
		for _, line := range bytes.Split(bytes.TrimRight(f.Read(t), "\n"), []byte("\n")) {
			b = providers.AppendSSEData(b, line)
		}
		out[f.Rel] = string(b)
	}
	if len(out) < 6 {
		t.Fatalf("only %d recorded Responses streams", len(out))
	}
	return out
}

func TestResponsesRecordedStreamsAllowedPassByteForByte(t *testing.T) {
	for name, stream := range responsesStreams(t) {
		for _, policy := range []string{"", allowAllHook} {
			var r *Responses
			if policy == "" {
				r = NewResponses(Options{})
			} else {
				r = NewResponses(Options{Engine: engineFor(t, policy)})
			}
			out, err := relayResponses(t, r, streamRequest, stream)
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, out)
			}
			if out != stream {
				t.Fatalf("%s (policy %q): the stream changed", name, policy)
			}
		}
	}
}

func TestResponsesRecordedStreamsBlocked(t *testing.T) {
	r := NewResponses(Options{Engine: engineFor(t, blockAllHook)})
	for name, stream := range responsesStreams(t) {
		direct := viewOf(t, stream)
		out, err := relayResponses(t, r, streamRequest, stream)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		v := viewOf(t, out)
		if len(v.Calls) != 0 {
			t.Errorf("%s: blocked calls reached the client: %+v", name, v.Calls)
		}
		for _, c := range direct.Calls {
			if note := "[hookgate] tool call " + c.Name + " blocked by block-all: no tools today"; !strings.Contains(v.Text, note) {
				t.Errorf("%s: the text lacks %q: %q", name, note, v.Text)
			}
		}
		if !contiguous(v.Seqs) {
			t.Errorf("%s: sequence numbers not contiguous: %v", name, v.Seqs)
		}
		if v.Terminal != direct.Terminal || len(v.Errors) != len(direct.Errors) {
			t.Errorf("%s: ended with %s %v, the recording with %s %v", name, v.Terminal, v.Errors, direct.Terminal, direct.Errors)
		}
		for _, o := range v.Final.Get("output").Array() {
			if o.Get("type").Str == "function_call" {
				t.Errorf("%s: the final output still lists a blocked call: %s", name, o.Raw)
			}
		}
		// The blocked calls leave no item; their notes join the last
		// message item, or make one when the recording has none.
		want, message := 0, false
		for _, o := range direct.Final.Get("output").Array() {
			switch o.Get("type").Str {
			case "function_call", "custom_tool_call":
			case "message":
				want, message = want+1, true
			default:
				want++
			}
		}
		if !message && len(direct.Calls) > 0 {
			want++
		}
		final := v.Final.Get("output").Array()
		if len(final) != want {
			t.Errorf("%s: the final output has %d items, want %d", name, len(final), want)
		}
		if len(direct.Calls) > 0 && len(final) > 0 {
			last := final[len(final)-1]
			parts := last.Get("content").Array()
			if last.Get("type").Str != "message" || len(parts) == 0 || !strings.HasSuffix(parts[len(parts)-1].Get("text").Str, "blocked by block-all: no tools today") {
				t.Errorf("%s: the final output's last item does not end with the notes: %s", name, last.Raw)
			}
		}
	}
}

func TestResponsesRecordedStreamsRewritten(t *testing.T) {
	r := NewResponses(Options{Engine: engineFor(t, stampHook)})
	for name, stream := range responsesStreams(t) {
		direct := viewOf(t, stream)
		out, err := relayResponses(t, r, streamRequest, stream)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		v := viewOf(t, out)
		if len(v.Calls) != len(direct.Calls) {
			t.Fatalf("%s: %d calls, the recording has %d", name, len(v.Calls), len(direct.Calls))
		}
		for i, c := range v.Calls {
			want := map[string]any{}
			if err := json.Unmarshal([]byte(direct.Calls[i].Item), &want); err != nil {
				t.Fatal(err)
			}
			want["audited"] = true
			for what, got := range map[string]string{"deltas": c.Args, "done event": c.Done, "done item": c.Item, "final output": c.Final} {
				if what == "deltas" && direct.Calls[i].Args == "" {
					continue // the recording sends no delta (LM Studio)
				}
				var args map[string]any
				if err := json.Unmarshal([]byte(got), &args); err != nil || !equalJSON(args, want) {
					t.Errorf("%s: call %d %s: %s, want %v", name, i, what, got, want)
				}
			}
			if c.CallID != direct.Calls[i].CallID || c.Name != direct.Calls[i].Name {
				t.Errorf("%s: call %d is %s %s, the recording's %s %s", name, i, c.CallID, c.Name, direct.Calls[i].CallID, direct.Calls[i].Name)
			}
		}
		if !contiguous(v.Seqs) {
			t.Errorf("%s: sequence numbers not contiguous: %v", name, v.Seqs)
		}
	}
}

func equalJSON(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
