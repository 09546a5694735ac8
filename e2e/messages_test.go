package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

func messagesStreams(t *testing.T) []fixtures.Fixture {
	t.Helper()
	streams := fixtures.List(t, fixtures.APIAnthropic, fixtures.KindSSE)
	if len(streams) < 4 {
		t.Fatalf("found only %d Anthropic streams among the fixtures", len(streams))
	}
	return streams
}

func messagesPlainFixtures(t *testing.T) []fixtures.Fixture {
	t.Helper()
	plain := fixtures.List(t, fixtures.APIAnthropic, fixtures.KindJSON)
	if len(plain) < 1 {
		t.Fatal("found no Anthropic response among the fixtures")
	}
	return plain
}

// TestMessagesRecordedStreamsPassThroughUnchanged replays every recorded
// Anthropic stream through hookgate with no hook and under an allowing
// hook: the client receives the upstream's bytes, and the Go SDK assembles
// exactly what it assembles from the mock directly.
func TestMessagesRecordedStreamsPassThroughUnchanged(t *testing.T) {
	for _, policy := range []struct{ name, doc string }{{"no hooks", ""}, {"an allowing hook", allowEveryTool}} {
		t.Run(policy.name, func(t *testing.T) {
			s := startMessagesStack(t, policy.doc)
			for _, f := range messagesStreams(t) {
				body := f.Read(t)
				t.Run(f.Rel, func(t *testing.T) {
					for _, c := range chunkings {
						s.mock.Enqueue(mockupstream.Stream(body, c))
						status, _, got := postMessages(t, s.app.URL(), messagesStreamBody, nil)
						if status != 200 || !bytes.Equal(got, body) {
							t.Fatalf("%s: status %d; the relayed bytes differ from the upstream's:\n%s", c.Mode, status, firstDiff(got, body))
						}
					}
					s.mock.Enqueue(mockupstream.Stream(body, chunkings[0]))
					direct := anthropicStream(t, s.mock.URL(), "")
					if direct.Err != "" || len(direct.ToolUses) == 0 {
						t.Fatalf("the SDK could not read the recording directly: %s", direct)
					}
					s.mock.Enqueue(mockupstream.Stream(body, chunkings[2]))
					if proxied := anthropicStream(t, s.app.URL(), ""); !reflect.DeepEqual(proxied, direct) {
						t.Fatalf("through hookgate the SDK assembled something else\ndirect:  %s\nproxied: %s", direct, proxied)
					}
				})
			}
			for _, f := range messagesPlainFixtures(t) {
				body := f.Read(t)
				s.mock.Enqueue(mockupstream.JSON(200, body))
				status, _, got := postMessages(t, s.app.URL(), `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`, nil)
				if status != 200 || !bytes.Equal(got, body) {
					t.Fatalf("%s: status %d: %s", f.Rel, status, firstDiff(got, body))
				}
			}
		})
	}
}

func TestMessagesRecordedToolUsesUnderABlockingHook(t *testing.T) {
	s := startMessagesStack(t, blockEveryTool)
	check := func(t *testing.T, got, direct msgOutcome, want []msgToolUse) {
		t.Helper()
		if got.Err != "" || len(got.ToolUses) != 0 || got.StopReason != "end_turn" {
			t.Fatalf("blocked calls reached the agent, or the stop stayed tool_use: %s", got)
		}
		for _, c := range want {
			if note := "[hookgate] tool call " + c.Name + " blocked by block-all: no tools today"; !strings.Contains(got.Text, note) {
				t.Errorf("text lacks %q: %q", note, got.Text)
			}
		}
		// The blocked tool_use blocks are gone and their notes join the
		// last text block, or make one when the message ends otherwise.
		var types []string
		for _, typ := range direct.Types {
			if typ != "tool_use" {
				types = append(types, typ)
			}
		}
		if n := len(types); n == 0 || types[n-1] != "text" {
			types = append(types, "text")
		}
		if !strings.HasPrefix(got.Text, direct.Text) || got.Thinking != direct.Thinking || got.Signature != direct.Signature || strings.Join(got.Types, ",") != strings.Join(types, ",") {
			t.Errorf("text, thinking or its signature changed, or blocks went missing:\ndirect: %s\ngot:    %s\nwant blocks %v", direct, got, types)
		}
	}
	for _, f := range messagesStreams(t) {
		body := f.Read(t)
		t.Run(f.Rel, func(t *testing.T) {
			s.mock.Enqueue(mockupstream.Stream(body, chunkings[0]))
			direct := anthropicStream(t, s.mock.URL(), "")
			s.mock.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.Random, Size: 61, Seed: 3}))
			check(t, anthropicStream(t, s.app.URL(), ""), direct, recordedToolUses(t, body))
		})
	}
	for _, f := range messagesPlainFixtures(t) {
		body := f.Read(t)
		t.Run(f.Rel, func(t *testing.T) {
			s.mock.Enqueue(mockupstream.JSON(200, body))
			direct := anthropicPlain(t, s.mock.URL(), "")
			s.mock.Enqueue(mockupstream.JSON(200, body))
			check(t, anthropicPlain(t, s.app.URL(), ""), direct, recordedPlainToolUses(t, body))
		})
	}
}

