package proxy_test

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/klauspost/compress/zstd"
	openai "github.com/openai/openai-go/v3"
	openaioption "github.com/openai/openai-go/v3/option"
)

// encoder compresses a body as one Content-Encoding does.
type encoder struct {
	name   string // the Content-Encoding value sent
	encode func(w io.Writer) io.WriteCloser
}

func nopWriteCloser(w io.WriteCloser, err error) io.WriteCloser {
	if err != nil {
		panic(err)
	}
	return w
}

var encoders = []encoder{
	{"gzip", func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) }},
	{"x-gzip", func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) }},
	{"deflate", func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) }},
	{"deflate (raw, as some servers send it)", func(w io.Writer) io.WriteCloser {
		return nopWriteCloser(flate.NewWriter(w, flate.DefaultCompression))
	}},
	{"br", func(w io.Writer) io.WriteCloser { return brotli.NewWriter(w) }},
	{"zstd", func(w io.Writer) io.WriteCloser { return nopWriteCloser(zstd.NewWriter(w)) }},
	{"gzip, br", func(w io.Writer) io.WriteCloser {
		outer := brotli.NewWriter(w)
		return &stacked{inner: gzip.NewWriter(outer), outer: outer}
	}},
	{"Zstd", func(w io.Writer) io.WriteCloser { return nopWriteCloser(zstd.NewWriter(w)) }},
}

// stacked applies inner, then outer, as "inner, outer" says.
type stacked struct{ inner, outer io.WriteCloser }

func (s *stacked) Write(p []byte) (int, error) { return s.inner.Write(p) }
func (s *stacked) Close() error {
	if err := s.inner.Close(); err != nil {
		return err
	}
	return s.outer.Close()
}

// headerValue is the Content-Encoding value an encoder's name stands for.
func (e encoder) headerValue() string {
	v, _, _ := strings.Cut(e.name, " (")
	return v
}

// compress encodes body whole, flushing after every event so that a
// stream's events leave one by one.
func (e encoder) compress(t *testing.T, body string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := e.encode(&b)
	if _, err := io.WriteString(w, body); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// encodedUpstream answers every request with body as given, under
// contentType and Content-Encoding encoding (the header named as
// encodingHeader spells it), written in small flushed pieces.
func encodedUpstream(t *testing.T, contentType, encodingHeader, encoding string, body []byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		if encoding != "" {
			w.Header()[encodingHeader] = []string{encoding}
		}
		for rest := body; len(rest) > 0; {
			n := min(len(rest), 512)
			_, _ = w.Write(rest[:n])
			w.(http.Flusher).Flush()
			rest = rest[n:]
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

const textStream = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hello\"},\"finish_reason\":null}]}\n\n" +
	"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"},\"finish_reason\":null}]}\n\n" +
	"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
	"data: [DONE]\n\n"

const messagesText = `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Hello world"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":2}}`

const messagesTextStream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello world\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":2}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

const textCompletion = `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hello world"},"finish_reason":"stop"}]}`

func openaiSDK(base string) openai.Client {
	return openai.NewClient(openaioption.WithBaseURL(base+"/v1/"), openaioption.WithAPIKey("sk-test"),
		openaioption.WithMaxRetries(0), openaioption.WithRequestTimeout(20*time.Second))
}

func anthropicSDK(base string) anthropic.Client {
	return anthropic.NewClient(anthropicoption.WithBaseURL(base+"/"), anthropicoption.WithAPIKey("sk-ant-test"),
		anthropicoption.WithMaxRetries(0), anthropicoption.WithRequestTimeout(20*time.Second))
}

func chatParams() openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
}

func messageParams() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{Model: "m", MaxTokens: 16, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}}
}

