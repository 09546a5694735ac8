package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"

	"google.golang.org/genai"
)

// geminiCallSeen is one functionCall as a reader found it.
type geminiCallSeen struct {
	Name, ID string
	Args     map[string]any
}

// geminiStreamServer replays the stream held in body to genai's real
// client, as streamGenerateContent?alt=sse.
type geminiStreamServer struct {
	srv    *httptest.Server
	body   atomic.Pointer[[]byte]
	client *genai.Client
}

func newGeminiStreamServer(tb testing.TB) *geminiStreamServer {
	tb.Helper()
	s := &geminiStreamServer{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(*s.body.Load())
	}))
	tb.Cleanup(s.srv.Close)
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "test-key", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: s.srv.URL},
	})
	if err != nil {
		tb.Fatal(err)
	}
	s.client = c
	return s
}

// genaiCalls drives genai's client over stream and returns every
// FunctionCall it yields (panics of its converter count as errors).
func (s *geminiStreamServer) genaiCalls(stream []byte) (calls []geminiCallSeen, errs int) {
	s.body.Store(&stream)
	defer func() {
		if recover() != nil {
			errs++
		}
	}()
	for resp, err := range s.client.Models.GenerateContentStream(context.Background(), "gemini-test", genai.Text("hi"), nil) {
		if err != nil {
			errs++
			continue
		}
		for _, c := range resp.Candidates {
			if c == nil || c.Content == nil {
				continue
			}
			for _, p := range c.Content.Parts {
				if p != nil && p.FunctionCall != nil {
					calls = append(calls, geminiCallSeen{Name: p.FunctionCall.Name, ID: p.FunctionCall.ID, Args: p.FunctionCall.Args})
				}
			}
		}
	}
	return calls, errs
}

// viewSSECalls reads an alt=sse stream with hookgate's splitter and frame
// view; an error means hookgate refuses the stream.
func viewSSECalls(stream []byte) ([]geminiCallSeen, []GeminiPart, error) {
	sp := NewGeminiSSESplitter(0)
	sp.Feed(stream)
	sp.End()
	var calls []geminiCallSeen
	var parts []GeminiPart
	var f GeminiFrame
	for {
		blk, ok, err := sp.Next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return calls, parts, nil
		}
		if err := f.Decode(blk.Data); err != nil {
			return nil, nil, err
		}
		for _, c := range f.Candidates {
			for _, p := range c.Parts {
				if p.Kind != GeminiPartCall {
					continue
				}
				parts = append(parts, p)
				call := geminiCallSeen{Name: p.Call.Name.Text(), ID: p.Call.ID.Text()}
				if p.Call.Args.Set() {
					if err := json.Unmarshal(p.Call.Args.Raw, &call.Args); err != nil {
						return nil, nil, err
					}
				}
				calls = append(calls, call)
			}
		}
	}
}

