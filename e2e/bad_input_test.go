package e2e

// Hardening, bad input: malformed and hostile requests and
// streams end in a clear OpenAI-shaped error or a clean stream end, never a
// panic, never a tool call that was not judged, memory bounded by the
// configured limits.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// denyShell blocks destructive shell commands in any tool's command field.
const denyShell = `hooks:
  - id: deny-shell
    event: pre_tool_use
    handler:
      type: builtin
      name: deny_patterns
      with: {defaults: [shell]}
`

// hgAlive asserts the proxy still answers a normal streamed request.
func hgAlive(t *testing.T, s *stack) {
	t.Helper()
	s.mock.Enqueue(mockupstream.Stream(mockupstream.StreamSpec{TextDeltas: 2}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	status, body := hgPostStream(t, s, nil)
	if status != 200 || !bytes.HasSuffix(body, []byte("data: [DONE]\n\n")) {
		t.Fatalf("the proxy no longer serves a plain stream: %d\n%s", status, hgShort(body))
	}
}

func TestHardeningMalformedRequestsGetOpenAIErrors(t *testing.T) {
	s := startStack(t, denyShell)
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, []byte(`{}`))))
	deep := strings.Repeat(`[`, 10000) + strings.Repeat(`]`, 10000)
	for name, body := range map[string]string{
		"truncated":             `{"model":"m","messages":[{"role":"user","content":"x"`,
		"not json":              `model=m&messages=x`,
		"empty":                 ``,
		"null":                  `null`,
		"array":                 `[{"model":"m"}]`,
		"trailing garbage":      `{"model":"m","messages":[]} {"model":"evil"}`,
		"NUL in a string":       "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\x00b\"}]}",
		"NUL after the object":  "{\"model\":\"m\",\"messages\":[]}\x00",
		"duplicate messages":    `{"model":"m","messages":[{"role":"user","content":"hi"}],"messages":[{"role":"user","content":"rm -rf /"}]}`,
		"duplicate content":     `{"model":"m","messages":[{"role":"user","content":"hi","content":"other"}]}`,
		"messages not an array": `{"model":"m","messages":{"0":{"role":"user","content":"hi"}}}`,
		"nested 10,000 deep":    `{"model":"m","messages":[],"metadata":` + deep + `}`,
		"lone high surrogate":   `{"model":"m","messages":[{"role":"user","content":"\ud800"}],"x":` + "\x01" + `}`,
	} {
		t.Run(name, func(t *testing.T) {
			status, _, got := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(body), nil)
			if status != 400 {
				t.Fatalf("status %d, want 400: %s", status, got)
			}
			checkOpenAIError(t, got, "invalid_json")
		})
	}
	if n := len(s.mock.Requests()); n != 0 {
		t.Fatalf("%d malformed requests reached the upstream", n)
	}
	// Invalid UTF-8 inside a string is still JSON (RFC 8259 leaves it to
	// the reader): hookgate forwards it and hooks read it byte for byte.
	status, _, got := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe rm\"}]}"), nil)
	if status != 200 {
		t.Fatalf("invalid UTF-8 in a string: %d %s", status, got)
	}
	hgAlive(t, s)
}

