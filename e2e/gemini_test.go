package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"google.golang.org/genai"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// The Gemini API is read through its codec: these tests drive Google's
// own Go client (google.golang.org/genai) through hookgate against the
// recordings in fixtures/gemini-native, and take what the client reads
// as the verdict.

const (
	geminiParallel  = "gemini-native/streamgeneratecontent-parallel-functioncalls-crlf.sse"
	geminiSignature = "gemini-native/streamgeneratecontent-functioncall-thought-signature-crlf.sse"

	blockMultiply = `hooks:
  - id: no-multiply
    event: pre_tool_use
    handler:
      type: script
      source: |
        function handle(e) { return e.toolName === "multiply" ? { decision: "block", reason: "no multiplying" } : { decision: "allow" }; }
`
	blockAdd = `hooks:
  - id: no-add
    event: pre_tool_use
    handler:
      type: script
      source: |
        function handle(e) { return e.toolName === "add" ? { decision: "block", reason: "no adding" } : { decision: "allow" }; }
`
)

// startGeminiStack starts a mock Gemini upstream and hookgate in front of
// it, with an upstream key hookgate swaps in.
func startGeminiStack(t *testing.T, extra string) *stack {
	t.Helper()
	t.Setenv("E2E_GEMINI_KEY", "upstream-key")
	mock := mockupstream.Start(t)
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: google\n    provider: gemini\n    base_url: " + mock.URL() + "\n    api_key_env: E2E_GEMINI_KEY\n" + extra
	return &stack{mock: mock, app: startApp(t, doc)}
}

// geminiFixture reads a recording.
func geminiFixture(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "shared", "fixtures", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// geminiClient is genai's client aimed at base.
func geminiClient(t *testing.T, base string) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "client-key", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: base},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// geminiRead is what genai's client read from a stream or a response.
type geminiRead struct {
	calls      []*genai.FunctionCall
	signatures map[string][]byte // thoughtSignature by the name of the call that carries it
	text       string
	err        error
}

func (r *geminiRead) add(resp *genai.GenerateContentResponse) {
	for _, c := range resp.Candidates {
		if c.Content == nil {
			continue
		}
		for _, p := range c.Content.Parts {
			if p.FunctionCall != nil {
				r.calls = append(r.calls, p.FunctionCall)
				if len(p.ThoughtSignature) > 0 {
					r.signatures[p.FunctionCall.Name] = p.ThoughtSignature
				}
			}
			if p.Text != "" && !p.Thought {
				r.text += p.Text
			}
		}
	}
}

func (r *geminiRead) names() []string {
	var out []string
	for _, c := range r.calls {
		out = append(out, c.Name)
	}
	return out
}

func geminiStream(t *testing.T, c *genai.Client) *geminiRead {
	t.Helper()
	r := &geminiRead{signatures: map[string][]byte{}}
	for resp, err := range c.Models.GenerateContentStream(context.Background(), "gemini-2.5-flash", genai.Text("add 2 and 3, and multiply them"), nil) {
		if err != nil {
			r.err = err
			break
		}
		r.add(resp)
	}
	return r
}

func geminiGenerate(t *testing.T, c *genai.Client) *geminiRead {
	t.Helper()
	r := &geminiRead{signatures: map[string][]byte{}}
	resp, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text("add 2 and 3, and multiply them"), nil)
	if err != nil {
		r.err = err
		return r
	}
	r.add(resp)
	return r
}

