package providers

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// messagesRun is what an Anthropic stream decodes to, as the interceptor
// reads it.
type messagesRun struct {
	events    int
	pings     int
	messageID string
	blocks    []messagesBlockRun
	text      string
	thinking  int // bytes of thinking text
	signature int // bytes of signature
	stops     []string
	outTokens []string
	last      string
}

type messagesBlockRun struct {
	index    int
	typ      string
	id, name string
	input    string // the input_json_delta fragments, concatenated
	deltas   int    // input_json_delta events
	stopped  bool
}

// runMessagesStream feeds in to a parser, cut at the given offsets, and
// decodes every event.
func runMessagesStream(t *testing.T, in []byte, cuts []int) *messagesRun {
	t.Helper()
	r := &messagesRun{}
	p := NewSSEParser(0)
	var ev MessagesEvent
	var raw []byte
	consume := func() {
		for {
			f, err := p.Next()
			if err != nil {
				t.Fatal(err)
			}
			if f == nil {
				return
			}
			raw = append(raw, f.Raw...)
			if !f.HasData() {
				continue
			}
			r.events++
			if err := ev.Decode(f.Data); err != nil {
				t.Fatalf("event %d: %v: %s", f.Seq, err, f.Data)
			}
			if !ev.Type.Equal(string(f.Event)) {
				t.Fatalf("event %d: line names %q, payload %s", f.Seq, f.Event, ev.Type.Raw)
			}
			r.last = ev.Type.Text()
			switch {
			case ev.Is(MessagesPing):
				r.pings++
			case ev.Is(MessageStart):
				r.messageID = gjson.GetBytes(ev.Message.Raw, "id").String()
			case ev.Is(ContentBlockStart):
				r.blocks = append(r.blocks, messagesBlockRun{index: ev.Index, typ: ev.Block.Type.Text(), id: ev.Block.ID.Text(), name: ev.Block.Name.Text()})
			case ev.Is(ContentBlockDelta):
				b := r.block(t, ev.Index)
				switch {
				case ev.Delta.Type.Equal("text_delta"):
					r.text += ev.Delta.Text.Text()
				case ev.Delta.Type.Equal("thinking_delta"):
					r.thinking += len(ev.Delta.Thinking.Text())
				case ev.Delta.Type.Equal("signature_delta"):
					r.signature += len(ev.Delta.Signature.Text())
				case ev.Delta.Type.Equal("input_json_delta"):
					b.input += ev.Delta.PartialJSON.Text()
					b.deltas++
				}
			case ev.Is(ContentBlockStop):
				r.block(t, ev.Index).stopped = true
			case ev.Is(MessageDelta):
				r.stops = append(r.stops, ev.Delta.StopReason.Text())
				r.outTokens = append(r.outTokens, gjson.GetBytes(ev.Usage.Raw, "output_tokens").Raw)
			}
		}
	}
	prev := 0
	for _, c := range append(cuts, len(in)) {
		p.Feed(in[prev:c])
		prev = c
		consume()
	}
	p.End()
	consume()
	if len(p.Trailing()) != 0 {
		t.Fatalf("trailing bytes %q", p.Trailing())
	}
	if !bytes.Equal(raw, in) {
		t.Fatal("the frames' Raw bytes do not give back the stream")
	}
	return r
}

func (r *messagesRun) block(t *testing.T, index int) *messagesBlockRun {
	t.Helper()
	for i := range r.blocks {
		if r.blocks[i].index == index {
			return &r.blocks[i]
		}
	}
	t.Fatalf("event for block %d, which never started", index)
	return nil
}