// Every coding real servers send, alone or stacked, and every spelling of
// the media types, reach the official SDKs decoded, on streams and on
// plain bodies, through a proxy that reads them.
func TestEncodedAnswersReachTheSDKsDecoded(t *testing.T) {
	for _, e := range encoders {
		t.Run(e.name, func(t *testing.T) {
			t.Run("chat stream, Text/Event-Stream", func(t *testing.T) {
				up := encodedUpstream(t, "Text/Event-Stream; charset=utf-8", "Content-Encoding", e.headerValue(), e.compress(t, textStream))
				s := startRouteStack(t, up, denyHook)
				c := openaiSDK(s.app.URL())
				stream := c.Chat.Completions.NewStreaming(context.Background(), chatParams())
				var text strings.Builder
				for stream.Next() {
					for _, ch := range stream.Current().Choices {
						text.WriteString(ch.Delta.Content)
					}
				}
				if err := stream.Err(); err != nil {
					t.Fatal(err)
				}
				if text.String() != "Hello world" {
					t.Errorf("text %q", text.String())
				}
			})
			t.Run("chat plain, Application/JSON", func(t *testing.T) {
				up := encodedUpstream(t, "Application/JSON; charset=UTF-8", "Content-Encoding", e.headerValue(), e.compress(t, textCompletion))
				s := startRouteStack(t, up, denyHook)
				c := openaiSDK(s.app.URL())
				got, err := c.Chat.Completions.New(context.Background(), chatParams())
				if err != nil {
					t.Fatal(err)
				}
				if got.Choices[0].Message.Content != "Hello world" {
					t.Errorf("content %q", got.Choices[0].Message.Content)
				}
			})
			t.Run("messages stream, lower-case header name", func(t *testing.T) {
				up := encodedUpstream(t, "TEXT/EVENT-STREAM", "content-encoding", e.headerValue(), e.compress(t, messagesTextStream))
				s := startKeyedStack(t, up, "anthropic", "k", denyHook)
				c := anthropicSDK(s.app.URL())
				stream := c.Messages.NewStreaming(context.Background(), messageParams())
				var text strings.Builder
				for stream.Next() {
					if ev := stream.Current(); ev.Type == "content_block_delta" {
						text.WriteString(ev.Delta.Text)
					}
				}
				if err := stream.Err(); err != nil {
					t.Fatal(err)
				}
				if text.String() != "Hello world" {
					t.Errorf("text %q", text.String())
				}
			})
			t.Run("messages plain", func(t *testing.T) {
				up := encodedUpstream(t, "application/json", "Content-Encoding", e.headerValue(), e.compress(t, messagesText))
				s := startKeyedStack(t, up, "anthropic", "k", denyHook)
				c := anthropicSDK(s.app.URL())
				got, err := c.Messages.New(context.Background(), messageParams())
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Content) != 1 || got.Content[0].Text != "Hello world" {
					t.Errorf("content %+v", got.Content)
				}
			})
			t.Run("the client is told the body is decoded", func(t *testing.T) {
				up := encodedUpstream(t, "text/event-stream", "content-encoding", e.headerValue(), e.compress(t, textStream))
				s := startRouteStack(t, up, denyHook)
				resp, body := rawRequest(t, s.app.URL(), "POST", "/v1/chat/completions", nil, chatBody)
				if resp.StatusCode != 200 || resp.Header.Values("Content-Encoding") != nil {
					t.Fatalf("status %d, Content-Encoding %q", resp.StatusCode, resp.Header.Values("Content-Encoding"))
				}
				if string(body) != textStream {
					t.Errorf("body %q, want the decoded stream as it came", body)
				}
			})
		})
	}
}

// A tool call inside a compressed answer is judged like any other: the
// block holds on streams and plain bodies, whatever the coding.
func TestToolCallInsideACompressedAnswerIsJudged(t *testing.T) {
	for _, e := range encoders {
		for _, c := range []struct{ kind, contentType, body string }{
			{"stream", "Text/Event-Stream", toolCallSSE},
			{"plain", "application/json", toolCallJSON},
		} {
			t.Run(e.name+"/"+c.kind, func(t *testing.T) {
				up := encodedUpstream(t, c.contentType, "Content-Encoding", e.headerValue(), e.compress(t, c.body))
				s := startRouteStack(t, up, denyHook)
				resp, body := rawRequest(t, s.app.URL(), "POST", "/v1/chat/completions", nil, chatBody)
				if resp.StatusCode != 200 {
					t.Fatalf("status %d: %s", resp.StatusCode, body)
				}
				if strings.Contains(string(body), "rm -rf") || strings.Contains(string(body), "call_1") {
					t.Errorf("the blocked call reached the client: %s", body)
				}
				if len(body) == 0 || body[0] == 0x1f || !strings.Contains(string(body), `"chat.completion`) {
					t.Errorf("the client did not get a decoded answer: %q", body)
				}
			})
		}
	}
}