func TestMessagesRecordedToolUsesUnderARewritingHook(t *testing.T) {
	s := startMessagesStack(t, rewriteEveryTool)
	for _, f := range messagesStreams(t) {
		body := f.Read(t)
		t.Run(f.Rel, func(t *testing.T) {
			s.mock.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 7}))
			got := anthropicStream(t, s.app.URL(), "")
			if want := stamped(recordedToolUses(t, body)); got.Err != "" || got.StopReason != "tool_use" || !reflect.DeepEqual(got.ToolUses, want) {
				t.Fatalf("got %s\nwant %+v", got, want)
			}
		})
	}
	for _, f := range messagesPlainFixtures(t) {
		body := f.Read(t)
		t.Run(f.Rel, func(t *testing.T) {
			s.mock.Enqueue(mockupstream.JSON(200, body))
			got := anthropicPlain(t, s.app.URL(), "")
			if want := stamped(recordedPlainToolUses(t, body)); got.Err != "" || got.StopReason != "tool_use" || !reflect.DeepEqual(got.ToolUses, want) {
				t.Fatalf("got %s\nwant %+v", got, want)
			}
		})
	}
}

// TestMessagesTextArrivesWhileACallIsHeld reads the stream as it arrives:
// the text before a tool_use reaches the agent while the call's hook is
// still deciding, and heartbeats keep the held stream alive.
func TestMessagesTextArrivesWhileACallIsHeld(t *testing.T) {
	script := t.TempDir() + "/slow-allow.sh"
	writeExecutable(t, script, "#!/bin/sh\ncat >/dev/null\nsleep 0.6\necho '{\"decision\":\"allow\"}'\n")
	s := startMessagesStack(t, "timeouts:\n  heartbeat: 100ms\nhooks:\n  - id: slow\n    event: pre_tool_use\n    timeout_ms: 5000\n    handler:\n      type: command\n      command: ["+script+"]\n")
	body := fixtureBytes(t, "anthropic/vertex-claude37-streamrawpredict-tool-use.sse")
	s.mock.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	req, err := newPost(s.app.URL()+"/v1/messages", []byte(messagesStreamBody), map[string]string{"anthropic-version": "2023-06-01"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err := httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var textAt, toolAt time.Duration
	heartbeats := 0
	var got bytes.Buffer
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		got.WriteString(line + "\n")
		switch {
		case strings.Contains(line, `"text_delta"`) && textAt == 0:
			textAt = time.Since(start)
		case strings.Contains(line, `"type":"tool_use"`) && toolAt == 0:
			toolAt = time.Since(start)
		case strings.HasPrefix(line, ": hookgate: holding a tool call"):
			heartbeats++
		}
	}
	if textAt == 0 || toolAt == 0 || toolAt-textAt < 400*time.Millisecond {
		t.Fatalf("the text (at %s) did not arrive well before the held call (at %s):\n%s", textAt, toolAt, got.String())
	}
	if heartbeats < 3 {
		t.Fatalf("%d heartbeats during a 600ms hold at 100ms", heartbeats)
	}
	s.mock.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	if o := anthropicStream(t, s.app.URL(), ""); o.Err != "" || len(o.ToolUses) != 1 {
		t.Fatalf("the SDK through heartbeats: %s", o)
	}
}

func fixtureBytes(t *testing.T, rel string) []byte {
	t.Helper()
	for _, f := range fixtures.All(t) {
		if f.Rel == rel {
			return f.Read(t)
		}
	}
	t.Fatalf("no fixture %s", rel)
	return nil
}

// answerMessage is a plain final answer with the given text.
func answerMessage(text string) []byte {
	return []byte(`{"id":"msg_answer","type":"message","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"` + text + `"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":3}}`)
}

// answerStream is the same answer streamed in two text deltas.
func answerStream(text string) []byte {
	half := len(text) / 2
	return []byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_answer\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: ping\ndata: {\"type\": \"ping\"}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + text[:half] + "\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + text[half:] + "\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":3}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
}

func TestMessagesSessionContextIsInEverySystemOfTheSession(t *testing.T) {
	s := startMessagesStack(t, `hooks:
  - id: house-rules
    event: session_start
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "allow", additionalContext: "House rules for " + e.sessionId + " (" + e.provider + "): never touch production." }; }
`)
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, answerMessage("ok"))))
	const history = `{"role":"user","content":"fix the bug"},{"role":"assistant","content":[{"type":"text","text":"done"}]},{"role":"user","content":[{"type":"text","text":"thanks","cache_control":{"type":"ephemeral"}}]}`
	for _, c := range []struct {
		session, system string
		want            func(sys gjson.Result, rules string) bool
	}{
		{"s-string", `"system":"You are a coding agent.",`, func(sys gjson.Result, rules string) bool {
			return sys.String() == rules+"\n\nYou are a coding agent."
		}},
		{"s-blocks", `"system":[{"type":"text","text":"You are Claude Code."},{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],`, func(sys gjson.Result, rules string) bool {
			return sys.Raw == `[{"type":"text","text":"`+rules+`"},{"type":"text","text":"You are Claude Code."},{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}]`
		}},
		{"s-none", ``, func(sys gjson.Result, rules string) bool { return sys.Raw == `"`+rules+`"` }},
	} {
		t.Run(c.session, func(t *testing.T) {
			s.mock.Reset()
			turns := []string{
				`{"model":"claude","max_tokens":9,` + c.system + `"messages":[{"role":"user","content":"fix the bug"}]}`,
				`{"model":"claude","max_tokens":9,` + c.system + `"messages":[` + history + `]}`,
				`{"model":"claude","max_tokens":9,` + c.system + `"messages":[` + history + `,{"role":"assistant","content":"ok"},{"role":"user","content":"bye"}]}`,
			}
			for _, body := range turns {
				if status, _, got := postMessages(t, s.app.URL(), body, map[string]string{"X-Session-Id": c.session}); status != 200 {
					t.Fatalf("status %d: %s", status, got)
				}
			}
			reqs := s.mock.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d upstream requests", len(reqs))
			}
			rules := "House rules for " + c.session + " (anthropic): never touch production."
			for i, r := range reqs {
				sys := gjson.GetBytes(r.Body, "system")
				if !c.want(sys, rules) {
					t.Fatalf("request %d: system %s", i, sys.Raw)
				}
				if sys.Raw != gjson.GetBytes(reqs[0].Body, "system").Raw {
					t.Errorf("request %d: the system changed between requests of the session", i)
				}
			}
			if got := gjson.GetBytes(reqs[1].Body, "messages.2.content").Raw; got != `[{"type":"text","text":"thanks","cache_control":{"type":"ephemeral"}}]` {
				t.Errorf("the agent's cache_control marker moved: %s", got)
			}
		})
	}
}

