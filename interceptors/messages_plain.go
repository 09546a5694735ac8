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
// tool_use blocks judged concurrently, a blocked one removed, a rewritten
// one given its new input, stop_reason end_turn when every one was
// blocked; the notes of the blocked calls and pre_response's text (for a
// final answer) join the last text block, or make one text block at the
// end when the answer has none (answer_join.go).
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
	var added answerAdditions
	var removed []int
	for i, tu := range uses {
		v := verdicts[i]
		x.countToolCall(tu.Name, v.Decision)
		if v.Decision != hooks.Block {
			x.m.loop.clock.issued(x.id.session, tu.ID)
		}
		switch v.Decision {
		case hooks.Block:
			added.note(blockNote(x.m.loop.opts.BlockTemplate, tu.Name, v.HookID, v.Reason))
			removed = append(removed, tu.Pos)
		case hooks.Rewrite:
			if out, err = providers.SetMessagesToolInput(out, tu.Pos, v.Arguments); err != nil {
				return nil, editFailed(err)
			}
		}
	}
	if len(removed) > 0 {
		if out, err = providers.RemoveMessagesBlocks(out, removed...); err != nil {
			return nil, editFailed(err)
		}
	}
	if len(removed) > 0 && len(removed) == len(uses) && resp.StopReason == "tool_use" {
		if out, err = providers.SetMessagesResponseStopReason(out, "end_turn"); err != nil {
			return nil, editFailed(err)
		}
	}
	// The last text block, where it sits once the blocked calls are gone.
	last, lastPos := -1, -1
	for _, c := range resp.Content {
		if c.Type == "text" {
			last = c.Pos
		}
	}
	if last >= 0 {
		lastPos = last
		for _, p := range removed {
			if p < last {
				lastPos--
			}
		}
	}
	final := len(uses) == len(removed)
	shown, disclaimer, err := x.m.loop.settleAnswer(ctx, &x.exchangeState, &added, []byte(resp.Text()), final, true)
	if err != nil {
		return nil, err
	}
	if text := added.joined(disclaimer, last >= 0 && resp.Content[last].Text != ""); text != "" {
		if lastPos >= 0 {
			out, err = providers.AppendToMessagesTextBlock(out, lastPos, text)
		} else {
			out, err = providers.AppendMessagesText(out, text)
		}
		if err != nil {
			return nil, editFailed(err)
		}
	}
	if final {
		x.m.loop.answered(ctx, x.id, string(shown))
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
