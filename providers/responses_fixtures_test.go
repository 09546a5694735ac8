package providers

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// respRun is what a Responses stream decodes to through ResponsesEvent.
type respRun struct {
	events    int
	kinds     map[ResponsesEventKind]int
	seqFrom   int64
	seqOK     bool // every event numbered, contiguously
	calls     []respWantCall
	text      strings.Builder
	terminals []string
	responses []string // response ids of the lifecycle events
}

type respWantCall struct {
	kind          ResponsesCallKind
	callID, name  string
	input         string // from output_item.done
	deltas        int
	doneEvent     bool   // a function_call_arguments.done came
	matchesDeltas bool   // the added item's input and the deltas build the done item's
	final         string // the input the terminal event's output lists
}

func (r *respRun) consume(t *testing.T, data []byte, ev *ResponsesEvent, open map[int]*respWantCall, built map[int]string) {
	t.Helper()
	if err := ev.Decode(data); err != nil {
		t.Fatalf("event %d: %v: %s", r.events, err, data)
	}
	if r.events == 0 {
		r.seqFrom, r.seqOK = ev.Sequence, ev.HasSequence
	} else if !ev.HasSequence || ev.Sequence != r.seqFrom+int64(r.events) {
		r.seqOK = false
	}
	r.events++
	r.kinds[ev.Kind]++
	switch ev.Kind {
	case RespItemAdded:
		if k := ev.Item.CallKind(); k != NotACall {
			open[ev.OutputIndex] = &respWantCall{kind: k}
			built[ev.OutputIndex] = ev.Item.CallInput().Text()
		}
	case RespArgsDelta:
		c := open[ev.OutputIndex]
		if c == nil {
			t.Fatalf("delta for output_index %d, which holds no call", ev.OutputIndex)
		}
		c.deltas++
		built[ev.OutputIndex] += ev.Delta.Text()
	case RespArgsDone:
		c := open[ev.OutputIndex]
		if c == nil {
			t.Fatalf(".done for output_index %d, which holds no call", ev.OutputIndex)
		}
		c.doneEvent = true
		if !ev.Final().IsString() {
			t.Fatalf(".done without its input: %s", data)
		}
	case RespItemDone:
		if k := ev.Item.CallKind(); k != NotACall {
			c := open[ev.OutputIndex]
			if c == nil {
				t.Fatalf("call done at output_index %d without being added", ev.OutputIndex)
			}
			c.callID, c.name, c.input = ev.Item.CallID.Text(), ev.Item.Name.Text(), ev.Item.CallInput().Text()
			c.matchesDeltas = built[ev.OutputIndex] == c.input
			r.calls = append(r.calls, *c)
			delete(open, ev.OutputIndex)
		}
	case RespTextDelta:
		r.text.WriteString(ev.Delta.Text())
	case RespCompleted, RespIncomplete, RespFailed, RespError:
		r.terminals = append(r.terminals, ev.Type.Text())
		if ev.Kind.HasResponse() {
			r.responses = append(r.responses, ev.ResponseID().Text())
			out, err := ReadResponsesOutput(data, EventOutput)
			if err != nil {
				t.Fatalf("terminal event: %v", err)
			}
			k := 0
			for _, it := range out.Calls() {
				if k < len(r.calls) {
					r.calls[k].final = it.Input
				}
				k++
			}
		}
	case RespCreated:
		r.responses = append(r.responses, ev.ResponseID().Text())
	}
}

// payloads returns a stream's event payloads: the data of each SSE event,
// or each line of a .chunks.jsonl file (whose recorder dropped the
// framing).
func payloads(t *testing.T, fx fixtures.Fixture, in []byte) [][]byte {
	t.Helper()
	if fx.Kind == fixtures.KindChunks {
		return bytes.Split(bytes.TrimRight(in, "\n"), []byte("\n"))
	}
	var out [][]byte
	for _, f := range parseAll(t, in, nil) {
		if f.DataLines > 0 {
			out = append(out, f.Data)
		}
	}
	return out
}

