package mockupstream_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/hookgate/hookgate/internal/fixtures"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

const chatPath = "/v1/chat/completions"

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+chatPath, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// The mock's own lookup (for binaries, which have no testing.TB) must agree
// with the tests' one.
func TestFixturesDirAgreesWithInternalFixtures(t *testing.T) {
	got, err := mockupstream.FixturesDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := fixtures.Dir(t); got != want {
		t.Fatalf("FixturesDir = %s, internal/fixtures.Dir = %s", got, want)
	}
}

// Every recorded stream, replayed one byte per write and at random split
// points, reaches a plain net/http client byte for byte.
func TestFixturesArriveByteIdentical(t *testing.T) {
	srv := mockupstream.Start(t)
	for _, fx := range fixtures.List(t, fixtures.APIUnknown, fixtures.KindSSE) {
		path, want := fx.Path, fx.Read(t)
		for _, c := range []mockupstream.Chunking{
			{Mode: mockupstream.FixedSize, Size: 1},
			{Mode: mockupstream.Random, Size: 40, Seed: 7},
			{Mode: mockupstream.PerEvent},
		} {
			srv.Enqueue(mockupstream.MustFixture(t, path, c))
			resp := post(t, srv.URL(), `{"stream":true}`)
			got, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("%s %v: read: %v", filepath.Base(path), c.Mode, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s %v: got %d bytes, want %d identical bytes", filepath.Base(path), c.Mode, len(got), len(want))
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Fatalf("Content-Type = %q", ct)
			}
		}
	}
}

func TestPlainFixture(t *testing.T) {
	srv := mockupstream.Start(t)
	fx := fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindJSON)[0]
	path, want := fx.Path, fx.Read(t)
	srv.Enqueue(mockupstream.MustFixture(t, path, mockupstream.Chunking{}))
	resp := post(t, srv.URL(), `{}`)
	got, _ := io.ReadAll(resp.Body)
	if !bytes.Equal(got, want) || resp.ContentLength != int64(len(want)) {
		t.Fatalf("got %d bytes (Content-Length %d), want %d identical", len(got), resp.ContentLength, len(want))
	}
}

// readChunks sends one raw HTTP/1.1 request and returns the body's
// transfer chunks as they were framed on the wire, which are the mock's
// writes: fasthttp frames one chunk per write.
func readChunks(t *testing.T, addr string) []string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", chatPath, addr)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.TransferEncoding) == 0 {
		t.Fatalf("response not chunked: %v", resp.Header)
	}
	// http.ReadResponse hides the framing; read it ourselves from br.
	var chunks []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("chunk size: %v", err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(line), 16, 64)
		if err != nil {
			t.Fatalf("chunk size %q: %v", line, err)
		}
		if n == 0 {
			return chunks
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(br, buf); err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, string(buf[:n]))
	}
}

func TestEachPieceIsOneWriteOnTheWire(t *testing.T) {
	srv := mockupstream.Start(t)
	body := mockupstream.StreamSpec{TextDeltas: 3, ToolCalls: 1, ArgFragments: 2}.SSE()

	srv.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 1}))
	chunks := readChunks(t, srv.Addr())
	if len(chunks) != len(body) {
		t.Fatalf("%d chunks on the wire, want %d one-byte chunks", len(chunks), len(body))
	}

	srv.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	chunks = readChunks(t, srv.Addr())
	events := strings.SplitAfter(string(body), "\n\n")
	events = events[:len(events)-1] // SplitAfter leaves an empty tail
	if len(chunks) != len(events) {
		t.Fatalf("%d chunks on the wire, want %d events", len(chunks), len(events))
	}
	for i := range chunks {
		if chunks[i] != events[i] {
			t.Fatalf("chunk %d = %q, want %q", i, chunks[i], events[i])
		}
	}
}

