package oracle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	openaigo "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	goopenai "github.com/sashabaranov/go-openai"
)

// readTimeout bounds one oracle's read; hookgate answers a mutated body in
// milliseconds, so only a hang reaches it.
const readTimeout = 20 * time.Second

// call is a tool call an oracle read: who read it, where, and what.
type call struct {
	Oracle, Where, Name, Args string
}

func (c call) String() string {
	return fmt.Sprintf("%s read %s name=%q args=%q", c.Oracle, c.Where, c.Name, c.Args)
}

// reading is what one oracle got out of a response: the calls it read and
// the error it reported, if any (an error is a refusal, never a failure).
type reading struct {
	Oracle string
	Calls  []call
	Err    string
}

// oracle reads a response of one API from base (hookgate's or the mock's
// root URL) with one SDK; model keys the mock's answer.
type oracle struct {
	name string
	read func(ctx context.Context, base, model string) reading
}

// oraclesFor lists the SDK readers of an API and framing.
func oraclesFor(api apiKind) []oracle {
	switch api {
	case chatSSE:
		return []oracle{{"go-openai stream", goOpenAIStream}, {"openai-go stream+accumulator", openaiGoChatStream}}
	case chatJSON:
		return []oracle{{"go-openai plain", goOpenAIPlain}, {"openai-go plain", openaiGoChatPlain}}
	case responsesSSE:
		return []oracle{{"openai-go responses stream", openaiGoResponsesStream}}
	case responsesJSON:
		return []oracle{{"openai-go responses plain", openaiGoResponsesPlain}}
	case messagesSSE:
		return []oracle{{"anthropic-sdk-go stream+Accumulate", anthropicStream}}
	case messagesJSON:
		return []oracle{{"anthropic-sdk-go plain", anthropicPlain}}
	}
	return nil
}

func httpClient() *http.Client {
	// A redirect is followed by none of the oracles: a 3xx answer is read
	// as the SDK reads it, not as the mock's answer to a resent request.
	return &http.Client{Timeout: readTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func (r *reading) add(where, name, args string) {
	if name == "" && args == "" {
		return
	}
	r.Calls = append(r.Calls, call{Oracle: r.Oracle, Where: where, Name: name, Args: args})
}

func goOpenAI(base string) *goopenai.Client {
	cfg := goopenai.DefaultConfig("sk-oracle")
	cfg.BaseURL = base + "/v1"
	cfg.HTTPClient = httpClient()
	return goopenai.NewClientWithConfig(cfg)
}

func goOpenAIRequest(model string, stream bool) goopenai.ChatCompletionRequest {
	return goopenai.ChatCompletionRequest{Model: model, Stream: stream, Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: "run it"}}}
}

// goOpenAIStream counts every delta that carries a tool call's name or
// arguments (an agent built on go-openai puts them together itself).
func goOpenAIStream(ctx context.Context, base, model string) reading {
	r := reading{Oracle: "go-openai stream"}
	s, err := goOpenAI(base).CreateChatCompletionStream(ctx, goOpenAIRequest(model, true))
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer s.Close()
	for {
		chunk, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return r
		}
		if err != nil {
			r.Err = err.Error()
			return r
		}
		for _, ch := range chunk.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				r.add("delta.tool_calls", tc.Function.Name, tc.Function.Arguments)
			}
			if fc := ch.Delta.FunctionCall; fc != nil {
				r.add("delta.function_call", fc.Name, fc.Arguments)
			}
		}
	}
}

func goOpenAIPlain(ctx context.Context, base, model string) reading {
	r := reading{Oracle: "go-openai plain"}
	resp, err := goOpenAI(base).CreateChatCompletion(ctx, goOpenAIRequest(model, false))
	if err != nil {
		r.Err = err.Error()
		return r
	}
	for _, ch := range resp.Choices {
		for _, tc := range ch.Message.ToolCalls {
			r.add("message.tool_calls", tc.Function.Name, tc.Function.Arguments)
		}
		if fc := ch.Message.FunctionCall; fc != nil {
			r.add("message.function_call", fc.Name, fc.Arguments)
		}
	}
	return r
}

func openaiGo(base string) openaigo.Client {
	return openaigo.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey("sk-oracle"), option.WithMaxRetries(0), option.WithHTTPClient(httpClient()))
}

func openaiGoChatParams(model string) openaigo.ChatCompletionNewParams {
	return openaigo.ChatCompletionNewParams{Model: model, Messages: []openaigo.ChatCompletionMessageParamUnion{openaigo.UserMessage("run it")}}
}

// openaiGoChatStream counts the calls in every chunk and in what the
// SDK's ChatCompletionAccumulator put together.
func openaiGoChatStream(ctx context.Context, base, model string) reading {
	r := reading{Oracle: "openai-go stream+accumulator"}
	c := openaiGo(base)
	s := c.Chat.Completions.NewStreaming(ctx, openaiGoChatParams(model))
	defer s.Close()
	acc := openaigo.ChatCompletionAccumulator{}
	for s.Next() {
		chunk := s.Current()
		acc.AddChunk(chunk)
		for _, ch := range chunk.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				r.add("delta.tool_calls", tc.Function.Name, tc.Function.Arguments)
			}
			r.add("delta.function_call", ch.Delta.FunctionCall.Name, ch.Delta.FunctionCall.Arguments)
		}
	}
	if err := s.Err(); err != nil {
		r.Err = err.Error()
	}
	for _, ch := range acc.Choices {
		addChatMessage(&r, "accumulated", ch.Message)
	}
	return r
}

