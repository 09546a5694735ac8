package interceptors

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// finishPlain applies the hooks to a non-streamed Messages response: the
// tool_use blocks judged concurrently, a blocked one replaced by a text
// block with the note, a rewritten one given its new input, stop_reason
// end_turn when every one was blocked, and pre_response's text appended as
// a text block to a final answer.
func (x *messagesExchange) finishPlain(ctx context.Context, body []byte) ([]byte, error) {
	resp, err := providers.ParseMessagesResponse(body)
	if err != nil {
		// Not a message hookgate can read: a tool call in it could not be
		// judged, so it is not passed on.
		return nil, &RequestError{Status: 502, Type: "upstream_error", Code: "unreadable_response",
			Message: "hookgate could not read the upstream's response, so its tool calls could not be judged", Err: err}
	}
	uses := resp.ToolUses()
	started := time.Now()
	verdicts := x.judgeAll(ctx, resp.ID, uses)
	x.hookTime += time.Since(started)

	out := body
	notes := map[int]string{}
	for i, tu := range uses {
		v := verdicts[i]
		x.countToolCall(tu.Name, v.Decision)
		switch v.Decision {
		case hooks.Block:
			notes[tu.Pos] = blockNote(x.m.loop.opts.BlockTemplate, tu.Name, v.HookID, v.Reason)
			out, err = providers.ReplaceMessagesBlockWithText(out, tu.Pos, notes[tu.Pos])
		case hooks.Rewrite:
			out, err = providers.SetMessagesToolInput(out, tu.Pos, v.Arguments)
		}
		if err != nil {
			return nil, editFailed(err)
		}
	}
	if len(notes) > 0 && len(notes) == len(uses) && resp.StopReason == "tool_use" {
		if out, err = providers.SetMessagesResponseStopReason(out, "end_turn"); err != nil {
			return nil, editFailed(err)
		}
	}
	// The answer is the text the agent is shown, notes included.
	var answer []byte
	for _, c := range resp.Content {
		if note, ok := notes[c.Pos]; ok {
			answer = append(answer, note...)
		} else if c.Type == "text" {
			answer = append(answer, c.Text...)
		}
	}
	final := len(uses) == len(notes)
	if final || x.m.loop.opts.PreResponseOnToolCalls {
		text, err := x.m.loop.preResponse(ctx, &x.exchangeState, string(answer))
		if err != nil {
			return nil, err
		}
		if text != "" {
			if len(answer) > 0 {
				text = "\n\n" + text
			}
			if out, err = providers.AppendMessagesText(out, text); err != nil {
				return nil, editFailed(err)
			}
		}
	}
	if final {
		x.m.loop.answered(ctx, x.id, string(answer))
	}
	return out, nil
}

// judgeAll runs pre_tool_use for every tool_use block concurrently and
// returns the verdicts in the blocks' order.
func (x *messagesExchange) judgeAll(ctx context.Context, messageID string, uses []providers.MessagesBlock) []verdict {
	verdicts := make([]verdict, len(uses))
	if !x.m.loop.has(hooks.PreToolUse) {
		for i, tu := range uses {
			verdicts[i] = verdict{Decision: hooks.Allow, Arguments: []byte(tu.Input)}
		}
		return verdicts
	}
	var wg sync.WaitGroup
	for i, tu := range uses {
		ev := x.id.event(hooks.PreToolUse, messageID, tu.ID, strconv.Itoa(tu.Pos))
		ev.ToolName, ev.ToolCallID = tu.Name, tu.ID
		wg.Add(1)
		go func() {
			defer wg.Done()
			verdicts[i] = judgeToolCall(ctx, x.m.loop.opts.Engine, ev, []byte(tu.Input))
		}()
	}
	wg.Wait()
	return verdicts
}