// parseAll parses in, fed in the pieces cuts make, and returns copies of
// its frames; the concatenation of their Raw and the trailing bytes must
// give back the input.
func parseAll(t *testing.T, in []byte, cuts []int) []SSEFrame {
	t.Helper()
	p := NewSSEParser(0)
	var out []SSEFrame
	var raw []byte
	take := func() {
		for {
			f, err := p.Next()
			if err != nil {
				t.Fatal(err)
			}
			if f == nil {
				return
			}
			c := *f
			c.Raw, c.Data, c.Event = respClone(f.Raw), respClone(f.Data), respClone(f.Event)
			raw = append(raw, c.Raw...)
			out = append(out, c)
		}
	}
	prev := 0
	for _, c := range append(cuts, len(in)) {
		p.Feed(in[prev:c])
		take()
		prev = c
	}
	p.End()
	take()
	if got := append(raw, p.Trailing()...); !bytes.Equal(got, in) {
		t.Fatal("frames do not give back the input")
	}
	return out
}

func respClone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// respStreamWant holds, for every Responses stream fixture, what was read
// from the file by hand: the calls with their ids, names and arguments,
// and the stream's shape.
var respStreamWant = map[string]struct {
	events    int
	calls     []respWantCall
	text      string // a prefix of the output text
	terminals string // comma-joined terminal event types
}{
	"azure/responses-gpt5mini-function-call.sse": {
		events: 16, terminals: "response.completed",
		calls: []respWantCall{{kind: FunctionCall, callID: "call_zLPcxu60T5jzGjuiRIvlkoSt", name: "weather", input: `{"location":"Florence, Italy"}`, deltas: 8, doneEvent: true}},
	},
	"bedrock-mantle/responses-data-before-event-reused-call-ids.sse": {
		events: 9, terminals: "response.completed",
		calls: []respWantCall{{kind: FunctionCall, callID: "call_1", name: "second_tool", input: `{}`, deltas: 1, doneEvent: true}},
	},
	"deepseek/responses-reasoning-function-call.sse": {
		events: 34, terminals: "response.completed",
		calls: []respWantCall{{kind: FunctionCall, callID: "call_00_xjY8Z2BvSlzgEmmw0DtH0464", name: "get_temperature", input: `{"city": "Tokyo"}`, deltas: 9, doneEvent: true}},
	},
	"openai-responses/gpt4o-function-call-args-8-deltas.sse": {
		events: 14, terminals: "response.completed",
		calls: []respWantCall{{kind: FunctionCall, callID: "call_PRiJm2RVAvt7IoRvjxIXxFVF", name: "weather", input: `{"location":"Florence, Italy"}`, deltas: 8, doneEvent: true}},
	},
	"openai-responses/gpt5-reasoning-two-function-calls.sse": {
		events: 13, terminals: "response.completed",
		calls: []respWantCall{
			{kind: FunctionCall, callID: "call_inViAUr9eV0GDtyOywkCxp59", name: "add", input: `{"a":2,"b":3}`, deltas: 1, doneEvent: true},
			{kind: FunctionCall, callID: "call_Op66UUnzuOoKmgGeFJQJFTUY", name: "multiply", input: `{"a":2,"b":3}`, deltas: 1, doneEvent: true},
		},
	},
	"lmstudio/responses-tool-call.chunks.jsonl": {
		// The arguments come only in .done: no delta at all.
		events: 77, terminals: "response.completed", text: "I'll get the current weather information for San Francisco for you.",
		calls: []respWantCall{{kind: FunctionCall, callID: "call_2025306790300011", name: "weather", input: `{"location":"San Francisco"}`, deltas: 0, doneEvent: true}},
	},
	"openai-responses/error-event-insufficient-quota.chunks.jsonl": {
		events: 4, terminals: "error,response.failed",
	},
}