func TestRecordsRequests(t *testing.T) {
	srv := mockupstream.Start(t)
	srv.Handle(mockupstream.Always(mockupstream.JSON(200, []byte(`{"ok":true}`))))
	req, _ := http.NewRequest(http.MethodPost, srv.URL()+chatPath+"?x=1", strings.NewReader(`{"model":"m"}`))
	req.Header.Set("Authorization", "Bearer sk-test")
	req.Header.Set("X-Session-Id", "s1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = http.Get(srv.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests recorded, want 2", len(reqs))
	}
	r := reqs[0]
	if r.Seq != 0 || r.Method != "POST" || r.Path != chatPath || r.URI != chatPath+"?x=1" || string(r.Body) != `{"model":"m"}` {
		t.Fatalf("recorded %+v", r)
	}
	if r.Header.Get("Authorization") != "Bearer sk-test" || r.Header.Get("X-Session-Id") != "s1" {
		t.Fatalf("headers %v", r.Header)
	}
	if reqs[1].Seq != 1 || reqs[1].Method != "GET" || reqs[1].Path != "/v1/models" || len(reqs[1].Body) != 0 {
		t.Fatalf("second request %+v", reqs[1])
	}
}

func TestQueueThenHandlerThenUnscripted(t *testing.T) {
	srv := mockupstream.Start(t)
	srv.Enqueue(mockupstream.JSON(201, []byte(`"first"`)), mockupstream.JSON(202, []byte(`"second"`)))
	for _, want := range []int{201, 202, 500} {
		resp := post(t, srv.URL(), `{}`)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("status %d, want %d (%s)", resp.StatusCode, want, body)
		}
		if want == 500 && !strings.Contains(string(body), "no response scripted") {
			t.Fatalf("unscripted body %s", body)
		}
	}
	srv.Handle(func(r *mockupstream.Request) mockupstream.Response {
		return mockupstream.JSON(200, []byte(strconv.Quote(r.Path)))
	})
	resp := post(t, srv.URL(), `{}`)
	if body, _ := io.ReadAll(resp.Body); string(body) != strconv.Quote(chatPath) {
		t.Fatalf("handler body %s", body)
	}
	if srv.Pending() != 0 {
		t.Fatalf("pending %d", srv.Pending())
	}
}

func TestRateLimitedKeepsRetryAfter(t *testing.T) {
	srv := mockupstream.Start(t)
	srv.Enqueue(mockupstream.RateLimited(7))
	resp := post(t, srv.URL(), `{}`)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" || !strings.Contains(string(body), `"type":"rate_limit_exceeded"`) {
		t.Fatalf("got %d %v %s", resp.StatusCode, resp.Header, body)
	}
}

func TestCutEndsWithoutTerminatingChunk(t *testing.T) {
	srv := mockupstream.Start(t)
	body := mockupstream.StreamSpec{TextDeltas: 5}.SSE()
	at := bytes.Index(body, []byte("[DONE]")) - 20
	r := mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent})
	r.Fault, r.FaultAt = mockupstream.Cut, at
	srv.Enqueue(r)
	resp := post(t, srv.URL(), `{}`)
	got, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("read error %v, want unexpected EOF", err)
	}
	if !bytes.Equal(got, body[:at]) {
		t.Fatalf("got %d bytes, want the first %d", len(got), at)
	}
}

func TestStallAndHangAreReleasedByClose(t *testing.T) {
	for _, f := range []mockupstream.Fault{mockupstream.Stall, mockupstream.Hang} {
		t.Run(f.String(), func(t *testing.T) {
			srv, err := mockupstream.New(mockupstream.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			r := mockupstream.Stream([]byte("data: {}\n\ndata: [DONE]\n\n"), mockupstream.Chunking{Mode: mockupstream.PerEvent})
			r.Fault, r.FaultAt = f, 10
			srv.Enqueue(r)
			client := &http.Client{Timeout: 300 * time.Millisecond}
			resp, err := client.Post(srv.URL()+chatPath, "application/json", strings.NewReader(`{}`))
			if f == mockupstream.Stall {
				if err != nil {
					t.Fatalf("stall: headers should arrive: %v", err)
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err == nil || string(got) != "data: {}\n\n" {
					t.Fatalf("stall: got %q, %v; want the first event then a timeout", got, err)
				}
			} else if err == nil {
				resp.Body.Close()
				t.Fatal("hang: got a response")
			}
			start := time.Now()
			srv.Close()
			if d := time.Since(start); d > time.Second {
				t.Fatalf("Close took %v", d)
			}
		})
	}
}

func TestLatencyAndInterval(t *testing.T) {
	srv := mockupstream.Start(t)
	body := []byte("data: 1\n\ndata: 2\n\ndata: 3\n\ndata: [DONE]\n\n")
	r := mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: 30 * time.Millisecond})
	r.Latency = 50 * time.Millisecond
	srv.Enqueue(r)
	start := time.Now()
	resp := post(t, srv.URL(), `{}`)
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadByte(); err != nil {
		t.Fatal(err)
	}
	ttfb := time.Since(start)
	if _, err := io.ReadAll(br); err != nil {
		t.Fatal(err)
	}
	total := time.Since(start)
	if ttfb < 50*time.Millisecond || ttfb > 500*time.Millisecond {
		t.Fatalf("first byte after %v, want about 50ms", ttfb)
	}
	if total-ttfb < 80*time.Millisecond {
		t.Fatalf("body took %v after the first byte, want at least 3 intervals of 30ms", total-ttfb)
	}
}