// With an allowing hook, every recorded stream reaches genai byte for
// byte; the upstream is sent hookgate's key, never the client's.
func TestGeminiRecordedStreamsPassThroughUnchanged(t *testing.T) {
	s := startGeminiStack(t, allowEveryTool)
	for _, rel := range []string{geminiParallel, geminiSignature} {
		body := geminiFixture(t, rel)
		for _, c := range chunkings {
			s.mock.Enqueue(mockupstream.Stream(body, c))
			status, _, got := rawPost(t, s.app.URL(), "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=client-key", []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`), nil)
			if status != 200 || !bytes.Equal(got, body) {
				t.Fatalf("%s, %s: status %d; the relayed bytes differ:\n%s", rel, c.Mode, status, firstDiff(got, body))
			}
		}
	}
	s.mock.Enqueue(mockupstream.Stream(geminiFixture(t, geminiParallel), chunkings[0]))
	read := geminiStream(t, geminiClient(t, s.app.URL()))
	if read.err != nil || strings.Join(read.names(), ",") != "add,multiply" {
		t.Fatalf("genai read %v (err %v), want add and multiply", read.names(), read.err)
	}
	for _, r := range s.mock.Requests() {
		if r.Header.Get("X-Goog-Api-Key") != "upstream-key" || strings.Contains(r.URI, "client-key") {
			t.Fatalf("the upstream was sent %s with key %q", r.URI, r.Header.Get("X-Goog-Api-Key"))
		}
	}
}

// A blocked call of a parallel pair never reaches genai, streamed or not;
// its note does, and the surviving call keeps (or, when the blocked one
// carried it, takes over) the turn's thought signature.
func TestGeminiBlockedParallelCallNeverReachesTheClient(t *testing.T) {
	want := geminiSignatureOf(t, geminiFixture(t, geminiParallel))
	for _, tc := range []struct {
		name, policy, kept, note string
	}{
		{"second blocked", blockMultiply, "add", "no multiplying"},
		{"first blocked, signature moves", blockAdd, "multiply", "no adding"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startGeminiStack(t, tc.policy)
			client := geminiClient(t, s.app.URL())
			for _, mode := range []string{"stream", "plain"} {
				var read *geminiRead
				if mode == "stream" {
					for _, c := range chunkings {
						s.mock.Enqueue(mockupstream.Stream(geminiFixture(t, geminiParallel), c))
						read = geminiStream(t, client)
						if read.err != nil || strings.Join(read.names(), ",") != tc.kept {
							t.Fatalf("stream, %s: genai read calls %v (err %v), want only %s", c.Mode, read.names(), read.err, tc.kept)
						}
					}
				} else {
					s.mock.Enqueue(mockupstream.JSON(200, geminiPlainBody(t, geminiFixture(t, geminiParallel))))
					read = geminiGenerate(t, client)
					if read.err != nil || strings.Join(read.names(), ",") != tc.kept {
						t.Fatalf("plain: genai read calls %v (err %v), want only %s", read.names(), read.err, tc.kept)
					}
				}
				if !strings.Contains(read.text, tc.note) {
					t.Errorf("%s: the answer's text %q lacks the block note", mode, read.text)
				}
				if !bytes.Equal(read.signatures[tc.kept], want) {
					t.Errorf("%s: the surviving call %s carries signature %q, want the turn's", mode, tc.kept, read.signatures[tc.kept])
				}
			}
		})
	}
}

// A rewrite reaches genai as the call's new arguments.
func TestGeminiRewrittenCallReachesTheClient(t *testing.T) {
	s := startGeminiStack(t, rewriteEveryTool)
	s.mock.Enqueue(mockupstream.Stream(geminiFixture(t, geminiParallel), chunkings[1]))
	read := geminiStream(t, geminiClient(t, s.app.URL()))
	if read.err != nil || len(read.calls) != 2 {
		t.Fatalf("genai read %v (err %v)", read.names(), read.err)
	}
	for _, c := range read.calls {
		if c.Args["audited"] != true || c.Args["a"] == nil {
			t.Errorf("call %s has args %v, want the original ones and audited", c.Name, c.Args)
		}
	}
}

// The default stream form, one JSON array, is held and judged as well:
// the array hookgate writes parses whole, without the blocked call.
func TestGeminiArrayStreamIsJudged(t *testing.T) {
	s := startGeminiStack(t, blockMultiply)
	frame := geminiPlainBody(t, geminiFixture(t, geminiParallel))
	array := []byte("[" + `{"candidates":[{"content":{"role":"model","parts":[{"text":"Let me "}]}}]}` + ",\r\n" + string(frame) + "]")
	for _, c := range chunkings {
		// Google serves this stream as application/json.
		r := mockupstream.Stream(array, c)
		r.Header = http.Header{"Content-Type": {"application/json; charset=UTF-8"}}
		s.mock.Enqueue(r)
		status, _, got := rawPost(t, s.app.URL(), "/v1beta/models/gemini-2.5-flash:streamGenerateContent", []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`), map[string]string{"x-goog-api-key": "client-key"})
		var elems []json.RawMessage
		if status != 200 || json.Unmarshal(got, &elems) != nil || len(elems) != 2 {
			t.Fatalf("%s: status %d, not a two-element array: %s", c.Mode, status, got)
		}
		if strings.Contains(string(got), "multiply") && !strings.Contains(string(got), "no multiplying") || gjson.GetBytes(got, `1.candidates.0.content.parts.#(functionCall.name=="multiply")`).Exists() {
			t.Fatalf("%s: the blocked call is in the array: %s", c.Mode, got)
		}
		if gjson.GetBytes(got, `1.candidates.0.content.parts.0.functionCall.name`).String() != "add" {
			t.Fatalf("%s: the allowed call is missing: %s", c.Mode, got)
		}
	}
}