// A coding hookgate does not read, or more codings than it reads, is a 502
// in the route's shape before any byte of the body is read, never a body
// handed to a reader that would misread it.
func TestUnreadableEncodingsAreRefused(t *testing.T) {
	for _, enc := range []string{"compress", "x-compress", "snappy", "gzip, gzip, gzip", "gzip, aes128gcm"} {
		for _, c := range []struct {
			kind, contentType, body string
		}{
			{"stream", "text/event-stream", toolCallSSE},
			{"plain", "application/json", toolCallJSON},
		} {
			t.Run(enc+"/"+c.kind, func(t *testing.T) {
				up := encodedUpstream(t, c.contentType, "Content-Encoding", enc, []byte(c.body))
				s := startRouteStack(t, up, denyHook)
				resp, body := rawRequest(t, s.app.URL(), "POST", "/v1/chat/completions", nil, chatBody)
				if resp.StatusCode != 502 {
					t.Fatalf("status %d: %s", resp.StatusCode, body)
				}
				checkErrorShape(t, enc, body, openAIShape, "unsupported_encoding")
				if strings.Contains(string(body), "rm -rf") {
					t.Errorf("the body reached the client: %s", body)
				}
			})
		}
	}
	t.Run("messages", func(t *testing.T) {
		up := encodedUpstream(t, "text/event-stream", "Content-Encoding", "compress", []byte(messagesTextStream))
		s := startKeyedStack(t, up, "anthropic", "k", denyHook)
		resp, body := rawRequest(t, s.app.URL(), "POST", "/v1/messages", map[string]string{"anthropic-version": "2023-06-01"}, messagesBody)
		if resp.StatusCode != 502 {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		checkErrorShape(t, "messages", body, anthropicShape, "unsupported_encoding")
	})
	t.Run("corrupt gzip", func(t *testing.T) {
		up := encodedUpstream(t, "application/json", "Content-Encoding", "gzip", []byte(toolCallJSON))
		s := startRouteStack(t, up, denyHook)
		resp, body := rawRequest(t, s.app.URL(), "POST", "/v1/chat/completions", nil, chatBody)
		if resp.StatusCode != 502 || strings.Contains(string(body), "rm -rf") {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		checkErrorShape(t, "corrupt gzip", body, openAIShape, "upstream_read_failed")
	})
}

// bomb is a small compressed body that decodes to prefix, then size bytes
// of filler events or spaces.
func bomb(t *testing.T, e encoder, prefix, unit string, size int) []byte {
	t.Helper()
	var b bytes.Buffer
	w := e.encode(&b)
	_, _ = io.WriteString(w, prefix)
	chunk := []byte(strings.Repeat(unit, 64<<10/len(unit)))
	for n := 0; n < size; n += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A decompression bomb runs into the limits on decoded bytes: a plain body
// into limits.max_response_bytes (a 502), a stream into
// limits.max_stream_bytes (the stream's error event).
func TestDecompressionBombsHitTheLimits(t *testing.T) {
	const limits = "limits:\n  max_response_bytes: 256KiB\n  max_stream_bytes: 256KiB\n"
	const decoded = 8 << 20 // 32 times the limit, from well under it
	for _, e := range encoders {
		if e.name == "x-gzip" || e.name == "Zstd" {
			continue // the same decoder as gzip and zstd
		}
		t.Run(e.name+"/plain", func(t *testing.T) {
			body := bomb(t, e, `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`, "a", decoded)
			if len(body) > 128<<10 {
				t.Fatalf("the bomb is %d bytes compressed", len(body))
			}
			up := encodedUpstream(t, "application/json", "Content-Encoding", e.headerValue(), body)
			s := startRouteStack(t, up, denyHook+limits)
			resp, got := rawRequest(t, s.app.URL(), "POST", "/v1/chat/completions", nil, chatBody)
			if resp.StatusCode != 502 || !strings.Contains(string(got), "max_response_bytes") {
				t.Fatalf("status %d: %.300s", resp.StatusCode, got)
			}
			checkErrorShape(t, e.name, got, openAIShape, "upstream_read_failed")
		})
		t.Run(e.name+"/stream", func(t *testing.T) {
			ev := "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"aaaaaaaa\"}}]}\n\n"
			body := bomb(t, e, "", ev, decoded)
			up := encodedUpstream(t, "text/event-stream", "Content-Encoding", e.headerValue(), body)
			s := startRouteStack(t, up, denyHook+limits)
			resp, got := rawRequest(t, s.app.URL(), "POST", "/v1/chat/completions", nil, chatBody)
			if resp.StatusCode != 200 || !strings.Contains(string(got), "stream_too_large") {
				t.Fatalf("status %d, tail %q", resp.StatusCode, got[max(0, len(got)-300):])
			}
			if len(got) > 512<<10 {
				t.Errorf("the client got %d bytes past a 256 KiB limit", len(got))
			}
		})
	}
}
