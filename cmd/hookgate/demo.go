package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/configs"
	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// demoTurn is one step of the demo conversation: what the user asks, what
// the (mock) model answers, and what the demo explains.
type demoTurn struct {
	title  string
	prompt string
	answer mockupstream.StreamSpec
}

var demoTurns = []demoTurn{
	{
		title:  "a streamed answer with a tool call, relayed unchanged",
		prompt: "List the project files.",
		answer: mockupstream.StreamSpec{TextDeltas: 6, ArgFragments: 4, Calls: []mockupstream.ToolCall{
			{Name: "exec", Arguments: `{"command":"ls -la /srv/app"}`},
		}},
	},
}

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "show hookgate's own log")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := demo(stdout, *verbose, stderr); err != nil {
		fmt.Fprintln(stderr, "demo failed:", err)
		return 1
	}
	return 0
}

func demo(out io.Writer, verbose bool, logOut io.Writer) error {
	mock, err := mockupstream.New(mockupstream.Options{})
	if err != nil {
		return err
	}
	defer mock.Close()

	cfg, err := config.Parse(configs.Demo, "configs/demo.yaml", func(name string) (string, bool) {
		if name == "HOOKGATE_DEMO_UPSTREAM" {
			return mock.URL(), true
		}
		return "", false
	})
	if err != nil {
		return err
	}
	level := slog.LevelError
	if verbose {
		level = slog.LevelDebug
	}
	a, err := app.Build(cfg, slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level})))
	if err != nil {
		return err
	}
	if err := a.Start(); err != nil {
		return err
	}
	defer a.Close()

	fmt.Fprintf(out, "hookgate demo: a mock model on %s, hookgate on %s, and an agent using go-openai with base URL %s/v1\n", mock.URL(), a.URL(), a.URL())
	clientCfg := goopenai.DefaultConfig("sk-demo-not-a-real-key")
	clientCfg.BaseURL = a.URL() + "/v1"
	client := goopenai.NewClientWithConfig(clientCfg)

	for i, turn := range demoTurns {
		fmt.Fprintf(out, "\n[%d] %s\n    user: %s\n", i+1, turn.title, turn.prompt)
		mock.Enqueue(mockupstream.Stream(turn.answer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: 2 * time.Millisecond}))
		text, calls, err := demoStream(client, turn.prompt)
		if err != nil {
			return fmt.Errorf("turn %d: %w", i+1, err)
		}
		if text != "" {
			fmt.Fprintf(out, "    assistant: %s\n", strings.TrimSpace(text))
		}
		for _, c := range calls {
			fmt.Fprintf(out, "    tool call received by the agent: %s %s\n", c.Function.Name, c.Function.Arguments)
		}
	}
	fmt.Fprintln(out, "\ndone: every turn went through hookgate.")
	return nil
}

// demoStream runs one streamed chat completion and assembles it.
func demoStream(client *goopenai.Client, prompt string) (string, []goopenai.ToolCall, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := client.CreateChatCompletionStream(ctx, goopenai.ChatCompletionRequest{
		Model:    "mock-gpt",
		Stream:   true,
		Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: prompt}},
	})
	if err != nil {
		return "", nil, err
	}
	defer stream.Close()
	var text strings.Builder
	var calls []goopenai.ToolCall
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return text.String(), calls, nil
		}
		if err != nil {
			return "", nil, err
		}
		for _, ch := range chunk.Choices {
			text.WriteString(ch.Delta.Content)
			for _, tc := range ch.Delta.ToolCalls {
				idx := len(calls) - 1
				if tc.Index != nil {
					idx = *tc.Index
				}
				for idx >= len(calls) {
					calls = append(calls, goopenai.ToolCall{})
				}
				if tc.ID != "" {
					calls[idx].ID = tc.ID
				}
				if tc.Function.Name != "" {
					calls[idx].Function.Name = tc.Function.Name
				}
				calls[idx].Function.Arguments += tc.Function.Arguments
			}
		}
	}
}