// messagesStreamWant holds, for every Anthropic stream fixture, what was
// read from the file by hand (jq over the data lines).
var messagesStreamWant = map[string]messagesRun{
	"anthropic/messages-claude35-two-tool-use-many-partials.sse": {
		events: 35, pings: 1, messageID: "msg_0138UNF3YbNp49KkqZtUBWqz",
		blocks: []messagesBlockRun{
			{index: 0, typ: "text", stopped: true},
			{index: 1, typ: "tool_use", id: "toolu_014x5X91kx3fvdhpLvwXZWE2", name: "get_weather", input: `{"location": "San Francisco, CA", "unit": "celsius"}`, deltas: 9, stopped: true},
			{index: 2, typ: "tool_use", id: "toolu_0121kXsENLvoDZ72LCuAnCCz", name: "get_time", input: `{"timezone": "America/Los_Angeles"}`, deltas: 6, stopped: true},
		},
		text:  "Certainly! I can help you with that information. To get the weather and current time in San Francisco, I'll need to use two separate functions. Let me fetch that data for you.",
		stops: []string{"tool_use"}, outTokens: []string{"153"}, last: MessageStop,
	},
	"anthropic/messages-text-then-two-tool-use-ping-padding.sse": {
		events: 22, pings: 1, messageID: "msg_01PSvJdjd5keNSD63VHjYzex",
		blocks: []messagesBlockRun{
			{index: 0, typ: "text", stopped: true},
			{index: 1, typ: "tool_use", id: "toolu_01UYxUYC2zRPY8wiutnF48eP", name: "add", input: `{"a": 2, "b": 3}`, deltas: 4, stopped: true},
			{index: 2, typ: "tool_use", id: "toolu_01VaRx1jpWCvPhi7L4kywAcd", name: "multiply", input: `{"a": 2, "b": 3}`, deltas: 4, stopped: true},
		},
		text:  "I'll add and multiply the numbers 2 and 3 for you.",
		stops: []string{"tool_use"}, outTokens: []string{"137"}, last: MessageStop,
	},
	"anthropic/messages-thinking-then-tool-use.sse": {
		events: 38, pings: 1, messageID: "msg_01KTBB57LAzaSZs8kMNvfnsY",
		blocks: []messagesBlockRun{
			{index: 0, typ: "thinking", stopped: true},
			{index: 1, typ: "tool_use", id: "toolu_01Js4AMfx5qpTLhwTusnvT68", name: "weather", input: `{"location": "Florence, Italy"}`, deltas: 7, stopped: true},
		},
		thinking: 301, signature: 636,
		stops: []string{"tool_use"}, outTokens: []string{"119"}, last: MessageStop,
	},
	"anthropic/vertex-claude37-streamrawpredict-tool-use.sse": {
		events: 20, pings: 1, messageID: "msg_vrtx_015NhGGaKxyd2YQNDWYkNqXk",
		blocks: []messagesBlockRun{
			{index: 0, typ: "text", stopped: true},
			{index: 1, typ: "tool_use", id: "toolu_vrtx_01JhPy9eXqgjLWmUpoCiEkCs", name: "weather", input: `{"location": "Florence,Italy"}`, deltas: 5, stopped: true},
		},
		text:  "I'll help you check the weather in Florence, Italy. Let me get that information for you right away.",
		stops: []string{"tool_use"}, outTokens: []string{"76"}, last: MessageStop,
	},
}

// TestMessagesStreamFixtures decodes every recorded Anthropic stream, fed
// whole, one byte at a time and at random split points, and checks each
// against what the file says: the same events whichever way it is cut.
func TestMessagesStreamFixtures(t *testing.T) {
	streams := fixtures.List(t, fixtures.APIAnthropic, fixtures.KindSSE)
	if len(streams) != len(messagesStreamWant) {
		t.Fatalf("%d Anthropic stream fixtures, %d expectations: add the new recording here", len(streams), len(messagesStreamWant))
	}
	for _, f := range streams {
		t.Run(f.Rel, func(t *testing.T) {
			want, ok := messagesStreamWant[f.Rel]
			if !ok {
				t.Fatalf("no expectation for %s", f.Rel)
			}
			in := f.Read(t)
			whole := runMessagesStream(t, in, nil)
			if !reflect.DeepEqual(*whole, want) {
				t.Fatalf("decoded\n%+v\nwant\n%+v", *whole, want)
			}
			var every []int
			for i := 1; i < len(in); i++ {
				every = append(every, i)
			}
			if got := runMessagesStream(t, in, every); !reflect.DeepEqual(got, whole) {
				t.Fatalf("byte at a time: %+v", *got)
			}
			rng := rand.New(rand.NewPCG(1, uint64(len(in))))
			for range 20 {
				var cuts []int
				for c := 1 + rng.IntN(64); c < len(in); c += 1 + rng.IntN(64) {
					cuts = append(cuts, c)
				}
				if got := runMessagesStream(t, in, cuts); !reflect.DeepEqual(got, whole) {
					t.Fatalf("cut at %v: %+v", cuts, *got)
				}
			}
			// Every tool input the stream assembles is a JSON object.
			for _, b := range whole.blocks {
				if b.typ == "tool_use" && !strings.HasPrefix(b.input, "{") {
					t.Errorf("block %d input %q", b.index, b.input)
				}
			}
		})
	}
}

// TestMessagesResponseFixtures reads every recorded non-streamed message.
func TestMessagesResponseFixtures(t *testing.T) {
	want := map[string]MessagesResponse{
		"anthropic/messages-two-tool-use.json": {
			ID: "msg_01SKkVkB84yWcweNDwx31xBd", Model: "claude-sonnet-4-20250514", StopReason: "tool_use",
			Content: []MessagesBlock{
				{Pos: 0, Type: "text", Text: "I'll add and multiply the numbers 2 and 3 for you."},
				{Pos: 1, Type: "tool_use", ID: "toolu_01StBeRxDEwsqcc3arbDgpS9", Name: "add", Input: `{"a":2,"b":3}`},
				{Pos: 2, Type: "tool_use", ID: "toolu_01AC6WQhj2iRkdYHgTAGMpVQ", Name: "multiply", Input: `{"a":2,"b":3}`},
			},
		},
	}
	plain := fixtures.List(t, fixtures.APIAnthropic, fixtures.KindJSON)
	if len(plain) != len(want) {
		t.Fatalf("%d Anthropic response fixtures, %d expectations", len(plain), len(want))
	}
	for _, f := range plain {
		got, err := ParseMessagesResponse(f.Read(t))
		if err != nil {
			t.Fatalf("%s: %v", f.Rel, err)
		}
		if !reflect.DeepEqual(*got, want[f.Rel]) {
			t.Errorf("%s:\n got %+v\nwant %+v", f.Rel, *got, want[f.Rel])
		}
	}
}