// The 413 must reach a client that is still sending its body: a server
// that answers early and closes at once resets the connection, and the
// client then sees "connection reset" instead of the answer. All 10
// clients must read it, in the OpenAI error shape.
func TestHardeningOversizedRequestGets413(t *testing.T) {
	s := startStack(t, denyShell) // limits.max_request_bytes: default 32 MiB
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, []byte(`{}`))))
	huge := strings.Repeat("a", 50*mib)
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"exec","arguments":"{\"command\":\"` + huge + `\"}"}}]}]}`)

	// Every upload goes on a new connection: a kept-alive one (from the
	// stack's readiness probes) can be closed by the server just as it is
	// reused, and a chunked POST is not retried, so the client would report
	// EOF for a reason this test is not about.
	fresh := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	// send posts the body with a Content-Length, or chunked (no length:
	// the limit must then hold while reading).
	send := func(chunked bool) (int, []byte, error) {
		var rd io.Reader = bytes.NewReader(body)
		if chunked {
			rd = struct{ io.Reader }{rd}
		}
		req, _ := http.NewRequest(http.MethodPost, s.app.URL()+"/v1/chat/completions", rd)
		req.Header.Set("Content-Type", "application/json")
		resp, err := fresh.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	var lost []string
	for _, chunked := range []bool{false, true} {
		for range 5 {
			status, got, err := send(chunked)
			if err != nil {
				lost = append(lost, fmt.Sprintf("chunked=%v: %v", chunked, err))
				continue
			}
			if status != 413 {
				t.Fatalf("chunked=%v: status %d: %s", chunked, status, got)
			}
			checkOpenAIError(t, got, "request_too_large")
		}
	}
	if n := len(s.mock.Requests()); n != 0 {
		t.Fatalf("%d oversized requests reached the upstream", n)
	}
	hgAlive(t, s)
	if len(lost) > 0 {
		// proxy/linger.go closes such connections lingering (half-close,
		// then read and discard the rest for a bounded time and size).
		t.Fatalf("%d of 10 clients never saw the 413 (the connection was reset before they read it):\n  %s", len(lost), strings.Join(lost, "\n  "))
	}
}

// An upstream event larger than limits.max_event_bytes (default 8 MiB) ends
// the stream with an error event; the call it carried never reaches the
// client, and the proxy holds at most about one event in memory.
func TestHardeningHugeToolArgumentsInAStream(t *testing.T) {
	s := startStack(t, allowEveryTool)
	args := `{"command":"echo ` + strings.Repeat("x", 50*mib) + `"}`
	oneEvent := hgSSE(hgChunk(`{"role":"assistant","content":"big: "}`, ""), hgChunk(hgCall(0, "call_big", "exec", args), ""), hgChunk(`{}`, "tool_calls"))
	base := hgHeap()
	stop := make(chan struct{})
	peak := hgPeakHeap(stop)
	s.mock.Enqueue(mockupstream.Stream(oneEvent, mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 64 << 10}))
	allocated := hgTotalAlloc()
	status, body := hgPostStream(t, s, nil)
	allocated = hgTotalAlloc() - allocated
	close(stop)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	hgEndsWithError(t, body, "event_too_large")
	if bytes.Contains(body, []byte("call_big")) || len(body) > mib {
		t.Fatalf("the oversized call (or %d bytes of it) reached the client", len(body))
	}
	grew := int64(<-peak) - int64(base)
	t.Logf("one 50 MiB event: %d MiB allocated in all (mock, proxy and client), peak heap %+d MiB over the baseline (sampled every 20 ms)", allocated/mib, grew/mib)
	if allocated > 40*mib || grew > 40*mib {
		t.Errorf("%d MiB allocated, peak heap %+d MiB, while refusing a 50 MiB event: it was buffered whole", allocated/mib, grew/mib)
	}

	// The same arguments in 64 KiB fragments: each event is small, the
	// call's cap (4 MiB) stops it.
	var frags []string
	frags = append(frags, hgChunk(hgCall(0, "call_frag", "exec", `{"command":"echo `), ""))
	piece := strings.Repeat("y", 64<<10)
	for range 800 { // 50 MiB
		frags = append(frags, hgChunk(hgCall(0, "", "", piece), ""))
	}
	frags = append(frags, hgChunk(hgCall(0, "", "", `"}`), ""), hgChunk(`{}`, "tool_calls"))
	s.mock.Enqueue(mockupstream.Stream(hgSSE(frags...), mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 256 << 10}))
	status, body = hgPostStream(t, s, nil)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	hgEndsWithError(t, body, "invalid_tool_call")
	if bytes.Contains(body, []byte("call_frag")) {
		t.Fatalf("the oversized call reached the client")
	}
	hgAlive(t, s)
}

