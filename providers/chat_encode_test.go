package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// flatten maps every leaf of a JSON document to its raw bytes, keyed by
// its gjson path, so two documents can be compared member by member.
func flatten(t testing.TB, raw []byte) map[string]string {
	t.Helper()
	if !gjson.ValidBytes(raw) {
		t.Fatalf("invalid JSON: %s", raw)
	}
	out := map[string]string{}
	var walk func(prefix string, v gjson.Result)
	walk = func(prefix string, v gjson.Result) {
		if v.IsObject() || v.IsArray() {
			empty := true
			v.ForEach(func(k, val gjson.Result) bool {
				empty = false
				key := k.String()
				if v.IsArray() {
					key = k.Raw
					if key == "" {
						key = itoa(int(k.Num))
					}
				}
				if prefix != "" {
					key = prefix + "." + key
				}
				walk(key, val)
				return true
			})
			if empty {
				out[prefix] = strings.TrimSpace(v.Raw)
			}
			return
		}
		out[prefix] = v.Raw
	}
	walk("", gjson.ParseBytes(raw))
	return out
}

// diffKeys lists the paths whose values differ between a and b.
func diffKeys(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			d = append(d, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, k)
		}
	}
	return d
}

func chatDataFrames(t *testing.T, fx fixtures.Fixture) [][]byte {
	t.Helper()
	var out [][]byte
	in := fx.Read(t)
	if fx.Kind == fixtures.KindChunks {
		return append(out, bytes.Split(bytes.TrimRight(in, "\n"), []byte("\n"))...)
	}
	p := NewSSEParser(0)
	p.Feed(in)
	p.End()
	for f, err := p.Next(); f != nil || err != nil; f, err = p.Next() {
		if err != nil {
			t.Fatal(err)
		}
		if f.HasData() && !f.Done {
			out = append(out, bytes.Clone(f.Data))
		}
	}
	return out
}

func chatStreamFixtures(t *testing.T) []fixtures.Fixture {
	return append(fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindSSE),
		fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindChunks)...)
}

// Stripping removes exactly the tool_calls members, nothing else moves.
func TestStripToolCallsFixtures(t *testing.T) {
	stripped := 0
	for _, fx := range chatStreamFixtures(t) {
		for i, data := range chatDataFrames(t, fx) {
			orig := bytes.Clone(data)
			out, keep, err := StripToolCalls(data)
			if err != nil {
				t.Fatalf("%s #%d: %v", fx.Rel, i, err)
			}
			if !bytes.Equal(data, orig) {
				t.Fatalf("%s #%d: input modified", fx.Rel, i)
			}
			if len(out) > 0 && len(data) > 0 && &out[0] == &data[0] {
				t.Fatalf("%s #%d: result aliases input", fx.Rel, i)
			}
			var view ChatChunk
			if err := view.Decode(data); err != nil {
				t.Fatal(err)
			}
			if !view.HasToolCalls() {
				if !bytes.Equal(out, data) {
					t.Errorf("%s #%d: chunk without tool calls changed", fx.Rel, i)
				}
				continue
			}
			stripped++
			fo := flatten(t, out)
			for _, k := range diffKeys(flatten(t, data), fo) {
				// A delta holding only tool_calls is left as {}.
				emptied := fo[k] == "{}" && (strings.HasSuffix(k, ".delta") || strings.HasSuffix(k, ".message"))
				if !strings.Contains(k, ".tool_calls") && !emptied {
					t.Errorf("%s #%d: %s changed", fx.Rel, i, k)
				}
			}
			if gjson.GetBytes(out, "choices.#.delta.tool_calls").Raw != "[]" {
				t.Errorf("%s #%d: tool_calls left: %s", fx.Rel, i, out)
			}
			// Whatever the flag says must match a direct reading.
			g := gjson.ParseBytes(out)
			want := g.Get("usage").Type == gjson.JSON || g.Get("error").Exists()
			g.Get("choices").ForEach(func(_, c gjson.Result) bool {
				if c.Get("delta.content").String() != "" || c.Get("finish_reason").String() != "" {
					want = true
				}
				c.Get("delta").ForEach(func(k, v gjson.Result) bool {
					if k.String() != "role" && k.String() != "content" && meaningful([]byte(v.Raw)) {
						want = true
					}
					return true
				})
				return true
			})
			if keep != want {
				t.Errorf("%s #%d: meaningful=%v, want %v: %s", fx.Rel, i, keep, want, out)
			}
		}
	}
	if stripped < 150 {
		t.Fatalf("only %d chunks with tool calls stripped", stripped)
	}
}

