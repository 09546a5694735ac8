package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/tidwall/gjson"
)

const refusal = "hookgate refused this request:\n\"rm -rf /\" matches deny_patterns <shell>"

func TestSynthesizeCompletion(t *testing.T) {
	b := SynthesizeCompletion("chatcmpl-hg-1", "gpt-4o", 1700000000, refusal)
	var c openai.ChatCompletion
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if c.ID != "chatcmpl-hg-1" || c.Model != "gpt-4o" || c.Created != 1700000000 || len(c.Choices) != 1 ||
		c.Choices[0].Message.Content != refusal || c.Choices[0].FinishReason != "stop" {
		t.Fatalf("decoded %+v from %s", c, b)
	}
	r, err := ParseChatResponse(b)
	if err != nil || r.Choices[0].Content != refusal || r.Choices[0].Role != "assistant" {
		t.Fatalf("own view: %+v %v", r, err)
	}
}

func TestSynthesizeStream(t *testing.T) {
	b := SynthesizeStream("chatcmpl-hg-2", "gpt-4o", 1700000000, refusal)
	res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(b))}
	stream := ssestream.NewStream[openai.ChatCompletionChunk](ssestream.NewDecoder(res), nil)
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(acc.Choices) != 1 || acc.Choices[0].Message.Content != refusal || acc.Choices[0].FinishReason != "stop" || acc.ID != "chatcmpl-hg-2" {
		t.Fatalf("SDK accumulated %+v", acc.ChatCompletion)
	}
	// Our own parser sees well-formed frames ending in [DONE].
	p := NewSSEParser(0)
	p.Feed(b)
	p.End()
	var last *SSEFrame
	for f, err := p.Next(); f != nil || err != nil; f, err = p.Next() {
		if err != nil {
			t.Fatal(err)
		}
		if !f.Done && !gjson.ValidBytes(f.Data) {
			t.Fatalf("invalid chunk %s", f.Data)
		}
		last = f
	}
	if last == nil || !last.Done || len(p.Trailing()) != 0 {
		t.Fatal("stream does not end with [DONE]")
	}
}

func TestAppendToMessage(t *testing.T) {
	out, err := AppendToMessage([]byte(agentRequest), 2, " (context)")
	if err != nil {
		t.Fatal(err)
	}
	assertOnlyMessagesChanged(t, "AppendToMessage", []byte(agentRequest), out)
	r, _ := ParseChatRequest(out)
	if r.Messages[2].Content != "list /tmp\nplease\n (context)" {
		t.Errorf("parts message now %q", r.Messages[2].Content)
	}
	if _, err := AppendToMessage([]byte(agentRequest), 99, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing message: %v", err)
	}
	if _, err := AppendToMessage([]byte(agentRequest), -1, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("negative position: %v", err)
	}
}