// checkGeminiOracle holds the invariant: every call genai-go reads from
// stream, hookgate's view reads too, or it refuses the stream.
func checkGeminiOracle(t *testing.T, s *geminiStreamServer, stream []byte) {
	t.Helper()
	want, _ := s.genaiCalls(stream)
	got, _, err := viewSSECalls(stream)
	if err != nil {
		return
	}
	left := append([]geminiCallSeen(nil), got...)
	for _, w := range want {
		found := false
		for i, g := range left {
			if g.Name == w.Name && g.ID == w.ID && (len(g.Args) == 0 && len(w.Args) == 0 || reflect.DeepEqual(g.Args, w.Args)) {
				left = append(left[:i], left[i+1:]...)
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("genai-go reads call %+v that the view does not (view: %+v)\nstream: %q", w, got, stream)
		}
	}
}

func geminiSSE(payloads ...string) []byte {
	var b []byte
	for _, p := range payloads {
		b = AppendGeminiSSEData(b, []byte(p))
	}
	return b
}

const geminiCallFrame = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{"command":"ls"}},"thoughtSignature":"c2ln"}]},"index":0}]}`

// geminiOddFrames are made-up frames spelling calls the ways some reader
// would read them.
var geminiOddFrames = []string{
	geminiCallFrame,
	`{"candidates":[{"content":{"parts":[{"FunctionCall":{"name":"rm","args":{}}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"function_call":{"name":"rm","args":{}}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functioncall":{"name":"rm"}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"\u0066unctionCall":{"name":"rm"}}]}}]}`,
	`{"candidates":[{"content":{"Parts":[{"functionCall":{"name":"rm"}}]}}]}`,
	`{"candidates":[{"Content":{"parts":[{"functionCall":{"name":"rm"}}]}}]}`,
	`{"Candidates":[{"content":{"parts":[{"functionCall":{"name":"rm"}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"Name":"rm"}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"ls","name":"rm"}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"ls"},"functionCall":{"name":"rm"}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"ls"},"functionCall":{"name":"rm"}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"ls"}}],"parts":[{"functionCall":{"name":"rm"}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"rm","args":{"Command":"x","command":"y"}}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"rm","partialArgs":[{"jsonPath":"$.a","stringValue":"x"}],"willContinue":true}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCallſ":{"name":"rm"}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"hi","functionCall":{"name":"rm"}}]}}]}`,
	`{"error":{"code":500,"message":"x","status":"INTERNAL"},"candidates":[{"content":{"parts":[{"functionCall":{"name":"rm"}}]}}]}`,
	`{"candidates":{"content":{"parts":[{"functionCall":{"name":"rm"}}]}}}`,
	`{"candidates":[{"content":{"parts":{"functionCall":{"name":"rm"}}}}]}`,
	`{"candidates":[{"index":1.0,"content":{"parts":[{"functionCall":{"name":"rm"}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"r\u006d","args":{"a":[1,{"b":null}]}}}]}}]}`,
}

func TestGeminiFramesMatchGenai(t *testing.T) {
	s := newGeminiStreamServer(t)
	for _, fr := range geminiOddFrames {
		checkGeminiOracle(t, s, geminiSSE(fr))
	}
	for _, name := range geminiFixtureNames {
		checkGeminiOracle(t, s, readFixture(t, "gemini-native/"+name))
	}
	// Block forms genai-go reads differently from other SSE readers.
	odd := []string{
		"data: " + geminiCallFrame + "\n\n",
		"data:" + geminiCallFrame,
		"event: x\ndata: " + geminiCallFrame + "\n\n",
		": c\n\ndata: " + geminiCallFrame + "\n\n",
		"data: {\"candidates\":[]}\ndata: " + geminiCallFrame + "\n\n",
		"data: " + geminiCallFrame + "\r\n\r\ndata: " + geminiCallFrame + "\n\n",
	}
	for _, st := range odd {
		checkGeminiOracle(t, s, []byte(st))
	}
}

// TestGeminiGateRefuses pins the refusals of the made-up frames: each
// variant spelling or repeat is refused with the gate's error kinds.
func TestGeminiGateRefuses(t *testing.T) {
	for _, fr := range geminiOddFrames[1:13] {
		var f GeminiFrame
		err := f.Decode([]byte(fr))
		if !IsAmbiguousKey(err) {
			t.Errorf("Decode(%s) = %v, want ErrKeySpelling or ErrDuplicateKey", fr, err)
		}
		if len(f.Candidates) != 0 {
			t.Errorf("refused frame left candidates in the view")
		}
	}
	for _, i := range []int{15, 19, 20, 21} {
		fr := geminiOddFrames[i]
		var f GeminiFrame
		if err := f.Decode([]byte(fr)); err == nil {
			t.Errorf("Decode(%s) accepted", fr)
		}
	}
}

func FuzzGeminiFrame(f *testing.F) {
	for _, fr := range geminiOddFrames {
		f.Add([]byte(fr))
	}
	s := newGeminiStreamServer(f)
	f.Fuzz(func(t *testing.T, payload []byte) {
		payload = bytes.Map(func(r rune) rune {
			if r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, payload)
		checkGeminiOracle(t, s, geminiSSE(string(payload)))
		// The view never panics, and a refusal leaves it empty.
		var fr GeminiFrame
		if err := fr.Decode(payload); err != nil && len(fr.Candidates) != 0 {
			t.Fatal("refused frame left candidates")
		}
	})
}