func TestResponsesStreamFixtures(t *testing.T) {
	var list []fixtures.Fixture
	list = append(list, fixtures.List(t, fixtures.APIResponses, fixtures.KindSSE)...)
	list = append(list, fixtures.List(t, fixtures.APIResponses, fixtures.KindChunks)...)
	seen := map[string]bool{}
	for _, fx := range list {
		t.Run(fx.Rel, func(t *testing.T) {
			want, ok := respStreamWant[fx.Rel]
			if !ok {
				t.Fatalf("no expectation for %s: read it and add one", fx.Rel)
			}
			seen[fx.Rel] = true
			r := &respRun{kinds: map[ResponsesEventKind]int{}}
			var ev ResponsesEvent
			open, built := map[int]*respWantCall{}, map[int]string{}
			for _, p := range payloads(t, fx, fx.Read(t)) {
				r.consume(t, p, &ev, open, built)
			}
			if r.events != want.events || !r.seqOK || r.seqFrom != 0 {
				t.Errorf("%d events numbered from %d (contiguous: %v); want %d from 0", r.events, r.seqFrom, r.seqOK, want.events)
			}
			if got := strings.Join(r.terminals, ","); got != want.terminals {
				t.Errorf("terminal events %q, want %q", got, want.terminals)
			}
			if !strings.HasPrefix(r.text.String(), want.text) {
				t.Errorf("text %q does not start with %q", r.text.String(), want.text)
			}
			for _, id := range r.responses[1:] {
				if id != r.responses[0] {
					t.Errorf("response ids differ: %v", r.responses)
				}
			}
			if len(open) != 0 {
				t.Errorf("calls never done: %v", open)
			}
			if len(r.calls) != len(want.calls) {
				t.Fatalf("%d calls %+v, want %d", len(r.calls), r.calls, len(want.calls))
			}
			for i, w := range want.calls {
				g := r.calls[i]
				w.matchesDeltas = true
				if len(r.terminals) > 0 && r.kinds[RespCompleted] > 0 {
					w.final = w.input
				}
				if w.deltas == 0 {
					// Without deltas the added item's empty input is all
					// an accumulator builds before .done fills it.
					w.matchesDeltas = g.matchesDeltas
				}
				if g != w {
					t.Errorf("call %d:\n got %+v\nwant %+v", i, g, w)
				}
			}
		})
	}
	for rel := range respStreamWant {
		if !seen[rel] {
			t.Errorf("expectation for %s matched no fixture", rel)
		}
	}
}

// The SSE parser yields the same Responses events however the bytes are
// cut: at every byte, and at random points.
func TestResponsesStreamFixturesSplitReads(t *testing.T) {
	for _, fx := range fixtures.List(t, fixtures.APIResponses, fixtures.KindSSE) {
		in := fx.Read(t)
		whole := parseAll(t, in, nil)
		every := make([]int, 0, len(in))
		for i := 1; i < len(in); i++ {
			every = append(every, i)
		}
		rng := rand.New(rand.NewPCG(7, uint64(len(in))))
		var random []int
		for c := 1 + rng.IntN(64); c < len(in); c += 1 + rng.IntN(64) {
			random = append(random, c)
		}
		for name, cuts := range map[string][]int{"every byte": every, "random": random} {
			got := parseAll(t, in, cuts)
			if len(got) != len(whole) {
				t.Fatalf("%s, %s: %d frames, whole %d", fx.Rel, name, len(got), len(whole))
			}
			var a, b ResponsesEvent
			for i := range got {
				if !bytes.Equal(got[i].Raw, whole[i].Raw) || !bytes.Equal(got[i].Data, whole[i].Data) || !bytes.Equal(got[i].Event, whole[i].Event) {
					t.Fatalf("%s, %s: frame %d differs", fx.Rel, name, i)
				}
				if got[i].DataLines == 0 {
					continue
				}
				if err := a.Decode(got[i].Data); err != nil {
					t.Fatal(err)
				}
				if err := b.Decode(whole[i].Data); err != nil {
					t.Fatal(err)
				}
				if a.Kind != b.Kind || a.Sequence != b.Sequence || a.OutputIndex != b.OutputIndex {
					t.Fatalf("%s, %s: event %d decodes differently", fx.Rel, name, i)
				}
			}
		}
	}
}

