package providers

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// streamRun is what a chat stream decodes to, as the interceptor would see it.
type streamRun struct {
	frames      int
	dataFrames  int
	comments    int
	done        bool
	errorEvent  bool // "event: error" (Groq)
	errorChunk  bool // chunk with a top-level "error" (OpenRouter)
	usageChunks int
	finishes    []string // finish reasons of choice 0, in order
	content     strings.Builder
	calls       []wantCall
	early       []string // "ordinal@seq" of early completions
}

type wantCall struct {
	wire       int
	id, name   string
	args       string
	frames     int    // number of contributing frames; 0 = don't check
	normalized string // NormalizedArguments, when it differs from args
}

// consume decodes one chunk payload and feeds the per-choice assemblers.
func (r *streamRun) consume(t *testing.T, seq uint64, data []byte, chunk *ChatChunk, asm map[int]*ToolCallAssembler) {
	t.Helper()
	if err := chunk.Decode(data); err != nil {
		t.Fatalf("frame %d: %v: %s", seq, err, data)
	}
	if chunk.HasUsage() {
		r.usageChunks++
	}
	if chunk.HasError() {
		r.errorChunk = true
	}
	for i := range chunk.Choices {
		ch := &chunk.Choices[i]
		a := asm[ch.Index]
		if a == nil {
			a = NewToolCallAssembler(ToolCallLimits{})
			asm[ch.Index] = a
		}
		if ch.Index == 0 {
			r.content.Write(ch.Content.AppendText(nil))
		}
		if !a.Finished() {
			done, err := a.Add(seq, ch.ToolCalls)
			if err != nil {
				t.Fatalf("frame %d: %v", seq, err)
			}
			for _, k := range done {
				r.early = append(r.early, itoa(k)+"@"+itoa(int(seq)))
			}
		} else if len(ch.ToolCalls) > 0 {
			t.Fatalf("frame %d: tool call after finish", seq)
		}
		if ch.Finished() {
			if ch.Index == 0 {
				r.finishes = append(r.finishes, ch.FinishReason.Text())
			}
			a.Finish()
		}
	}
}

