package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/fixtures"
	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/providers"
)

// Policies every recorded stream is run under.
const (
	allowEveryTool = `hooks:
  - id: allow-all
    event: pre_tool_use
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "allow" }; }
`
	blockEveryTool = `hooks:
  - id: block-all
    event: pre_tool_use
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "no tools today" }; }
`
	rewriteEveryTool = `hooks:
  - id: stamp
    event: pre_tool_use
    allow_mutation: [toolInput.audited]
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "rewrite", updatedInput: { audited: true } }; }
`
)

// expectedCall is a tool call as the recording carries it, put together by
// the codec's assembler (tested against every fixture on its own).
type expectedCall struct {
	ID, Name string
	Args     map[string]any
}

// recordedCalls assembles the tool calls of a recorded stream.
func recordedCalls(t *testing.T, body []byte) []expectedCall {
	t.Helper()
	p := providers.NewSSEParser(0)
	asm := providers.NewToolCallAssembler(providers.ToolCallLimits{})
	var chunk providers.ChatChunk
	p.Feed(body)
	p.End()
	for {
		f, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		if f == nil {
			break
		}
		if !f.HasData() || f.Done || chunk.Decode(f.Data) != nil {
			continue
		}
		for _, ch := range chunk.Choices {
			if len(ch.ToolCalls) > 0 {
				if _, err := asm.Add(f.Seq, ch.ToolCalls); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	asm.Finish()
	var out []expectedCall
	for _, c := range asm.Calls() {
		args := map[string]any{}
		if err := json.Unmarshal(c.NormalizedArguments(), &args); err != nil {
			t.Fatalf("recorded call %s has arguments that are not an object: %s", c.Name, c.Arguments)
		}
		out = append(out, expectedCall{ID: c.ID, Name: c.Name, Args: args})
	}
	return out
}

// toolFixtures are the recorded chat streams that carry tool calls and end
// cleanly (the ones ending in an upstream error, and the ones hookgate
// refuses, are covered elsewhere).
func toolFixtures(t *testing.T) []fixtures.Fixture {
	var out []fixtures.Fixture
	for _, f := range fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindSSE) {
		if strings.Contains(f.Name, "error") || refusedRecordings[f.Rel] != "" {
			continue
		}
		if len(recordedCalls(t, f.Read(t))) > 0 {
			out = append(out, f)
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d recorded streams with tool calls", len(out))
	}
	return out
}

func argsOf(t *testing.T, s string) map[string]any {
	t.Helper()
	m := map[string]any{}
	if strings.TrimSpace(s) == "" {
		return m
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("the client received arguments that are not JSON: %q", s)
	}
	return m
}

func TestRecordedToolCallsUnderAnAllowingHookPassByteForByte(t *testing.T) {
	s := startStack(t, allowEveryTool)
	for _, f := range toolFixtures(t) {
		body := f.Read(t)
		t.Run(f.Rel, func(t *testing.T) {
			for _, c := range chunkings {
				s.mock.Enqueue(mockupstream.Stream(body, c))
				status, _, got := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`), nil)
				if status != 200 || !bytes.Equal(got, body) {
					t.Fatalf("%s: status %d; allowed calls did not pass byte for byte:\n%s", c.Mode, status, firstDiff(got, body))
				}
			}
		})
	}
}

func TestRecordedToolCallsUnderABlockingHook(t *testing.T) {
	s := startStack(t, blockEveryTool)
	for _, f := range toolFixtures(t) {
		body := f.Read(t)
		want := recordedCalls(t, body)
		t.Run(f.Rel, func(t *testing.T) {
			for name, read := range map[string]func(*testing.T, string) assembled{"go-openai": goOpenAIStream, "openai-go": openaiGoStream} {
				s.mock.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent}))
				direct := read(t, s.mock.URL())
				if len(direct.ToolCalls) == 0 {
					t.Logf("%s cannot read this recording's tool calls even directly; skipped for it", name)
					continue
				}
				s.mock.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.Random, Size: 61, Seed: 3}))
				got := read(t, s.app.URL())
				if got.Err != "" {
					t.Fatalf("the client got an error: %s", got.Err)
				}
				if len(got.ToolCalls) != 0 {
					t.Fatalf("blocked calls reached the client: %s", got)
				}
				for _, c := range want {
					note := fmt.Sprintf("[hookgate] tool call %s blocked by block-all: no tools today", c.Name)
					if !strings.Contains(got.Content, note) {
						t.Errorf("content lacks %q: %q", note, got.Content)
					}
				}
				for _, fr := range got.Finish {
					if fr == "tool_calls" {
						t.Errorf("finish_reason stayed tool_calls with every call blocked: %v", got.Finish)
					}
				}
				if len(direct.Finish) > 0 && len(got.Finish) == 0 {
					t.Errorf("%s: read directly the recording finishes, but through hookgate the client got no finish_reason", name)
				}
			}
		})
	}
}

func TestRecordedToolCallsUnderARewritingHook(t *testing.T) {
	s := startStack(t, rewriteEveryTool)
	for _, f := range toolFixtures(t) {
		body := f.Read(t)
		want := recordedCalls(t, body)
		t.Run(f.Rel, func(t *testing.T) {
			s.mock.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 7}))
			got := goOpenAIStream(t, s.app.URL())
			if got.Err != "" || len(got.ToolCalls) != len(want) {
				t.Fatalf("got %d calls, want %d: %s", len(got.ToolCalls), len(want), got)
			}
			for i, c := range want {
				g := got.ToolCalls[i]
				wantArgs := c.Args
				wantArgs["audited"] = true
				if g.Name != c.Name || g.ID != c.ID || g.Index != fmt.Sprint(i) || !reflect.DeepEqual(argsOf(t, g.Arguments), wantArgs) {
					t.Errorf("call %d: got index %s id %q name %q args %s; want id %q name %q args %v", i, g.Index, g.ID, g.Name, g.Arguments, c.ID, c.Name, wantArgs)
				}
			}
		})
	}
}

// TestTextIsNotDelayedByHeldCalls checks, in the bytes a client receives,
// that text deltas arrive before the held tool calls they preceded or
// interleaved with.
func TestTextIsNotDelayedByHeldCalls(t *testing.T) {
	s := startStack(t, rewriteEveryTool)
	spec := mockupstream.StreamSpec{TextDeltas: 8, ToolCalls: 2, ArgFragments: 6}
	s.mock.Enqueue(mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	_, _, got := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`), nil)
	lastText := bytes.LastIndex(got, []byte(`"content":"`))
	firstCall := bytes.Index(got, []byte(`"tool_calls"`))
	if lastText < 0 || firstCall < 0 || lastText > firstCall {
		t.Fatalf("text (last at %d) did not precede the held calls (first at %d):\n%s", lastText, firstCall, got)
	}
	s.mock.Enqueue(mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	if a := goOpenAIStream(t, s.app.URL()); a.Content != spec.Text() || len(a.ToolCalls) != 2 {
		t.Fatalf("the client assembled %s; want the text %q and 2 calls", a, spec.Text())
	}
}