func addChatMessage(r *reading, where string, m openaigo.ChatCompletionMessage) {
	for _, tc := range m.ToolCalls {
		r.add(where+".tool_calls.function", tc.Function.Name, tc.Function.Arguments)
		r.add(where+".tool_calls.custom", tc.Custom.Name, tc.Custom.Input)
	}
	r.add(where+".function_call", m.FunctionCall.Name, m.FunctionCall.Arguments)
}

func openaiGoChatPlain(ctx context.Context, base, model string) reading {
	r := reading{Oracle: "openai-go plain"}
	c := openaiGo(base)
	resp, err := c.Chat.Completions.New(ctx, openaiGoChatParams(model))
	if err != nil {
		r.Err = err.Error()
		return r
	}
	for _, ch := range resp.Choices {
		addChatMessage(&r, "message", ch.Message)
	}
	return r
}

func responsesParams(model string) responses.ResponseNewParams {
	return responses.ResponseNewParams{Model: model, Input: responses.ResponseNewParamsInputUnion{OfString: openaigo.String("run it")}}
}

func addOutputItem(r *reading, where string, it responses.ResponseOutputItemUnion) {
	switch it.Type {
	case "message", "reasoning":
		return
	}
	r.add(where+"("+it.Type+")", it.Name, it.Arguments.OfString+it.Input)
}

// openaiGoResponsesStream counts the calls an agent dispatching on each
// event's type reads: the items of output_item events, argument deltas and
// dones, and the output of every response snapshot (openai-go has no
// accumulator; a stream helper keeps the last snapshot).
func openaiGoResponsesStream(ctx context.Context, base, model string) reading {
	r := reading{Oracle: "openai-go responses stream"}
	c := openaiGo(base)
	s := c.Responses.NewStreaming(ctx, responsesParams(model))
	defer s.Close()
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.output_item.added", "response.output_item.done":
			addOutputItem(&r, ev.Type+".item", ev.Item)
		case "response.created", "response.in_progress", "response.queued", "response.completed", "response.incomplete", "response.failed":
			for _, it := range ev.Response.Output {
				addOutputItem(&r, ev.Type+".response.output", it)
			}
		case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
			r.add(ev.Type, "", ev.Delta)
		case "response.function_call_arguments.done", "response.custom_tool_call_input.done":
			r.add(ev.Type, "", ev.Arguments+ev.Input)
		}
	}
	if err := s.Err(); err != nil {
		r.Err = err.Error()
	}
	return r
}

func openaiGoResponsesPlain(ctx context.Context, base, model string) reading {
	r := reading{Oracle: "openai-go responses plain"}
	c := openaiGo(base)
	resp, err := c.Responses.New(ctx, responsesParams(model))
	if err != nil {
		r.Err = err.Error()
		return r
	}
	for _, it := range resp.Output {
		addOutputItem(&r, "output", it)
	}
	return r
}

func anthropicClient(base string) anthropic.Client {
	return anthropic.NewClient(anthropicoption.WithBaseURL(base+"/"), anthropicoption.WithAPIKey("sk-ant-oracle"), anthropicoption.WithMaxRetries(0), anthropicoption.WithHTTPClient(httpClient()))
}

func messageParams(model string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 1024, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("run it"))}}
}

func addContent(r *reading, where string, blocks []anthropic.ContentBlockUnion) {
	for _, b := range blocks {
		switch b.Type {
		case "text", "thinking", "redacted_thinking":
			continue
		}
		in := string(b.Input)
		if in == "{}" || in == "null" {
			in = ""
		}
		r.add(where+"("+b.Type+")", b.Name, in)
	}
}

// anthropicStream counts the tool blocks and input deltas of every event
// and the blocks of the message Accumulate put together.
func anthropicStream(ctx context.Context, base, model string) reading {
	r := reading{Oracle: "anthropic-sdk-go stream+Accumulate"}
	c := anthropicClient(base)
	s := c.Messages.NewStreaming(ctx, messageParams(model))
	defer s.Close()
	var msg anthropic.Message
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "content_block_start":
			if ev.ContentBlock.Type != "text" && ev.ContentBlock.Type != "thinking" {
				r.add("content_block_start("+ev.ContentBlock.Type+")", ev.ContentBlock.Name, "")
			}
		case "content_block_delta":
			r.add("content_block_delta("+ev.Delta.Type+")", "", ev.Delta.PartialJSON)
		}
		if err := msg.Accumulate(ev); err != nil {
			r.Err = "accumulate: " + err.Error()
			break
		}
	}
	if err := s.Err(); err != nil && r.Err == "" {
		r.Err = err.Error()
	}
	addContent(&r, "accumulated", msg.Content)
	return r
}

func anthropicPlain(ctx context.Context, base, model string) reading {
	r := reading{Oracle: "anthropic-sdk-go plain"}
	c := anthropicClient(base)
	msg, err := c.Messages.New(ctx, messageParams(model))
	if err != nil {
		r.Err = err.Error()
		return r
	}
	addContent(&r, "content", msg.Content)
	return r
}