const messagesToolHistory = `{"role":"user","content":"list files"},` +
	`{"role":"assistant","content":[{"type":"text","text":"Sure."},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"0123456789abcdef"}]}]}`

func TestMessagesToolResultFiresOnceAcrossResentHistory(t *testing.T) {
	var seen counter
	url := seen.serve(t)
	s := startMessagesStack(t, `hooks:
  - id: result-log
    event: post_tool_use
    handler:
      type: http
      url: `+url+`
  - id: shorten
    event: post_tool_use
    allow_mutation: [toolResult]
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "rewrite", updatedResult: e.toolResult.slice(0, 5) + "...[cut]" }; }
`)
	s.mock.Handle(mockupstream.Always(mockupstream.Stream(answerStream("two files"), mockupstream.Chunking{Mode: mockupstream.PerEvent})))
	for i, extra := range []string{"", `,{"role":"assistant","content":"two files"},{"role":"user","content":"and now?"}`, `,{"role":"assistant","content":"two files"},{"role":"user","content":"and now?"},{"role":"assistant","content":"still two"},{"role":"user","content":"ok"}`} {
		body := `{"model":"claude","max_tokens":9,"stream":true,"messages":[` + messagesToolHistory + extra + `]}`
		if status, _, got := postMessages(t, s.app.URL(), body, map[string]string{"X-Session-Id": "s-tools"}); status != 200 {
			t.Fatalf("turn %d: %d %s", i, status, got)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for seen.count("toolCallId", "toolu_1") < 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // room for a wrong second delivery to arrive
	if n := seen.count("toolCallId", "toolu_1"); n != 1 {
		t.Fatalf("post_tool_use for toolu_1 fired %d times across three turns, want 1", n)
	}
	seen.mu.Lock()
	ev := seen.events[0]
	seen.mu.Unlock()
	// The logger observes after the synchronous hooks: it sees the result
	// as shortened.
	if ev["toolName"] != "Bash" || ev["toolResult"] != "01234...[cut]" || ev["provider"] != "anthropic" || !reflect.DeepEqual(ev["toolInput"], map[string]any{"command": "ls"}) {
		t.Fatalf("event: %v", ev)
	}
	for i, r := range s.mock.Requests() {
		if got := gjson.GetBytes(r.Body, "messages.2.content.0.content").String(); got != "01234...[cut]" {
			t.Errorf("request %d: tool result %q, want the rewrite on every resend", i, got)
		}
	}
}

func TestMessagesDisclaimerIsAppendedToFinalAnswers(t *testing.T) {
	s := startMessagesStack(t, disclaimerPolicy)
	want := "Buy low, sell high.\n\nThis is not financial advice."
	s.mock.Enqueue(mockupstream.Stream(answerStream("Buy low, sell high."), mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 3}))
	if got := anthropicStream(t, s.app.URL(), ""); got.Text != want || got.StopReason != "end_turn" {
		t.Errorf("stream: %s", got)
	}
	s.mock.Enqueue(mockupstream.JSON(200, answerMessage("Buy low, sell high.")))
	if got := anthropicPlain(t, s.app.URL(), ""); got.Text != want || got.StopReason != "end_turn" {
		t.Errorf("plain: %s", got)
	}
	// A message that still carries a tool call is not a final answer.
	body := fixtureBytes(t, "anthropic/messages-text-then-two-tool-use-ping-padding.sse")
	s.mock.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	if got := anthropicStream(t, s.app.URL(), ""); strings.Contains(got.Text, "financial") || len(got.ToolUses) != 2 {
		t.Errorf("tool-use stream: %s", got)
	}
	s.mock.Enqueue(mockupstream.JSON(200, fixtureBytes(t, "anthropic/messages-two-tool-use.json")))
	if got := anthropicPlain(t, s.app.URL(), ""); strings.Contains(got.Text, "financial") || len(got.ToolUses) != 2 {
		t.Errorf("tool-use message: %s", got)
	}
}

// TestMessagesTruncatedStreamIsAnSDKError: an upstream that dies
// mid-stream is an error for the SDK, never a clean end, whether hookgate
// was relaying text or holding a tool call when it died.
func TestMessagesTruncatedStreamIsAnSDKError(t *testing.T) {
	body := fixtureBytes(t, "anthropic/messages-text-then-two-tool-use-ping-padding.sse")
	plain := fixtureBytes(t, "anthropic/messages-two-tool-use.json")
	cuts := map[string]int{
		"mid text":            bytes.Index(body, []byte(`" multiply the numbers"`)),
		"mid tool block":      bytes.Index(body, []byte(`, \"b\"`)),
		"before message_stop": bytes.Index(body, []byte("event: message_stop")),
	}
	for _, p := range []struct{ name, policy string }{{"no hooks", ""}, {"a tool hook holding calls", allowEveryTool}} {
		t.Run(p.name, func(t *testing.T) {
			s := startMessagesStack(t, p.policy)
			for name, at := range cuts {
				// The connection cut, and the body ending cleanly too early:
				// both are truncations.
				cut := mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 9})
				cut.Fault, cut.FaultAt = mockupstream.Cut, at
				for how, r := range map[string]mockupstream.Response{"cut": cut, "short": mockupstream.Stream(body[:at], mockupstream.Chunking{Mode: mockupstream.PerEvent})} {
					s.mock.Enqueue(r)
					got := anthropicStream(t, s.app.URL(), "")
					if got.Err == "" {
						t.Errorf("%s %s: the SDK ended cleanly: %s", how, name, got)
					} else if !strings.Contains(got.Err, "stream_truncated") {
						t.Errorf("%s %s: the SDK raised, but not hookgate's error event: %s", how, name, got.Err)
					}
				}
			}
			r := mockupstream.JSON(200, plain)
			r.Fault, r.FaultAt = mockupstream.Cut, len(plain)/2
			s.mock.Enqueue(r)
			if got := anthropicPlain(t, s.app.URL(), ""); got.Err == "" {
				t.Errorf("cut plain body: the SDK got %s", got)
			}
		})
	}
}