// A stream that stops before its answer ends, or that carries a frame
// whose keys clients read differently, ends with Gemini's error, and no
// call hookgate could not judge reaches genai.
func TestGeminiBadStreamsFailClosed(t *testing.T) {
	s := startGeminiStack(t, allowEveryTool)
	client := geminiClient(t, s.app.URL())
	call := `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"add","args":{"a":1}}}]}}]}` + "\r\n\r\n"
	for _, tc := range []struct{ name, stream string }{
		{"no finish", call},
		{"variant spelling", `data: {"candidates":[{"content":{"role":"model","parts":[{"function_call":{"name":"add","args":{}}}]},"finishReason":"STOP"}]}` + "\r\n\r\n"},
		{"repeated key", `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"add","name":"rm","args":{}}}]},"finishReason":"STOP"}]}` + "\r\n\r\n"},
		{"two candidates", `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"a"}]}},{"content":{"role":"model","parts":[{"functionCall":{"name":"add","args":{}}}]},"finishReason":"STOP"}]}` + "\r\n\r\n"},
	} {
		s.mock.Enqueue(mockupstream.Stream([]byte(tc.stream), chunkings[0]))
		read := geminiStream(t, client)
		// The call of "no finish" is whole and allowed, so it may reach
		// the client before the stream is found cut short; the others are
		// refused before anything of them is judged.
		if read.err == nil || len(read.calls) != 0 && tc.name != "no finish" {
			t.Errorf("%s: genai read calls %v and error %v, want an error and no call", tc.name, read.names(), read.err)
		}
	}
}