// 1,000 parallel calls in one response: the assembler's cap (128 per
// choice) ends the stream with an error event; the destructive call at the
// end is never emitted, nor any [DONE].
func TestHardeningThousandParallelToolCalls(t *testing.T) {
	s := startStack(t, denyShell)
	var evs []string
	for i := range 1000 {
		cmd := fmt.Sprintf("echo %d", i)
		if i == 999 {
			cmd = "rm -rf /"
		}
		evs = append(evs, hgChunk(hgCall(i, fmt.Sprintf("call_%d", i), "exec", `{"command":"`+cmd+`"}`), ""))
	}
	evs = append(evs, hgChunk(`{}`, "tool_calls"))
	s.mock.Enqueue(mockupstream.Stream(hgSSE(evs...), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	status, body := hgPostStream(t, s, nil)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	hgEndsWithError(t, body, "invalid_tool_call")
	if bytes.Contains(body, []byte("rm -rf")) || bytes.Contains(body, []byte(`"finish_reason":"`)) {
		t.Fatalf("the 1000th call or a finish reached the client:\n%s", hgShort(body))
	}
	t.Logf("streamed: %d of 1000 calls went out before the cap ended the stream", bytes.Count(body, []byte(`"id":"call_`)))

	// The same in a plain response: every call is judged, the destructive
	// one is blocked.
	var calls []mockupstream.ToolCall
	for i := range 1000 {
		cmd := fmt.Sprintf("echo %d", i)
		if i == 999 {
			cmd = "rm -rf /"
		}
		calls = append(calls, mockupstream.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "exec", Arguments: `{"command":"` + cmd + `"}`})
	}
	s.mock.Enqueue(mockupstream.JSON(200, mockupstream.StreamSpec{Calls: calls}.Completion()))
	start := time.Now()
	status, _, plain := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"go"}]}`), nil)
	if bytes.Contains(plain, []byte("rm -rf")) {
		t.Fatalf("plain: the destructive call passed (status %d)", status)
	}
	n := gjson.GetBytes(plain, "choices.0.message.tool_calls.#").Int()
	t.Logf("plain: status %d, %d calls kept, in %s", status, n, time.Since(start).Round(time.Millisecond))
	if status == 200 && n != 999 {
		t.Fatalf("plain: %d calls kept, want 999: %s", n, hgShort(plain))
	}
	hgAlive(t, s)
}

// Arguments nested 10,000 deep: judged or refused, never a crash, and a
// destructive command inside them never passes.
func TestHardeningDeeplyNestedArguments(t *testing.T) {
	s := startStack(t, denyShell)
	nest := func(depth int) string {
		return `{"command":"rm -rf /","deep":` + strings.Repeat(`{"a":`, depth) + `1` + strings.Repeat(`}`, depth) + `}`
	}
	for _, depth := range []int{300, 10000, 20000} {
		t.Run(fmt.Sprint(depth), func(t *testing.T) {
			args := nest(depth)
			s.mock.Enqueue(mockupstream.Stream(hgSSE(hgChunk(hgCall(0, "call_deep", "exec", args), ""), hgChunk(`{}`, "tool_calls")), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
			status, body := hgPostStream(t, s, nil)
			if status != 200 {
				t.Fatalf("status %d", status)
			}
			if bytes.Contains(body, []byte("call_deep")) {
				t.Fatalf("a destructive call nested %d deep passed", depth)
			}
			if !bytes.Contains(body, []byte("[hookgate] tool call exec blocked")) {
				t.Fatalf("no block note:\n%s", hgShort(body))
			}
			t.Logf("depth %d: blocked: %s", depth, gjson.Get(hgEvents(body)[0], "choices.0.delta.content").String())

			s.mock.Enqueue(mockupstream.JSON(200, mockupstream.StreamSpec{Calls: []mockupstream.ToolCall{{ID: "call_deep", Name: "exec", Arguments: args}}}.Completion()))
			status, _, plain := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"go"}]}`), nil)
			if bytes.Contains(plain, []byte(`"id":"call_deep"`)) {
				t.Fatalf("plain: a destructive call nested %d deep passed (status %d)", depth, status)
			}
		})
	}
	hgAlive(t, s)
}