func TestEncodeToolCallChunk(t *testing.T) {
	for _, fx := range chatStreamFixtures(t) {
		frames := chatDataFrames(t, fx)
		for i, tmpl := range frames {
			call := ToolCallOut{Index: 1, ID: "call_x\"1", Name: "run_cmd", Arguments: "{\"cmd\":\"echo \\\"hi\\\"\\n\"}"}
			out, err := EncodeToolCallChunk(tmpl, 0, call)
			if err != nil {
				t.Fatalf("%s #%d: %v", fx.Rel, i, err)
			}
			checkSingleChoice(t, fx.Rel, tmpl, out)
			var view ChatChunk
			if err := view.Decode(out); err != nil {
				t.Fatal(err)
			}
			if len(view.Choices) != 1 || len(view.Choices[0].ToolCalls) != 1 {
				t.Fatalf("%s #%d: %s", fx.Rel, i, out)
			}
			d := view.Choices[0].ToolCalls[0]
			if d.Index != 1 || d.ID.Text() != call.ID || d.Name.Text() != call.Name || d.Arguments.Text() != call.Arguments || !d.Type.Equal("function") {
				t.Errorf("%s #%d: round trip %+v", fx.Rel, i, d)
			}
			if tr := gjson.GetBytes(tmpl, "choices.0.delta.role"); tr.Exists() && gjson.GetBytes(out, "choices.0.delta.role").Raw != tr.Raw {
				t.Errorf("%s #%d: role lost", fx.Rel, i)
			}
			txt, err := EncodeContentChunk(tmpl, 0, "blocked: \"rm\"\n")
			if err != nil {
				t.Fatal(err)
			}
			checkSingleChoice(t, fx.Rel, tmpl, txt)
			if gjson.GetBytes(txt, "choices.0.delta.content").String() != "blocked: \"rm\"\n" {
				t.Errorf("%s #%d: content %s", fx.Rel, i, txt)
			}
		}
	}
}

// checkSingleChoice asserts a synthesised chunk is encoded fresh: the
// template's id, created, model and system_fingerprint, one choice with
// index, delta and a null finish_reason, and nothing else of the template.
func checkSingleChoice(t *testing.T, rel string, tmpl, out []byte) {
	t.Helper()
	if !gjson.ValidBytes(out) {
		t.Fatalf("%s: invalid JSON %s", rel, out)
	}
	a, b := gjson.ParseBytes(tmpl), gjson.ParseBytes(out)
	var keys []string
	b.ForEach(func(k, _ gjson.Result) bool { keys = append(keys, k.String()); return true })
	want := []string{"id", "object", "created", "model", "system_fingerprint", "choices"}
	if a.Get("system_fingerprint").Type != gjson.String {
		want = without(want, "system_fingerprint")
	}
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Errorf("%s: top-level keys %v, want %v", rel, keys, want)
	}
	for _, k := range []string{"id", "model", "system_fingerprint"} {
		if av := a.Get(k); av.Type == gjson.String && b.Get(k).Str != av.Str {
			t.Errorf("%s: %s %s -> %s", rel, k, av.Raw, b.Get(k).Raw)
		}
	}
	if c := a.Get("created"); c.Type == gjson.Number && b.Get("created").Int() != c.Int() {
		t.Errorf("%s: created %s -> %s", rel, c.Raw, b.Get("created").Raw)
	}
	if n := len(b.Get("choices").Array()); n != 1 {
		t.Errorf("%s: %d choices", rel, n)
	}
	var ck []string
	b.Get("choices.0").ForEach(func(k, _ gjson.Result) bool { ck = append(ck, k.String()); return true })
	if strings.Join(ck, ",") != "index,delta,finish_reason" || b.Get("choices.0.finish_reason").Type != gjson.Null {
		t.Errorf("%s: choice %s", rel, b.Get("choices.0").Raw)
	}
}

