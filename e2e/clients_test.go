package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	openaigo "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// assembled is what an agent ends up with after reading a response: the
// text, the tool calls as the SDK put them together, the finish reasons,
// and the error the SDK reported, if any.
type assembled struct {
	Content   string
	ToolCalls []assembledCall
	Finish    []string
	Err       string
}

type assembledCall struct {
	Index     string
	ID        string
	Name      string
	Arguments string
}

// empty reports a client that read nothing at all: no text, no tool call,
// no error.
func (a assembled) empty() bool { return a.Content == "" && len(a.ToolCalls) == 0 && a.Err == "" }

func (a assembled) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "content=%q finish=%v err=%q", a.Content, a.Finish, a.Err)
	for _, c := range a.ToolCalls {
		fmt.Fprintf(&b, "\n  call[%s] id=%q name=%q args=%q", c.Index, c.ID, c.Name, c.Arguments)
	}
	return b.String()
}

func chatRequest(stream bool) goopenai.ChatCompletionRequest {
	return goopenai.ChatCompletionRequest{
		Model:    "gpt-4o",
		Stream:   stream,
		Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: "What is the weather in Paris?"}},
	}
}

func goOpenAIClient(base string) *goopenai.Client {
	cfg := goopenai.DefaultConfig("sk-client-canary")
	cfg.BaseURL = base + "/v1"
	cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	return goopenai.NewClientWithConfig(cfg)
}

// goOpenAIStream reads a streamed chat completion with go-openai, putting
// tool-call deltas together the way agents built on it do: by index when
// there is one, else a delta with an id starts a new call.
func goOpenAIStream(t *testing.T, base string) assembled {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := goOpenAIClient(base).CreateChatCompletionStream(ctx, chatRequest(true))
	if err != nil {
		return assembled{Err: err.Error()}
	}
	defer stream.Close()
	var out assembled
	byIndex := map[string]int{}
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			out.Err = err.Error()
			break
		}
		for _, ch := range chunk.Choices {
			out.Content += ch.Delta.Content
			if ch.FinishReason != "" {
				out.Finish = append(out.Finish, string(ch.FinishReason))
			}
			for _, tc := range ch.Delta.ToolCalls {
				key := ""
				if tc.Index != nil {
					key = fmt.Sprint(*tc.Index)
				}
				pos, ok := byIndex[key]
				if !ok || (key == "" && tc.ID != "" && tc.ID != out.ToolCalls[pos].ID) {
					out.ToolCalls = append(out.ToolCalls, assembledCall{Index: key})
					pos = len(out.ToolCalls) - 1
					byIndex[key] = pos
				}
				c := &out.ToolCalls[pos]
				if tc.ID != "" {
					c.ID = tc.ID
				}
				if tc.Function.Name != "" {
					c.Name = tc.Function.Name
				}
				c.Arguments += tc.Function.Arguments
			}
		}
	}
	return out
}

// goOpenAIPlain reads a non-streamed chat completion with go-openai.
func goOpenAIPlain(t *testing.T, base string) assembled {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := goOpenAIClient(base).CreateChatCompletion(ctx, chatRequest(false))
	if err != nil {
		return assembled{Err: err.Error()}
	}
	var out assembled
	for _, ch := range resp.Choices {
		out.Content += ch.Message.Content
		out.Finish = append(out.Finish, string(ch.FinishReason))
		for i, tc := range ch.Message.ToolCalls {
			out.ToolCalls = append(out.ToolCalls, assembledCall{Index: fmt.Sprint(i), ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
	}
	return out
}

func openaiGoClient(base string) openaigo.Client {
	return openaigo.NewClient(
		option.WithBaseURL(base+"/v1/"),
		option.WithAPIKey("sk-client-canary"),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(30*time.Second),
	)
}

func openaiGoParams() openaigo.ChatCompletionNewParams {
	return openaigo.ChatCompletionNewParams{
		Model:    "gpt-4o",
		Messages: []openaigo.ChatCompletionMessageParamUnion{openaigo.UserMessage("What is the weather in Paris?")},
	}
}

// openaiGoStream reads a streamed chat completion with the official
// openai-go SDK and its accumulator.
func openaiGoStream(t *testing.T, base string) assembled {
	t.Helper()
	client := openaiGoClient(base)
	stream := client.Chat.Completions.NewStreaming(context.Background(), openaiGoParams())
	defer stream.Close()
	acc := openaigo.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	var out assembled
	if err := stream.Err(); err != nil {
		out.Err = err.Error()
	}
	for _, ch := range acc.Choices {
		out.Content += ch.Message.Content
		if ch.FinishReason != "" {
			out.Finish = append(out.Finish, ch.FinishReason)
		}
		for i, tc := range ch.Message.ToolCalls {
			out.ToolCalls = append(out.ToolCalls, assembledCall{Index: fmt.Sprint(i), ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
	}
	return out
}

// openaiGoPlain reads a non-streamed chat completion with openai-go.
func openaiGoPlain(t *testing.T, base string) assembled {
	t.Helper()
	client := openaiGoClient(base)
	resp, err := client.Chat.Completions.New(context.Background(), openaiGoParams())
	if err != nil {
		return assembled{Err: err.Error()}
	}
	var out assembled
	for _, ch := range resp.Choices {
		out.Content += ch.Message.Content
		out.Finish = append(out.Finish, ch.FinishReason)
		for i, tc := range ch.Message.ToolCalls {
			out.ToolCalls = append(out.ToolCalls, assembledCall{Index: fmt.Sprint(i), ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
	}
	return out
}