func TestResponsesPlainFixture(t *testing.T) {
	fxs := fixtures.List(t, fixtures.APIResponses, fixtures.KindJSON)
	if len(fxs) != 1 {
		t.Fatalf("%d plain Responses fixtures; update this test", len(fxs))
	}
	body := fxs[0].Read(t)
	r, err := ParseResponsesResponse(body)
	if err != nil {
		t.Fatal(err)
	}
	want := []ResponsesOutputItem{
		{Pos: 0, Type: "function_call", Kind: FunctionCall, ID: "fc_0038f9f9083d2c12016a3c12036e2881a28509892751dc2fc0", CallID: "call_IAQ7c0mnAiAE89MUQa42HQy4", Name: "add", Input: `{"a":2,"b":3}`, LastTextPart: -1},
		{Pos: 1, Type: "function_call", Kind: FunctionCall, ID: "fc_0038f9f9083d2c12016a3c12036e3881a286625edab78f7ac4", CallID: "call_gXYDdXX5Ld6zWOSpIAh0QHPr", Name: "multiply", Input: `{"a":2,"b":3}`, LastTextPart: -1},
	}
	if r.ID != "resp_0038f9f9083d2c12016a3c1202933081a2bc45cfde28659e9b" || r.Status != "completed" || !reflect.DeepEqual(r.Calls(), want) {
		t.Fatalf("got %+v", r)
	}

	// Edits keep every other byte of the pretty-printed body.
	note := MessageItem("msg_x", "blocked")
	out, err := replaceResponsesOutputItem(body, PlainOutput, 0, note)
	if err != nil {
		t.Fatal(err)
	}
	if out, err = SetResponsesOutputInput(out, PlainOutput, 1, FunctionCall, `{"a":2,"b":3,"audited":true}`); err != nil {
		t.Fatal(err)
	}
	if out, err = AppendResponsesOutputItem(out, PlainOutput, MessageItem("msg_y", "Not advice.")); err != nil {
		t.Fatal(err)
	}
	got, err := ParseResponsesResponse(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Output) != 3 || got.Output[0].Type != "message" || got.Output[1].Input != `{"a":2,"b":3,"audited":true}` || got.Text != "blockedNot advice." {
		t.Fatalf("edited: %+v", got)
	}
	head := bytes.Index(body, []byte(`"output": [`))
	if !bytes.Equal(out[:head], body[:head]) || !bytes.HasSuffix(out, body[bytes.Index(body, []byte(`"parallel_tool_calls"`)):]) {
		t.Fatalf("bytes outside output changed:\n%s", out)
	}
	if _, err := SetResponsesOutputInput(body, PlainOutput, 9, FunctionCall, "{}"); err == nil {
		t.Fatal("an edit of a missing item must fail")
	}
}

// The terminal event of a recorded stream takes the same edits.
func TestResponsesTerminalEventEdits(t *testing.T) {
	in := readFixture(t, "openai-responses/gpt5-reasoning-two-function-calls.sse")
	var completed []byte
	for _, f := range parseAll(t, in, nil) {
		if string(f.Event) == "response.completed" {
			completed = f.Data
		}
	}
	out, err := replaceResponsesOutputItem(completed, EventOutput, 1, MessageItem("msg_x", "[hookgate] blocked"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err = SetSequenceNumber(out, 9); err != nil {
		t.Fatal(err)
	}
	var ev ResponsesEvent
	if err := ev.Decode(out); err != nil || ev.Kind != RespCompleted || ev.Sequence != 9 {
		t.Fatalf("%v %+v", err, ev)
	}
	r, err := ReadResponsesOutput(out, EventOutput)
	if err != nil {
		t.Fatal(err)
	}
	if types := fmt.Sprint(r.Output[0].Type, r.Output[1].Type, r.Output[2].Type); types != "reasoningmessagefunction_call" || r.Text != "[hookgate] blocked" {
		t.Fatalf("output %+v", r.Output)
	}
}
