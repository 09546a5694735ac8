package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	goopenai "github.com/sashabaranov/go-openai"
	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/configs"
	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// demoTurn is one step of the demo's agent loop: what the (mock) model
// answers, and what the agent feeds back as tool results.
type demoTurn struct {
	title   string
	answer  mockupstream.StreamSpec
	results map[string]string // tool call id -> what the agent's tool returned
}

const demoPrompt = "Clean up the build directory, then ship version 1.4.2."

var demoTurns = []demoTurn{
	{
		title: "the model asks for two shell commands; one would wipe the disk",
		answer: mockupstream.StreamSpec{ID: "chatcmpl-demo-1", ArgFragments: 4,
			Texts: []string{"I'll ", "clean ", "up ", "first."},
			Calls: []mockupstream.ToolCall{
				{ID: "call_wipe", Name: "exec", Arguments: `{"command":"rm -rf / --no-preserve-root"}`},
				{ID: "call_list", Name: "exec", Arguments: `{"command":"ls -la /srv/app/build"}`},
			}},
		results: map[string]string{"call_list": "app.tar.gz  checksums.txt  old.log"},
	},
	{
		title: "the model deploys to production while production is read-only",
		answer: mockupstream.StreamSpec{ID: "chatcmpl-demo-2", ArgFragments: 3,
			Texts: []string{"Now ", "the ", "deploy."},
			Calls: []mockupstream.ToolCall{
				{ID: "call_deploy", Name: "deploy", Arguments: `{"env":"production","version":"1.4.2"}`},
			}},
		results: map[string]string{"call_deploy": "dry run ok: 1.4.2 would replace 1.4.1"},
	},
	{
		title: "the model gives its final answer",
		answer: mockupstream.StreamSpec{ID: "chatcmpl-demo-3",
			Texts: []string{"The build directory holds three files. ", "A dry-run deploy of 1.4.2 succeeded; ", "production was left untouched."}},
	},
}

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "show hookgate's own log")
	keep := fs.Bool("keep", false, "keep hookgate running after the conversation, with its console, until Ctrl-C")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var wait <-chan struct{}
	if *keep {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		wait = ctx.Done()
	}
	if err := demo(stdout, *verbose, stderr, wait); err != nil {
		fmt.Fprintln(stderr, "demo failed:", err)
		return 1
	}
	return 0
}

// demo runs the scripted conversation. With keep not nil, hookgate gets
// an admin token of this run (printed, with the console's address, on
// plain-HTTP cookies: the demo listens on loopback) and stays up after
// the conversation until keep is closed.
func demo(out io.Writer, verbose bool, logOut io.Writer, keep <-chan struct{}) error {
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
	var token string
	if keep != nil {
		b := make([]byte, 16)
		_, _ = rand.Read(b) // crypto/rand.Read never fails
		token = "hg-demo-" + hex.EncodeToString(b)
		cfg.Admin.Tokens = []config.AdminToken{{Name: "demo", Token: token}}
		cfg.Admin.InsecureCookies = true
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

	fmt.Fprintf(out, "hookgate demo\n  mock model:  %s\n  hookgate:    %s (policy: configs/demo.yaml)\n  agent:       go-openai with base URL %s/v1\n\n", mock.URL(), a.URL(), a.URL())
	clientCfg := goopenai.DefaultConfig("sk-demo-not-a-real-key")
	clientCfg.BaseURL = a.URL() + "/v1"
	client := goopenai.NewClientWithConfig(clientCfg)

	history := []goopenai.ChatCompletionMessage{
		{Role: goopenai.ChatMessageRoleSystem, Content: "You are an ops agent."},
		{Role: goopenai.ChatMessageRoleUser, Content: demoPrompt},
	}
	fmt.Fprintf(out, "user: %s\n", demoPrompt)
	before := hookDecisions(a.Registry)
	for i, turn := range demoTurns {
		fmt.Fprintf(out, "\n[%d] %s\n", i+1, turn.title)
		mock.Enqueue(mockupstream.Stream(turn.answer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: time.Millisecond}))
		text, calls, err := demoStream(client, history)
		if err != nil {
			return fmt.Errorf("turn %d: %w", i+1, err)
		}
		for _, c := range turn.answer.Tools() {
			fmt.Fprintf(out, "    model asks:      %-52s -> %s\n", c.Name+" "+c.Arguments, callFate(c, calls))
		}
		after := hookDecisions(a.Registry)
		for _, line := range decisionLines(before, after) {
			fmt.Fprintf(out, "    hookgate:        %s\n", line)
		}
		before = after
		for _, c := range calls {
			fmt.Fprintf(out, "    agent receives:  %s %s\n", c.Function.Name, c.Function.Arguments)
		}
		for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
			if line != "" {
				fmt.Fprintf(out, "    agent reads:     %s\n", line)
			}
		}
		history = append(history, goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleAssistant, Content: text, ToolCalls: calls})
		for _, c := range calls {
			history = append(history, goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleTool, ToolCallID: c.ID, Content: turn.results[c.ID]})
		}
	}

	reqs := mock.Requests()
	fmt.Fprintf(out, "\nWhat the model was sent: %d requests; in each, the session context comes first:\n", len(reqs))
	for i, r := range reqs {
		fmt.Fprintf(out, "    request %d, messages[0]: %s\n", i+1, gjson.GetBytes(r.Body, "messages.0.content").String())
	}
	fmt.Fprintln(out, "\ndone: one destructive command blocked, one production deploy turned into a dry run, context injected into every request, the disclaimer appended.")
	if keep == nil {
		return nil
	}
	fmt.Fprintf(out, "\nhookgate keeps running (--keep); press Ctrl-C to stop.\n  console:     %s\n  admin token: %s (log in with it; it lasts as long as this run)\n",
		a.ConsoleURL(), token)
	select {
	case <-keep:
		fmt.Fprintln(out, "stopping")
		return nil
	case err := <-a.Errors():
		return err
	}
}

// demoStream runs one streamed chat completion and assembles it, as an
// agent built on go-openai does.
func demoStream(client *goopenai.Client, history []goopenai.ChatCompletionMessage) (string, []goopenai.ToolCall, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := client.CreateChatCompletionStream(ctx, goopenai.ChatCompletionRequest{
		Model:    "mock-gpt",
		Stream:   true,
		Messages: history,
	})
	if err != nil {
		return "", nil, err
	}
	defer func() { _ = stream.Close() }()
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
					calls = append(calls, goopenai.ToolCall{Type: goopenai.ToolTypeFunction})
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