// Look-alike tool names. A deny-list keyed on "^exec$" must not be dodged
// by a name an agent may map back to exec (compare a confusable
// skeleton, or refuse non-ASCII names when the policy names only ASCII
// ones). Which names get through is reported.
func TestHardeningLookAlikeToolNames(t *testing.T) {
	s := startStack(t, `hooks:
  - id: no-exec
    event: pre_tool_use
    matcher: "^exec$"
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "exec is not allowed" }; }
`)
	names := map[string]string{
		"cyrillic e (U+0435)":     "\u0435xec",
		"fullwidth (U+FF45...)":   "\uff45\uff58\uff45\uff43",
		"zero-width space suffix": "exec\u200b",
		"upper case":              "EXEC",
		"combining mark":          "exe\u0301c",
		"trailing space":          "exec ",
		"math sans-serif e":       "\U0001d5bexec",
	}
	var dodged []string
	for label, name := range names {
		s.mock.Enqueue(mockupstream.Stream(hgSSE(hgChunk(hgCall(0, "call_x", name, `{"command":"id"}`), ""), hgChunk(`{}`, "tool_calls")), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
		_, body := hgPostStream(t, s, nil)
		if bytes.Contains(body, []byte(`"id":"call_x"`)) {
			dodged = append(dodged, fmt.Sprintf("%s %q", label, name))
		}
	}
	// The plain name is blocked, as a control.
	s.mock.Enqueue(mockupstream.Stream(hgSSE(hgChunk(hgCall(0, "call_x", "exec", `{"command":"id"}`), ""), hgChunk(`{}`, "tool_calls")), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	if _, body := hgPostStream(t, s, nil); bytes.Contains(body, []byte(`"id":"call_x"`)) {
		t.Fatalf("exec itself passed")
	}
	if len(dodged) > 0 {
		t.Fatalf("a matcher \"^exec$\" was dodged by look-alike tool names: %s", strings.Join(dodged, "; "))
	}
}

// Duplicate, missing and odd indices and ids: with every call blocked, no
// tool call reaches the client whatever the framing, and the stream ends
// well-formed.
func TestHardeningOddIndicesAndIDsNeverLeakACall(t *testing.T) {
	s := startStack(t, blockEveryTool)
	cases := map[string][]string{
		"same index, same id twice": {
			hgChunk(hgCall(0, "call_a", "exec", `{"command":`), ""), hgChunk(hgCall(0, "call_a", "exec", `"ls"}`), ""),
		},
		"same index, two ids": {
			hgChunk(hgCall(0, "call_a", "exec", `{"command":"ls"}`), ""), hgChunk(hgCall(0, "call_b", "exec", `{"command":"id"}`), ""),
		},
		"no index, no id": {
			hgChunk(hgCall(-1, "", "exec", `{"command":"ls"}`), ""), hgChunk(hgCall(-1, "", "", `{"x":1}`), ""),
		},
		"index starts at 7": {
			hgChunk(hgCall(7, "call_a", "exec", `{"command":"ls"}`), ""), hgChunk(hgCall(3, "call_b", "exec", `{}`), ""),
		},
		"null id and name": {
			hgChunk(`{"tool_calls":[{"index":0,"id":null,"type":"function","function":{"name":null,"arguments":"{}"}}]}`, ""),
		},
		"interleaved": {
			hgChunk(hgCall(0, "call_a", "exec", `{"command":`), ""), hgChunk(hgCall(1, "call_b", "exec", `{"command":`), ""),
			hgChunk(hgCall(0, "", "", `"ls"}`), ""), hgChunk(hgCall(1, "", "", `"id"}`), ""),
		},
		"two entries, one delta": {
			hgChunk(`{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"exec","arguments":"{}"}},{"index":0,"id":"call_b","function":{"name":"exec","arguments":"{}"}}]}`, ""),
		},
		"negative and huge index": {
			hgChunk(`{"tool_calls":[{"index":-1,"id":"call_a","function":{"name":"exec","arguments":"{}"}},{"index":99999999999999999999,"id":"call_b","function":{"name":"exec","arguments":"{}"}}]}`, ""),
		},
	}
	for name, evs := range cases {
		t.Run(name, func(t *testing.T) {
			s.mock.Enqueue(mockupstream.Stream(hgSSE(append(evs, hgChunk(`{}`, "tool_calls"))...), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
			status, body := hgPostStream(t, s, nil)
			if status != 200 {
				t.Fatalf("status %d", status)
			}
			if bytes.Contains(body, []byte(`"tool_calls"`)) {
				t.Fatalf("a tool call reached the client under a block-everything policy:\n%s", hgShort(body))
			}
			// A negative or overflowing index is read differently by
			// clients, so that stream ends with unreadable_chunk.
			if !bytes.HasSuffix(body, []byte("data: [DONE]\n\n")) && !bytes.Contains(body, []byte(`"code":"invalid_tool_call"`)) &&
				(name != "negative and huge index" || !bytes.Contains(body, []byte(`"code":"unreadable_chunk"`))) {
				t.Fatalf("the stream neither finished nor failed cleanly:\n%s", hgShort(body))
			}
		})
	}
	hgAlive(t, s)
}

// Chunks hookgate cannot decode are relayed as they came. That is safe only
// if no client would read a tool call out of them; these would, and so must
// never reach the client unjudged (the agent would run the call).
func TestHardeningUndecodableChunksNeverCarryAnUnjudgedCall(t *testing.T) {
	s := startStack(t, blockEveryTool)
	call := `{"tool_calls":[{"index":0,"id":"call_evil","type":"function","function":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}}]}`
	withCall := `{"id":"chatcmpl-hg","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + call + `,"finish_reason":null}]}`
	cases := map[string]string{
		// A plain syntax error: no client reads it either (hookgate relays
		// such a chunk, or stops the stream when it names tool_calls).
		"syntax error (control)": "data: {\"choices\":[{\"index\":0,\"delta\":" + call + "\n\n",
		// Repeated keys: clients keep the last "choices" (hookgate stops
		// the stream since 6d239be).
		"duplicate choices": `data: {"id":"chatcmpl-hg","choices":[],"choices":[{"index":0,"delta":` + call + `,"finish_reason":null}]}` + "\n\n",
		// A top-level "error" that is not null marks an in-band error, which
		// is relayed as is; openai-node/python only raise when it is truthy.
		`"error":false beside choices`: `data: {"error":false,` + withCall[1:] + "\n\n",
		// An "event: error" frame whose data is a normal chunk; go-openai
		// ignores the event line and reads the chunk.
		"event: error carrying a chunk": "event: error\ndata: " + withCall + "\n\n",
		// A call arriving after its choice finished (the finish is queued
		// behind the held calls, the late delta must not slip past).
		"a call after the finish": hgChunk(`{}`, "tool_calls") + `data: ` + withCall + "\n\n",
		// A call on a second choice.
		"a call on choice 1": `data: {"id":"chatcmpl-hg","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":1,"delta":` + call + `,"finish_reason":null}]}` + "\n\n",
		// encoding/json (go-openai) matches keys case-insensitively.
		"case-variant keys": `data: {"id":"chatcmpl-hg","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"Tool_Calls":[{"index":0,"id":"call_evil","type":"function","function":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}}]},"finish_reason":null}]}` + "\n\n",
	}
	var leaks []string
	for name, ev := range cases {
		body := hgSSE(hgChunk(`{"role":"assistant","content":"ok"}`, ""), ev, hgChunk(`{}`, "tool_calls"))
		r := mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent})
		s.mock.Enqueue(r, r)
		a := goOpenAIStream(t, s.app.URL())
		for _, c := range a.ToolCalls {
			if c.ID == "call_evil" {
				leaks = append(leaks, fmt.Sprintf("%s: go-openai assembled %s(%s)", name, c.Name, c.Arguments))
			}
		}
		_, raw := hgPostStream(t, s, nil)
		relayed := bytes.Contains(raw, []byte("call_evil"))
		if name == "syntax error (control)" {
			if len(a.ToolCalls) > 0 {
				t.Fatalf("control: a syntax error carried a call: %s", a)
			}
			continue
		}
		if relayed {
			leaks = append(leaks, fmt.Sprintf("%s: the chunk carrying the call was relayed as it came", name))
		}
	}
	if len(leaks) > 0 {
		t.Fatalf("with a block-everything hook these tool calls reached the agent unjudged:\n  %s", strings.Join(leaks, "\n  "))
	}
}