func TestMessagesBlockedPromptGetsANormalMessage(t *testing.T) {
	s := startMessagesStack(t, `hooks:
  - id: no-secrets-talk
    event: user_prompt_submit
    if_expr: "prompt.contains('password')"
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "prompts about passwords are not allowed" }; }
`)
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, answerMessage("fine"))))
	for name, read := range map[string]func(*testing.T, string, string) msgOutcome{"stream": anthropicStream, "plain": anthropicPlain} {
		if got := read(t, s.app.URL(), "what is the admin password?"); got.Err != "" || got.Text != "prompts about passwords are not allowed" || got.StopReason != "end_turn" {
			t.Fatalf("%s: %s", name, got)
		}
	}
	if n := len(s.mock.Requests()); n != 0 {
		t.Fatalf("a blocked prompt reached the upstream %d times", n)
	}
	if got := anthropicPlain(t, s.app.URL(), "what is the weather?"); got.Err != "" || got.Text != "fine" {
		t.Fatalf("allowed prompt: %s", got)
	}
}

// TestMessagesErrorsAreAnthropicShaped: what hookgate answers itself on
// this route is an Anthropic error, which the SDK reads as its own.
func TestMessagesErrorsAreAnthropicShaped(t *testing.T) {
	s := startMessagesStack(t, oneHook)
	status, _, body := postMessages(t, s.app.URL(), `{"model":"m","messages":[`, nil)
	if status != 400 || gjson.GetBytes(body, "type").String() != "error" || gjson.GetBytes(body, "error.type").String() != "invalid_request_error" ||
		!strings.HasPrefix(gjson.GetBytes(body, "error.message").String(), "invalid_json: ") {
		t.Fatalf("malformed JSON: %d %s", status, body)
	}
	// The SDK reads it as an API error with the status.
	down := startApp(t, "listen: 127.0.0.1:0\nadmin: {listen: '127.0.0.1:0'}\nupstreams:\n  - name: gone\n    provider: anthropic\n    base_url: http://127.0.0.1:1\n"+oneHook)
	_, err := anthropicClient(down.URL()).Messages.New(t.Context(), messageParams(""))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadGateway || !strings.Contains(apiErr.Error(), "upstream_unreachable") {
		t.Fatalf("unreachable upstream: %v", err)
	}
	status, _, body = postMessages(t, down.URL(), `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`, nil)
	if status != 502 || gjson.GetBytes(body, "error.type").String() != "api_error" {
		t.Fatalf("unreachable upstream: %d %s", status, body)
	}
	// Batches, which hookgate cannot read, stay refused; counting tokens
	// generates nothing and passes.
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, []byte(`{"input_tokens":3}`))))
	if status, _, body := rawPost(t, s.app.URL(), "/v1/messages/batches", []byte(`{"requests":[]}`), nil); status != 403 {
		t.Fatalf("batches: %d %s", status, body)
	}
	if status, _, body := rawPost(t, s.app.URL(), "/v1/messages/count_tokens", []byte(`{"model":"m","messages":[]}`), nil); status != 200 || string(body) != `{"input_tokens":3}` {
		t.Fatalf("count_tokens: %d %s", status, body)
	}
}