func without(s []string, x string) []string {
	var out []string
	for _, v := range s {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

func TestSetChunkFinishReason(t *testing.T) {
	cases := []struct {
		in, reason, want string
	}{
		{`{"id":"a","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls","native_finish_reason":"tool_calls"}]}`, "stop",
			`{"id":"a","choices":[{"index":0,"delta":{},"finish_reason":"stop","native_finish_reason":"stop"}]}`},
		{`{"id":"a","choices":[{"delta":{},"index":1}, {"index":0,"delta":{"content":"x"},"finish_reason":null}]}`, "stop",
			`{"id":"a","choices":[{"delta":{},"index":1}, {"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}`},
		{`{"id":"a","choices":[],"usage":{"total_tokens":3}}`, "stop",
			`{"id":"a","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"total_tokens":3}}`},
		{`{"id":"a","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "",
			`{"id":"a","choices":[{"index":0,"delta":{},"finish_reason":null}]}`},
	}
	for _, c := range cases {
		got, err := SetChunkFinishReason([]byte(c.in), 0, c.reason)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("SetChunkFinishReason(%s, %q)\n got %s\nwant %s", c.in, c.reason, got, c.want)
		}
	}
	if _, err := SetChunkFinishReason([]byte(`{"choices":`), 0, "stop"); err == nil {
		t.Error("invalid JSON accepted")
	}
}

func TestErrorBodies(t *testing.T) {
	msg := "tool \"rm\" blocked:\n<policy>\x01"
	b := ErrorBody(msg, "hookgate_blocked", "")
	var v struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if v.Error.Message != msg || v.Error.Type != "hookgate_blocked" || v.Error.Code != nil {
		t.Fatalf("decoded %+v from %s", v, b)
	}
}

// sdkToolCalls runs a stream through openai-go's SSE decoder and chunk
// accumulator, as an agent would, and returns choice 0's tool calls.
func sdkToolCalls(t *testing.T, body []byte) []openai.ChatCompletionMessageToolCallUnion {
	t.Helper()
	res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(body))}
	stream := ssestream.NewStream[openai.ChatCompletionChunk](ssestream.NewDecoder(res), nil)
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("SDK: %v\n%s", err, body)
	}
	if len(acc.Choices) == 0 {
		return nil
	}
	return acc.Choices[0].Message.ToolCalls
}

// An agent SDK reading a rewritten stream (tool-call deltas held back,
// chunks left empty dropped, calls re-emitted whole with
// EncodeToolCallChunk before the finish chunk) ends with the calls the
// fixture really carries. On several originals the same SDK goes wrong:
// it merges Mistral's index-less calls into one, concatenates Novita's
// repeated names, and invents an empty call 0 before o4-mini's index 1.
func TestRewrittenStreamThroughOpenAISDK(t *testing.T) {
	nonEmpty := 0
	for _, fx := range fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindSSE) {
		if len(chatStreamWant[fx.Rel].calls) == 0 {
			continue
		}
		t.Run(fx.Rel, func(t *testing.T) {
			var out bytes.Buffer
			a := NewToolCallAssembler(ToolCallLimits{})
			var view ChatChunk
			var template []byte
			emitted := false
			emitCalls := func() {
				a.Finish()
				for _, c := range a.Calls() {
					b, err := EncodeToolCallChunk(template, 0, ToolCallOut{Index: c.Ordinal, ID: c.ID, Name: c.Name, Arguments: string(c.NormalizedArguments())})
					if err != nil {
						t.Fatal(err)
					}
					out.Write(FrameSSEData(b))
				}
				emitted = true
			}
			for i, data := range chatDataFrames(t, fx) {
				if err := view.Decode(data); err != nil {
					t.Fatal(err)
				}
				if ch := view.choice(0); ch != nil {
					if len(ch.ToolCalls) > 0 {
						if template == nil {
							template = bytes.Clone(data)
						}
						if _, err := a.Add(uint64(i), ch.ToolCalls); err != nil {
							t.Fatal(err)
						}
						s, keep, err := StripToolCalls(data)
						if err != nil {
							t.Fatal(err)
						}
						if !keep {
							continue
						}
						data = s
					}
					if ch.Finished() && !emitted {
						emitCalls()
					}
				}
				out.Write(FrameSSEData(data))
			}
			if !emitted {
				emitCalls()
			}
			out.WriteString(SSEDone)

			orig := sdkToolCalls(t, fx.Read(t))
			got := sdkToolCalls(t, out.Bytes())
			want := chatStreamWant[fx.Rel].calls
			if len(orig) == 0 {
				// openai-go drops every chunk whose id differs from the
				// first one; Avian's first chunk has its own id.
				if len(got) != 0 {
					t.Fatalf("SDK saw nothing in the original but %d calls rewritten", len(got))
				}
				t.Logf("the SDK accumulates no call from this stream, original or rewritten")
				return
			}
			nonEmpty++
			if len(got) != len(want) {
				t.Fatalf("SDK saw %d calls in the rewritten stream, want %d (original: %d)\n%s", len(got), len(want), len(orig), out.Bytes())
			}
			for i, w := range want {
				g := got[i]
				args := w.args
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				if g.ID != w.id || g.Function.Name != w.name || g.Function.Arguments != args {
					t.Errorf("call %d: SDK read %q %q %s, want %q %q %s", i, g.ID, g.Function.Name, g.Function.Arguments, w.id, w.name, args)
				}
			}
		})
	}
	if nonEmpty < 15 {
		t.Errorf("the SDK accumulated calls from only %d original fixtures", nonEmpty)
	}
}

// Pins why re-emitting whole calls matters: openai-go reading the original
// streams gets them wrong. If the SDK learns better, this test says so.
func TestOpenAISDKMisreadsOriginals(t *testing.T) {
	if got := sdkToolCalls(t, readFixture(t, "mistral/chat-parallel-calls-no-index-single-delta.sse")); len(got) != 1 {
		t.Errorf("mistral: SDK saw %d calls (expected its merge into 1)", len(got))
	}
	if got := sdkToolCalls(t, readFixture(t, "openrouter/chat-novita-kimi-id-name-repeated.sse")); len(got) != 1 || got[0].Function.Name != "llm_versionllm_version" {
		t.Errorf("novita: SDK saw %+v (expected a doubled name)", got)
	}
	if got := sdkToolCalls(t, readFixture(t, "openrouter/chat-o4mini-index-starts-at-1-finish-stop.sse")); len(got) != 2 || got[0].Function.Name != "" {
		t.Errorf("o4-mini: SDK saw %d calls (expected an empty call 0 before index 1)", len(got))
	}
	if got := sdkToolCalls(t, readFixture(t, "avian/chat-kimi-reasoning-tool.sse")); len(got) != 0 {
		t.Errorf("avian: SDK saw %d calls (expected none: the chunk id changes after the first chunk)", len(got))
	}
}

func TestEncodersRefuseBadTemplates(t *testing.T) {
	for _, tmpl := range []string{`{"choices":`, `[]`, `{"choices":[{"index":0}],"choices":[]}`} {
		if _, err := EncodeToolCallChunk([]byte(tmpl), 0, ToolCallOut{}); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("EncodeToolCallChunk(%s): %v", tmpl, err)
		}
		if _, err := EncodeContentChunk([]byte(tmpl), 0, "x"); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("EncodeContentChunk(%s): %v", tmpl, err)
		}
		if _, err := SetChunkFinishReason([]byte(tmpl), 0, "stop"); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("SetChunkFinishReason(%s): %v", tmpl, err)
		}
		if _, _, err := StripToolCalls([]byte(tmpl)); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("StripToolCalls(%s): %v", tmpl, err)
		}
	}
	// A template without the choice gets a fresh one.
	out, err := EncodeToolCallChunk([]byte(`{"id":"x","choices":[],"usage":{"total_tokens":1}}`), 2, ToolCallOut{Index: 0, ID: "c", Name: "f", Arguments: "{}"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"x","object":"chat.completion.chunk","created":0,"model":"","choices":[{"index":2,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":null}]}`; string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

// choice returns the choice whose Index is index, or nil.
func (c *ChatChunk) choice(index int) *ChunkChoice {
	for i := range c.Choices {
		if c.Choices[i].Index == index {
			return &c.Choices[i]
		}
	}
	return nil
}
