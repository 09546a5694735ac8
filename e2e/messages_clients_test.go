package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/providers"
)

// The Anthropic Messages half of the end-to-end tests: hookgate in front of
// a mock upstream configured as provider anthropic, and the Go SDK
// (github.com/anthropics/anthropic-sdk-go) as the agent.

// messagesUpstreamKey is the credential hookgate swaps in for the agent's.
const messagesUpstreamKey = "sk-ant-upstream-secret"

// startMessagesStack starts a mock upstream speaking for Anthropic and
// hookgate configured by extra YAML.
func startMessagesStack(t *testing.T, extra string) *stack {
	t.Helper()
	t.Setenv("E2E_ANTHROPIC_KEY", messagesUpstreamKey)
	mock := mockupstream.Start(t)
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: claude\n    provider: anthropic\n    base_url: " + mock.URL() +
		"\n    api_key_env: E2E_ANTHROPIC_KEY\n" + extra
	return &stack{mock: mock, app: startApp(t, doc)}
}

// msgOutcome is what an agent built on the Go SDK ends up with: the
// message as the SDK accumulated it, or the error it reported.
type msgOutcome struct {
	Types      []string // the content blocks' types, in order
	Text       string   // the text blocks' text, concatenated
	ToolUses   []msgToolUse
	Thinking   string
	Signature  string
	StopReason string
	Err        string
}

type msgToolUse struct {
	ID, Name string
	Input    map[string]any
}

func (o msgOutcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "blocks=%v text=%q stop=%q err=%q", o.Types, o.Text, o.StopReason, o.Err)
	for _, c := range o.ToolUses {
		fmt.Fprintf(&b, "\n  tool_use id=%q name=%q input=%v", c.ID, c.Name, c.Input)
	}
	return b.String()
}

func anthropicClient(base string) *anthropic.Client {
	c := anthropic.NewClient(
		option.WithBaseURL(base+"/"),
		option.WithAPIKey("sk-ant-client-canary"),
		option.WithMaxRetries(0),
		option.WithHTTPClient(&http.Client{Timeout: 30 * time.Second}),
	)
	return &c
}

func messageParams(prompt string) anthropic.MessageNewParams {
	if prompt == "" {
		prompt = "What is the weather in Paris?"
	}
	return anthropic.MessageNewParams{
		Model:     "claude-sonnet-4",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
	}
}

// anthropicStream reads a streamed message with the SDK's accumulator, as
// agents built on it do.
func anthropicStream(t *testing.T, base, prompt string) msgOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream := anthropicClient(base).Messages.NewStreaming(ctx, messageParams(prompt))
	defer stream.Close()
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			return msgOutcome{Err: "accumulate: " + err.Error()}
		}
	}
	if err := stream.Err(); err != nil {
		return msgOutcome{Err: err.Error()}
	}
	return outcomeOf(t, &msg)
}

// anthropicPlain reads a non-streamed message.
func anthropicPlain(t *testing.T, base, prompt string) msgOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	msg, err := anthropicClient(base).Messages.New(ctx, messageParams(prompt))
	if err != nil {
		return msgOutcome{Err: err.Error()}
	}
	return outcomeOf(t, msg)
}

func outcomeOf(t *testing.T, msg *anthropic.Message) msgOutcome {
	t.Helper()
	out := msgOutcome{StopReason: string(msg.StopReason)}
	for _, b := range msg.Content {
		out.Types = append(out.Types, b.Type)
		switch b.Type {
		case "text":
			out.Text += b.Text
		case "thinking":
			out.Thinking += b.Thinking
			out.Signature += b.Signature
		case "tool_use":
			in := map[string]any{}
			if err := json.Unmarshal(b.Input, &in); err != nil {
				t.Fatalf("the SDK holds a tool input that is not a JSON object: %s", b.Input)
			}
			out.ToolUses = append(out.ToolUses, msgToolUse{ID: b.ID, Name: b.Name, Input: in})
		}
	}
	return out
}

// recordedToolUses reads the tool_use blocks of a recorded stream with the
// codec (tested against every fixture on its own).
func recordedToolUses(t *testing.T, body []byte) []msgToolUse {
	t.Helper()
	p := providers.NewSSEParser(0)
	p.Feed(body)
	p.End()
	var ev providers.MessagesEvent
	var out []msgToolUse
	var inputs []string
	for {
		f, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		if f == nil {
			break
		}
		if !f.HasData() || ev.Decode(f.Data) != nil {
			continue
		}
		switch {
		case ev.Is(providers.ContentBlockStart) && ev.Block.Type.Equal("tool_use"):
			out = append(out, msgToolUse{ID: ev.Block.ID.Text(), Name: ev.Block.Name.Text()})
			inputs = append(inputs, "")
		case ev.Is(providers.ContentBlockDelta) && ev.Delta.Type.Equal("input_json_delta"):
			inputs[len(inputs)-1] += ev.Delta.PartialJSON.Text()
		}
	}
	for i := range out {
		out[i].Input = argsOf(t, inputs[i])
	}
	return out
}

// recordedPlainToolUses reads the tool_use blocks of a recorded message.
func recordedPlainToolUses(t *testing.T, body []byte) []msgToolUse {
	t.Helper()
	r, err := providers.ParseMessagesResponse(body)
	if err != nil {
		t.Fatal(err)
	}
	var out []msgToolUse
	for _, b := range r.ToolUses() {
		out = append(out, msgToolUse{ID: b.ID, Name: b.Name, Input: argsOf(t, b.Input)})
	}
	return out
}

// stamped is calls as the rewriting policy leaves them.
func stamped(calls []msgToolUse) []msgToolUse {
	out := make([]msgToolUse, len(calls))
	for i, c := range calls {
		in := map[string]any{"audited": true}
		for k, v := range c.Input {
			in[k] = v
		}
		out[i] = msgToolUse{ID: c.ID, Name: c.Name, Input: in}
	}
	return out
}

// postMessages sends a Messages request with a plain HTTP client.
func postMessages(t *testing.T, base string, body string, header map[string]string) (int, http.Header, []byte) {
	t.Helper()
	h := map[string]string{"anthropic-version": "2023-06-01", "x-api-key": "sk-ant-client-canary"}
	for k, v := range header {
		h[k] = v
	}
	return rawPost(t, base, "/v1/messages", []byte(body), h)
}

const messagesStreamBody = `{"model":"claude-sonnet-4","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"What is the weather in Paris?"}]}`