func TestMessagesUpstreamKeyIsSwappedAndAnthropicHeadersPass(t *testing.T) {
	s := startMessagesStack(t, allowEveryTool)
	s.mock.Enqueue(mockupstream.JSON(200, answerMessage("ok")))
	postMessages(t, s.app.URL(), `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`, map[string]string{"anthropic-beta": "interleaved-thinking-2025-05-14"})
	reqs := s.mock.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests upstream", len(reqs))
	}
	h := reqs[0].Header
	if h.Values("x-api-key")[0] != messagesUpstreamKey || len(h.Values("x-api-key")) != 1 || h.Get("anthropic-version") != "2023-06-01" ||
		h.Get("anthropic-beta") != "interleaved-thinking-2025-05-14" || reqs[0].Path != "/v1/messages" {
		t.Fatalf("upstream request %s with headers %v", reqs[0].Path, h)
	}
	// Node's fetch sends header names in lower case; a bearer token (Claude
	// Code's ANTHROPIC_AUTH_TOKEN) must not travel beside the swapped key.
	s.mock.Enqueue(mockupstream.JSON(200, answerMessage("ok")))
	req, err := newPost(s.app.URL()+"/v1/messages", []byte(`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header["authorization"] = []string{"Bearer sk-ant-client-token"}
	req.Header["x-api-key"] = []string{"sk-ant-client-canary"}
	resp, err := httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h = s.mock.Requests()[1].Header
	if got := h.Values("x-api-key"); len(got) != 1 || got[0] != messagesUpstreamKey || h.Get("authorization") != "" {
		t.Fatalf("the client's credentials went upstream: %v", h)
	}
}