// The synthetic stream and completion are well-formed for a real client,
// which assembles exactly the text and tool calls the spec describes.
func TestSyntheticThroughGoOpenAI(t *testing.T) {
	srv := mockupstream.Start(t)
	spec := mockupstream.StreamSpec{TextDeltas: 7, ToolCalls: 3, ArgFragments: 5, Usage: true}
	srv.Enqueue(mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.Random, Size: 13, Seed: 1}))
	srv.Enqueue(mockupstream.JSON(200, spec.Completion()))

	cfg := openai.DefaultConfig("sk-test")
	cfg.BaseURL = srv.URL() + "/v1"
	client := openai.NewClientWithConfig(cfg)
	req := openai.ChatCompletionRequest{Model: "mock-gpt", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}
	ctx := context.Background()

	stream, err := client.CreateChatCompletionStream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var text strings.Builder
	var calls []openai.ToolCall
	var finish openai.FinishReason
	var usage *openai.Usage
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
		for _, ch := range chunk.Choices {
			text.WriteString(ch.Delta.Content)
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
			for _, tc := range ch.Delta.ToolCalls {
				i := *tc.Index
				for len(calls) <= i {
					calls = append(calls, openai.ToolCall{})
				}
				if tc.ID != "" {
					calls[i].ID, calls[i].Function.Name = tc.ID, tc.Function.Name
				}
				calls[i].Function.Arguments += tc.Function.Arguments
			}
		}
	}
	if text.String() != spec.Text() || finish != openai.FinishReasonToolCalls || usage == nil {
		t.Fatalf("text %q finish %q usage %v", text.String(), finish, usage)
	}
	checkCalls(t, calls, spec.Tools())

	resp, err := client.CreateChatCompletion(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	msg := resp.Choices[0].Message
	if msg.Content != spec.Text() || resp.Choices[0].FinishReason != openai.FinishReasonToolCalls {
		t.Fatalf("completion %+v", resp.Choices[0])
	}
	checkCalls(t, msg.ToolCalls, spec.Tools())
}

func checkCalls(t *testing.T, got []openai.ToolCall, want []mockupstream.ToolCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d tool calls, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Function.Name != want[i].Name || got[i].Function.Arguments != want[i].Arguments {
			t.Fatalf("call %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestNoRecord(t *testing.T) {
	srv, err := mockupstream.New(mockupstream.Options{NoRecord: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	seenc := make(chan *mockupstream.Request, 1)
	srv.Handle(func(r *mockupstream.Request) mockupstream.Response {
		seenc <- r
		return mockupstream.JSON(200, []byte(`{}`))
	})
	post(t, srv.URL(), `{"a":1}`)
	seen := <-seenc
	if len(srv.Requests()) != 0 || seen == nil || string(seen.Body) != `{"a":1}` || seen.Header != nil {
		t.Fatalf("requests %d, seen %+v", len(srv.Requests()), seen)
	}
}

func TestCloseLeavesNoGoroutines(t *testing.T) {
	// fasthttp's worker-pool cleaner notices Stop only after its next sleep
	// (up to 10 s), and its date updater lives for the process: neither is
	// ours to wait for.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"))
	srv, err := mockupstream.New(mockupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(mockupstream.Stream(mockupstream.StreamSpec{TextDeltas: 2}.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	tr := &http.Transport{}
	resp, err := (&http.Client{Transport: tr}).Post(srv.URL()+chatPath, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	tr.CloseIdleConnections()
	srv.Close()
}