// Session context goes into systemInstruction, and pre_response's text
// joins a final answer.
func TestGeminiSessionContextAndDisclaimer(t *testing.T) {
	s := startGeminiStack(t, `hooks:
  - id: house-rules
    event: session_start
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "allow", additionalContext: "House rules: never touch production." }; }
  - id: disclaimer
    event: pre_response
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "allow", additionalContext: "(checked by hookgate)" }; }
`)
	answer := `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hello"}]}}]}` + "\r\n\r\n" +
		`data: {"candidates":[{"content":{"role":"model","parts":[{"text":" there."}]},"finishReason":"STOP"}],"usageMetadata":{"totalTokenCount":3}}` + "\r\n\r\n"
	s.mock.Enqueue(mockupstream.Stream([]byte(answer), chunkings[0]))
	read := geminiStream(t, geminiClient(t, s.app.URL()))
	if read.err != nil || read.text != "Hello there.\n\n(checked by hookgate)" {
		t.Fatalf("genai read %q (err %v), want the answer and the disclaimer", read.text, read.err)
	}
	reqs := s.mock.Requests()
	if len(reqs) != 1 || !strings.Contains(gjson.GetBytes(reqs[0].Body, "systemInstruction.parts.0.text").String(), "House rules") {
		t.Fatalf("the upstream was not sent the session context: %s", reqs[0].Body)
	}

	// An answer asked for as JSON is data a program parses: nothing is
	// added to it.
	structured := []byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"model\":\"flash\"}"}]},"finishReason":"STOP"}]}`)
	s.mock.Enqueue(mockupstream.JSON(200, structured))
	status, _, got := rawPost(t, s.app.URL(), "/v1beta/models/gemini-2.5-flash:generateContent",
		[]byte(`{"contents":[{"role":"user","parts":[{"text":"route me"}]}],"generationConfig":{"responseMimeType":"application/json"}}`), map[string]string{"x-goog-api-key": "k"})
	if status != 200 || !bytes.Equal(got, structured) {
		t.Fatalf("a structured answer was changed: %d %s", status, got)
	}
}

// geminiSignatureOf is the thought signature of a recording's first call.
func geminiSignatureOf(t *testing.T, sse []byte) []byte {
	t.Helper()
	frame := geminiPlainBody(t, sse)
	sig := gjson.GetBytes(frame, "candidates.0.content.parts.0.thoughtSignature").String()
	if sig == "" {
		t.Fatal("the recording's first call carries no thought signature")
	}
	var b []byte
	if err := json.Unmarshal([]byte(`"`+sig+`"`), &b); err != nil {
		t.Fatal(err)
	}
	return b
}

// geminiPlainBody is the recording's frame with the calls, as a whole
// generateContent response.
func geminiPlainBody(t *testing.T, sse []byte) []byte {
	t.Helper()
	for _, blk := range strings.Split(string(sse), "\r\n\r\n") {
		data, ok := strings.CutPrefix(blk, "data: ")
		if ok && strings.Contains(data, "functionCall") {
			return []byte(data)
		}
	}
	t.Fatal("no frame with a functionCall in the recording")
	return nil
}

// With tenants, a Gemini client's virtual key in x-goog-api-key names its
// tenant, whose hooks then judge the call; the key never travels upstream.
func TestGeminiTenantKeyInGoogleHeader(t *testing.T) {
	t.Setenv("E2E_GEMINI_KEY", "upstream-key")
	t.Setenv("E2E_K_G", "vk-gemini")
	mock := mockupstream.Start(t)
	a := startApp(t, "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: google\n    provider: gemini\n    base_url: "+mock.URL()+"\n    api_key_env: E2E_GEMINI_KEY\ntenants:\n  - {id: g, keys_env: E2E_K_G}\n"+blockMultiply)
	mock.Enqueue(mockupstream.Stream(geminiFixture(t, geminiParallel), chunkings[0]))
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "vk-gemini", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: a.URL()},
	})
	if err != nil {
		t.Fatal(err)
	}
	read := geminiStream(t, c)
	if read.err != nil || strings.Join(read.names(), ",") != "add" {
		t.Fatalf("genai read %v (err %v), want only add", read.names(), read.err)
	}
	reqs := mock.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("X-Goog-Api-Key") != "upstream-key" || strings.Contains(string(reqs[0].URI), "vk-gemini") {
		t.Fatalf("the upstream saw %d requests, key %q", len(reqs), reqs[0].Header.Get("X-Goog-Api-Key"))
	}
	for k, v := range reqs[0].Header {
		if strings.Contains(strings.Join(v, ","), "vk-gemini") {
			t.Fatalf("the virtual key travelled upstream in %s", k)
		}
	}
	c2, _ := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "vk-unknown", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: a.URL()},
	})
	var apiErr genai.APIError
	if r := geminiStream(t, c2); !errors.As(r.err, &apiErr) || apiErr.Code != 401 || !strings.HasPrefix(apiErr.Message, "invalid_api_key: ") || len(r.calls) != 0 {
		t.Fatalf("an unknown key: calls %v, error %#v, want Google's 401", r.names(), r.err)
	}
}

// While a call is held, an alt=sse stream carries empty blocks as
// heartbeats, which genai-go skips: it reads the call as sent.
func TestGeminiHeldCallKeepsTheStreamAlive(t *testing.T) {
	script := filepath.Join(t.TempDir(), "slow-allow.sh")
	writeExecutable(t, script, "#!/bin/sh\ncat >/dev/null\nsleep 0.6\necho '{\"decision\":\"allow\"}'\n")
	s := startGeminiStack(t, "timeouts:\n  heartbeat: 100ms\nhooks:\n  - id: slow\n    event: pre_tool_use\n    timeout_ms: 5000\n    handler:\n      type: command\n      command: ["+script+"]\n")
	body := geminiFixture(t, geminiParallel)
	s.mock.Enqueue(mockupstream.Stream(body, chunkings[0]))
	_, _, got := rawPost(t, s.app.URL(), "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`), map[string]string{"x-goog-api-key": "k"})
	// Every block ends in "\r\n\r\n"; those that are not frames are
	// heartbeats.
	if n := strings.Count(string(got), "\r\n\r\n") - strings.Count(string(got), "data: "); n < 3 {
		t.Fatalf("%d heartbeats during a 600ms hold at 100ms:\n%q", n, got)
	}
	s.mock.Enqueue(mockupstream.Stream(body, chunkings[0]))
	read := geminiStream(t, geminiClient(t, s.app.URL()))
	if read.err != nil || strings.Join(read.names(), ",") != "add,multiply" {
		t.Fatalf("genai through heartbeats read %v (err %v)", read.names(), read.err)
	}
}