func (r *streamRun) finish(asm map[int]*ToolCallAssembler) {
	if a := asm[0]; a != nil {
		a.Finish()
		for _, c := range a.Calls() {
			if !c.Complete {
				panic("call not complete after Finish")
			}
			w := wantCall{wire: c.WireIndex, id: c.ID, name: c.Name, args: string(c.Arguments), frames: len(c.Frames)}
			if n := string(c.NormalizedArguments()); n != w.args {
				w.normalized = n
			}
			r.calls = append(r.calls, w)
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func runSSEFixture(t *testing.T, in []byte) *streamRun {
	t.Helper()
	r := &streamRun{}
	p := NewSSEParser(0)
	p.Feed(in)
	p.End()
	var chunk ChatChunk
	asm := map[int]*ToolCallAssembler{}
	for {
		f, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		if f == nil {
			break
		}
		r.frames++
		switch {
		case f.Comment:
			r.comments++
		case f.Done:
			r.done = true
		case string(f.Event) == "error":
			r.errorEvent = true
			if err := chunk.Decode(f.Data); err != nil || !chunk.HasError() {
				t.Fatalf("error event without an error member: %v %s", err, f.Data)
			}
		case f.HasData():
			r.dataFrames++
			r.consume(t, f.Seq, f.Data, &chunk, asm)
		}
	}
	if len(p.Trailing()) != 0 {
		t.Fatalf("trailing bytes %q", p.Trailing())
	}
	r.finish(asm)
	return r
}

func runChunksFixture(t *testing.T, in []byte) *streamRun {
	t.Helper()
	r := &streamRun{}
	var chunk ChatChunk
	asm := map[int]*ToolCallAssembler{}
	for i, line := range bytes.Split(bytes.TrimRight(in, "\n"), []byte("\n")) {
		r.frames++
		r.dataFrames++
		r.consume(t, uint64(i), line, &chunk, asm)
	}
	r.finish(asm)
	return r
}

// chatStreamWant holds, for every chat-completions stream fixture, what was
// read from the file by hand (jq over the data lines): the calls with their
// ids, names and concatenated arguments, and the stream's shape.
var chatStreamWant = map[string]struct {
	calls    []wantCall
	finishes string // comma-joined finish reasons of choice 0
	done     bool
	comments int
	errEvent bool
	errChunk bool
	usage    int    // chunks with a non-null usage
	early    string // comma-joined early completions "ordinal@seq"
	content  string // a substring of the concatenated content
}{
	"avian/chat-kimi-reasoning-tool.sse": {
		calls:    []wantCall{{wire: 0, id: "functions.weather:0", name: "weather", args: `{"location": "Florence,Italy"}`, frames: 2}},
		finishes: "tool_calls,tool_calls", done: true, usage: 1,
	},
	"azure/chat-gpt35-text-content-filter-2024-02-01.sse": {
		finishes: "stop", done: true, content: "Because they wanted to reach new traces!",
	},
	"azure/chat-o4mini-tool-prompt-filter-and-usage.sse": {
		calls:    []wantCall{{wire: 0, id: "call_n1TZAnAlhuLNeb1FaV1XCDuD", name: "weather", args: `{"location":"Florence, Italy"}`, frames: 9}},
		finishes: "tool_calls", done: true, usage: 1,
	},
	"cerebras/chat-qwen3coder-parallel-no-done.sse": {
		// Both calls in ONE delta; no [DONE]. Call 0 completes early once call 1 starts (same frame).
		calls: []wantCall{
			{wire: 0, id: "ab8048658", name: "add", args: `{"a": 2, "b": 3}`, frames: 1},
			{wire: 1, id: "b249e0b3f", name: "multiply", args: `{"a": 2, "b": 3}`, frames: 1},
		},
		finishes: "tool_calls", usage: 1, early: "0@1",
	},
	"deepseek/chat-parallel-tools-usage-on-finish.sse": {
		calls: []wantCall{
			{wire: 0, id: "call_0_4a3f5bbb-26bd-4ebe-bff5-fe84963cab4a", name: "getCurrentWeather", args: `{"location": "Boston, MA", "unit": "fahrenheit"}`, frames: 16},
			{wire: 1, id: "call_1_796d64dc-65c8-4a8e-a389-f8678a6865b6", name: "getCurrentTime", args: `{"location": "Boston, MA"}`, frames: 9},
		},
		finishes: "tool_calls", done: true, usage: 1, early: "0@17",
	},
	"gemini-openai-compat/chat-text-usage-every-chunk.sse": {
		finishes: "stop", done: true, usage: 3, content: "Hello there! How can I help you today?",
	},
	"gemini-openai-compat/chat-tool-call-no-index-empty-id-finish-stop.sse": {
		calls:    []wantCall{{wire: -1, id: "", name: "return_list_of_str", args: `{"value":["apple","banana","orange"]}`, frames: 1}},
		finishes: "stop", done: true, usage: 1,
	},
	"groq/chat-gptoss-error-event-midstream.sse": {
		errEvent: true,
	},
	"groq/chat-gptoss-whole-tool-call-one-chunk.sse": {
		calls:    []wantCall{{wire: 0, id: "fc_bfb39741-3748-4def-9886-a93fc9c64a90", name: "get_something_by_name", args: `{"name":"example"}`, frames: 1}},
		finishes: "tool_calls", done: true, usage: 1,
	},
	"groq/chat-kimi-k2-parallel-whole-calls.sse": {
		calls: []wantCall{
			{wire: 0, id: "functions.add:0", name: "add", args: `{"a":2,"b":3}`, frames: 1},
			{wire: 1, id: "functions.multiply:1", name: "multiply", args: `{"a":2,"b":3}`, frames: 1},
		},
		finishes: "tool_calls", done: true, usage: 2, early: "0@",
	},
	"huggingface/chat-kimi-k2-router-parallel.sse": {
		calls: []wantCall{
			{wire: 0, id: "functions.add:0", name: "add", args: `{"a":2,"b":3}`, frames: 1},
			{wire: 1, id: "functions.multiply:1", name: "multiply", args: `{"a":2,"b":3}`, frames: 1},
		},
		finishes: "tool_calls", done: true, usage: 2, early: "0@",
	},
	"llamacpp/chat-gptoss-reasoning-tool-split.sse": {
		calls:    []wantCall{{wire: 0, id: "g2KOIWzn722hzEaZQmNVP4roUPEiYafL", name: "weather", args: `{"location":"Florence, Italy"}`, frames: 8}},
		finishes: "tool_calls", done: true, usage: 1,
	},
	"mistral/chat-parallel-calls-no-index-single-delta.sse": {
		// Two calls in one delta, no index, no type; finish and usage in the same chunk.
		calls: []wantCall{
			{wire: -1, id: "nqjf8Hqe1", name: "plus", args: `{"a": 1, "b": 2}`, frames: 1},
			{wire: -1, id: "ATcpCKul3", name: "minus", args: `{"a": 2, "b": 1}`, frames: 1},
		},
		finishes: "tool_calls", done: true, usage: 1, early: "0@1",
	},
	"openai/chat-forced-tool-choice-finish-stop.sse": {
		calls:    []wantCall{{wire: 0, id: "call_I4rgKPZdvSkKA3XnEcMYmHN2", name: "plus", args: `{"a":2,"b":3}`, frames: 10}},
		finishes: "stop", done: true, usage: 1,
	},
	"openai/chat-gpt4o-args-split-53-chunks.sse": {
		calls: []wantCall{{wire: 0, id: "call_CCGIWaMeYWmxOQ91orkmTvzn", name: "final_result", frames: 54,
			args: `{"answers":[{"label":"Capital","answer":"The capital of Mexico is Mexico City."},{"label":"Weather","answer":"The weather in Mexico City is currently sunny."},{"label":"Product Name","answer":"The product name is Pydantic AI."}]}`}},
		finishes: "tool_calls", done: true, usage: 1,
	},
	"openai/chat-gpt4o-parallel-tools-include-usage.sse": {
		calls: []wantCall{
			{wire: 0, id: "call_ehIWdjL1abZk1h8FWGLQ0Hie", name: "add", args: `{"a": 2, "b": 3}`, frames: 5},
			{wire: 1, id: "call_fBSgA47J5VeONggizTIvl7AH", name: "multiply", args: `{"a": 2, "b": 3}`, frames: 5},
		},
		finishes: "tool_calls", done: true, usage: 1, early: "0@",
	},
	"openai/chat-gpt4o-parallel-tools-small.sse": {
		calls: []wantCall{
			{wire: 0, id: "call_q2UyBRP7eXNTzAoR8lEhjc9Z", name: "get_country", args: `{}`, frames: 2},
			{wire: 1, id: "call_b51ijcpFkDiTQG1bQzsrmtW5", name: "get_product_name", args: `{}`, frames: 2},
		},
		finishes: "tool_calls", done: true, usage: 1, early: "0@",
	},
	"openrouter/chat-deepseek-v32-atlascloud-parallel.sse": {
		calls: []wantCall{
			{wire: 0, id: "0b9b65cb86084440a3ea7f75a9f20104", name: "add", args: `{"a": 2, "b": 3}`, frames: 2},
			{wire: 1, id: "5e95ae6f882c4547a01d7ed60da214f0", name: "multiply", args: `{"a": 2, "b": 3}`, frames: 2},
		},
		finishes: "tool_calls", done: true, usage: 1, early: "0@",
	},
	"openrouter/chat-kimi-parallel-processing-comments.sse": {
		calls: []wantCall{
			{wire: 0, id: "functions.add:0", name: "add", args: `{"a": 2, "b": 3}`, frames: 13},
			{wire: 1, id: "functions.multiply:1", name: "multiply", args: `{"a": 2, "b": 3}`, frames: 13},
		},
		finishes: "tool_calls,tool_calls", done: true, comments: 4, usage: 1, early: "0@",
	},
	"openrouter/chat-minimax-error-chunk-midstream.sse": {
		finishes: "length,length", done: true, comments: 17, errChunk: true, usage: 1,
	},
	"openrouter/chat-novita-kimi-id-name-repeated.sse": {
		// id "0" and name repeated on each delta, args "" then "{}"; never a finish_reason.
		calls: []wantCall{{wire: 0, id: "0", name: "llm_version", args: `{}`, frames: 2}},
		done:  true, usage: 1,
	},
	"openrouter/chat-novita-kimi-name-without-arguments-key.sse": {
		calls:    []wantCall{{wire: 0, id: "llm_version:0", name: "llm_version", args: `{}`, frames: 2}},
		finishes: "tool_calls", done: true, usage: 1,
	},
	"openrouter/chat-o4mini-index-starts-at-1-finish-stop.sse": {
		calls:    []wantCall{{wire: 1, id: "call_LxBJm3xDQRdYTpm7kjk5sLNB", name: "getCurrentWeather", args: `{"location":"Boston, MA","unit":"fahrenheit"}`, frames: 13}},
		finishes: "stop", done: true, comments: 12, usage: 1,
	},
	"vercel-gateway/chat-claude-sonnet4-parallel.sse": {
		calls: []wantCall{
			{wire: 0, id: "toolu_01QU6XHH6Ct5srCeCZJztb1y", name: "add", args: `{"a": 2, "b": 3}`, frames: 4},
			{wire: 1, id: "toolu_01Efj1TvKTdgHLoko7KWUMVE", name: "multiply", args: `{"a": 2, "b": 3}`, frames: 4},
		},
		finishes: "tool_calls", done: true, usage: 1, early: "0@", content: "I'll add and multiply the numbers 2 and 3 for you.",
	},
	"writer/chat-palmyra-7-tool-calls-null-fields-no-done.sse": {
		calls: []wantCall{
			{wire: 0, id: "chatcmpl-tool-5ac885d9b1b54a66b11f014a1ecb5b9d", name: "get_weather", args: `{"location": "Zakopane"}`, frames: 3},
			{wire: 1, id: "chatcmpl-tool-368eedfd835c4186b5cb97c69d803cf0", name: "get_weather", args: `{"location": "Warsaw"}`, frames: 3},
			{wire: 2, id: "chatcmpl-tool-af73f77676e3402e9e04a4f867552ddd", name: "get_weather", args: `{"location": "Lodz"}`, frames: 3},
			{wire: 3, id: "chatcmpl-tool-e9d9b531d7954d789c1ccc21dbdd3be0", name: "get_weather", args: `{"location": "Katowice"}`, frames: 3},
			{wire: 4, id: "chatcmpl-tool-a5155160b47c4f5c9f02eb234cac9e7c", name: "get_weather", args: `{"location": "Krakow"}`, frames: 3},
			{wire: 5, id: "chatcmpl-tool-aad9face17d14c7296dd569213e61f47", name: "get_weather", args: `{"location": "Poznan"}`, frames: 3},
			{wire: 6, id: "chatcmpl-tool-938c427496df48f3b2efb60d6a854461", name: "get_weather", args: `{"location": "Lublin"}`, frames: 3},
		},
		finishes: "tool_calls", usage: 1, early: "0@,1@,2@,3@,4@,5@",
	},
	"xai/chat-grok4fast-parallel-whole-calls.sse": {
		calls: []wantCall{
			{wire: 0, id: "call_55070233", name: "add", args: `{"a":2,"b":3}`, frames: 1},
			{wire: 1, id: "call_12016531", name: "multiply", args: `{"a":2,"b":3}`, frames: 1},
		},
		finishes: "tool_calls", done: true, usage: 1, early: "0@",
	},
	"zai/chat-glm47-reasoning-content-tool.sse": {
		calls:    []wantCall{{wire: 0, id: "call_3532c842716b4c72a7dd7498", name: "weather", args: `{"location":"Florence,Italy"}`, frames: 1}},
		finishes: "tool_calls", done: true, usage: 1,
	},
	"ollama/openai-compat-tool-call-no-index-finish-stop.sse": {
		calls:    []wantCall{{wire: -1, id: "call_28sm5ma0", name: "return_list_of_int", args: `{"value":"[1, 2, 3, 4, 5]"}`, frames: 1}},
		finishes: "stop", done: true,
	},
	"alibaba/chat-qwen3max-empty-id-repeated.chunks.jsonl": {
		// Continuations repeat index 0 with "id":"", then a trailing empty fragment.
		calls:    []wantCall{{wire: 0, id: "call_eee11723464a4b9eb8cee71d", name: "weather", args: `{"location": "San Francisco"}`, frames: 4}},
		finishes: "tool_calls", usage: 1,
	},
	"deepseek/chat-reasoner-reasoning-content-then-tool.chunks.jsonl": {
		calls:    []wantCall{{wire: 0, id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", name: "weather", args: `{"location": "San Francisco"}`, frames: 11}},
		finishes: "tool_calls", usage: 1,
	},
}

func TestChatStreamFixtures(t *testing.T) {
	var list []fixtures.Fixture
	list = append(list, fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindSSE)...)
	list = append(list, fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindChunks)...)
	seen := map[string]bool{}
	for _, fx := range list {
		t.Run(fx.Rel, func(t *testing.T) {
			want, ok := chatStreamWant[fx.Rel]
			if !ok {
				t.Fatalf("no expectation for %s: read it and add one", fx.Rel)
			}
			seen[fx.Rel] = true
			in := fx.Read(t)
			var r *streamRun
			if fx.Kind == fixtures.KindSSE {
				r = runSSEFixture(t, in)
			} else {
				r = runChunksFixture(t, in)
			}
			if got := strings.Join(r.finishes, ","); got != want.finishes {
				t.Errorf("finish reasons %q, want %q", got, want.finishes)
			}
			if r.done != want.done || r.comments != want.comments || r.errorEvent != want.errEvent ||
				r.errorChunk != want.errChunk || r.usageChunks != want.usage {
				t.Errorf("shape: done=%v comments=%d errEvent=%v errChunk=%v usage=%d; want %v %d %v %v %d",
					r.done, r.comments, r.errorEvent, r.errorChunk, r.usageChunks,
					want.done, want.comments, want.errEvent, want.errChunk, want.usage)
			}
			if !strings.Contains(r.content.String(), want.content) {
				t.Errorf("content %q lacks %q", r.content.String(), want.content)
			}
			// Early completions: "k@" checks the ordinal only, "k@seq" the frame too.
			if want.early != "" || len(r.early) > 0 {
				wantEarly := strings.Split(want.early, ",")
				if want.early == "" {
					wantEarly = nil
				}
				if len(r.early) != len(wantEarly) {
					t.Errorf("early completions %v, want %v", r.early, wantEarly)
				} else {
					for i, w := range wantEarly {
						if !strings.HasPrefix(r.early[i], w) || (!strings.HasSuffix(w, "@") && r.early[i] != w) {
							t.Errorf("early completion %d = %s, want %s", i, r.early[i], w)
						}
					}
				}
			}
			if len(r.calls) != len(want.calls) {
				t.Fatalf("%d calls %+v, want %d", len(r.calls), r.calls, len(want.calls))
			}
			for i, w := range want.calls {
				g := r.calls[i]
				if w.frames == 0 {
					g.frames = 0
				}
				if w.normalized == "" && g.normalized != "" && w.args == g.normalized {
					// Expectation written as the normalised form.
					w.args, w.normalized = g.args, g.normalized
				}
				if g != w {
					t.Errorf("call %d:\n got %+v\nwant %+v", i, g, w)
				}
			}
		})
	}
	for rel := range chatStreamWant {
		if !seen[rel] {
			t.Errorf("expectation for %s matched no fixture", rel)
		}
	}
}

// Novita sends a name with no arguments key and then "{}"; a call whose
// arguments never come is reported as missing and normalised to "{}".
func TestToolCallMissingArguments(t *testing.T) {
	var chunk ChatChunk
	a := NewToolCallAssembler(ToolCallLimits{})
	if err := chunk.Decode([]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x:0","type":"function","function":{"name":"llm_version"}}]}}]}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Add(1, chunk.Choices[0].ToolCalls); err != nil {
		t.Fatal(err)
	}
	a.Finish()
	c := a.Call(0)
	if !c.ArgumentsMissing() || string(c.NormalizedArguments()) != "{}" || !c.argumentsValid() || len(c.Arguments) != 0 {
		t.Fatalf("missing arguments: %+v", c)
	}
	if !errors.Is(func() error { _, err := a.Add(2, chunk.Choices[0].ToolCalls); return err }(), ErrCallAlreadyComplete) {
		t.Fatal("a delta after Finish must fail")
	}
}

// argumentsValid reports whether NormalizedArguments is valid JSON. A
// completed call with invalid arguments (a truncated stream, a provider
// bug) should be refused rather than judged on a guess.
func (c *ToolCall) argumentsValid() bool { return gjson.ValidBytes(c.NormalizedArguments()) }