// Malformed chunks mid-stream (a syntax error, NUL bytes, invalid UTF-8)
// are relayed as they came, the stream goes on, and a later tool call is
// still judged. A bare CR line ending, which clients split differently,
// ends the stream with ambiguous_stream instead, and the call after it
// never goes out.
func TestHardeningMalformedChunksMidStream(t *testing.T) {
	s := startStack(t, denyShell)
	evs := []string{
		hgChunk(`{"role":"assistant","content":"a"}`, ""),
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\x00\"}}]}\n\n",
		hgChunk("{\"content\":\"\xff\xfe\"}", ""),
		"data: [DONE]x\n\n",
		hgChunk(hgCall(0, "call_rm", "exec", `{"command":"rm -rf /"}`), ""),
		hgChunk(hgCall(1, "call_ls", "exec", `{"command":"ls"}`), ""),
		hgChunk(`{}`, "tool_calls"),
	}
	body := hgSSE(evs...)
	s.mock.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.Random, Size: 7, Seed: 9}))
	status, got := hgPostStream(t, s, nil)
	if status != 200 || !bytes.HasSuffix(got, []byte("data: [DONE]\n\n")) {
		t.Fatalf("status %d, the stream did not finish:\n%s", status, got)
	}
	for _, ev := range evs[1:5] {
		if !bytes.Contains(got, []byte(ev)) {
			t.Errorf("a malformed event was not relayed as it came: %q", ev)
		}
	}
	if bytes.Contains(got, []byte("call_rm")) || !bytes.Contains(got, []byte("call_ls")) || !bytes.Contains(got, []byte("blocked by deny-shell")) {
		t.Fatalf("the call after the malformed chunks was not judged:\n%s", got)
	}

	bareCR := hgSSE(hgChunk(`{"role":"assistant","content":"a"}`, ""),
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"c\"}}]}\r\r",
		hgChunk(hgCall(0, "call_rm", "exec", `{"command":"rm -rf /"}`), ""), hgChunk(`{}`, "tool_calls"))
	s.mock.Enqueue(mockupstream.Stream(bareCR, mockupstream.Chunking{Mode: mockupstream.Random, Size: 7, Seed: 9}))
	status, got = hgPostStream(t, s, nil)
	if status != 200 || !bytes.Contains(got, []byte(`"code":"ambiguous_stream"`)) || bytes.Contains(got, []byte("call_rm")) || bytes.Contains(got, []byte("[DONE]")) {
		t.Fatalf("status %d: a bare-CR event did not end the stream with ambiguous_stream, or the call after it went out:\n%s", status, got)
	}
}
