package interceptors

import (
	"context"
	"fmt"
	"time"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// finishPlain applies the hooks to a non-streamed response: its calls
// judged concurrently, each blocked one removed, rewritten ones
// re-encoded; the notes of the blocked calls and pre_response's text (for
// a final answer) join the last output_text part of the last message item,
// or make one message item at the end when the answer has none
// (answer_join.go); and the chain's link recorded before the agent can
// continue it.
func (x *responsesExchange) finishPlain(ctx context.Context, body []byte) ([]byte, error) {
	resp, err := providers.ParseResponsesResponse(body)
	if err != nil {
		// A call in a response hookgate cannot read could not be judged,
		// so it is not passed on.
		return nil, &RequestError{Status: 502, Type: "upstream_error", Code: "unreadable_response",
			Message: "hookgate could not read the upstream's response, so its tool calls could not be judged", Err: err}
	}
	if err := x.refuseUnjudged(resp); err != nil {
		return nil, &RequestError{Status: 502, Type: "upstream_error", Code: "unsupported_tool_call", Message: err.Error(), Err: errUnjudgedItem}
	}
	link := x.newLink()
	if !x.watchesResponse() {
		for _, c := range resp.Calls() {
			link.addCall(c.CallID, c.Name, callArguments(c.Kind, c.Input))
		}
		x.saveLink(resp.ID, link)
		return body, nil
	}
	calls := resp.Calls()
	started := time.Now()
	verdicts := x.judgeAll(ctx, resp.ID, calls)
	x.hookTime += time.Since(started)
	out := body
	var added answerAdditions
	var removed []int
	for i, c := range calls {
		v := verdicts[i]
		x.countToolCall(c.Name, v.Decision)
		switch v.Decision {
		case hooks.Block:
			added.note(blockNote(x.r.loop.opts.BlockTemplate, c.Name, v.HookID, v.Reason))
			removed = append(removed, c.Pos)
			link.block(c.Kind, c.CallID, v.HookID, v.Reason)
		case hooks.Rewrite:
			if out, err = providers.SetResponsesOutputInput(out, providers.PlainOutput, c.Pos, c.Kind, string(v.Arguments)); err != nil {
				return nil, editFailed(err)
			}
			link.addCall(c.CallID, c.Name, callArguments(c.Kind, string(v.Arguments)))
			x.r.loop.clock.issued(x.id.session, c.CallID)
		default:
			link.addCall(c.CallID, c.Name, callArguments(c.Kind, c.Input))
			x.r.loop.clock.issued(x.id.session, c.CallID)
		}
	}
	final := len(calls) == len(removed)
	shown, disclaimer, err := x.r.loop.settleAnswer(ctx, &x.exchangeState, &added, []byte(resp.Text), final, true)
	if err != nil {
		return nil, err
	}
	// The last output_text part of the last message item.
	last := -1
	for i, it := range resp.Output {
		if it.Type == "message" && it.LastTextPart >= 0 {
			last = i
		}
	}
	if text := added.joined(disclaimer, last >= 0 && resp.Output[last].Text != ""); text != "" {
		if last >= 0 {
			out, err = providers.AppendToResponsesOutputText(out, providers.PlainOutput, resp.Output[last].Pos, resp.Output[last].LastTextPart, text)
		} else {
			out, err = providers.AppendResponsesOutputItem(out, providers.PlainOutput, providers.MessageItem(noteItemID(), text))
		}
		if err != nil {
			return nil, editFailed(err)
		}
	}
	if len(removed) > 0 {
		if out, err = providers.RemoveResponsesOutputItems(out, providers.PlainOutput, removed...); err != nil {
			return nil, editFailed(err)
		}
	}
	x.saveLink(resp.ID, link)
	if final {
		x.r.loop.answered(ctx, x.id, string(shown))
	}
	return out, nil
}

// refuseUnjudged names the first output item the agent would run that
// hookgate cannot judge, when pre_tool_use hooks watch the calls: such a
// response is refused rather than passed unjudged.
func (x *responsesExchange) refuseUnjudged(resp *providers.ResponsesResponse) error {
	if !x.r.loop.has(hooks.PreToolUse) {
		return nil
	}
	for _, it := range resp.Output {
		if providers.ResponsesClientRunItem([]byte(it.Type)) {
			return fmt.Errorf("the upstream's response asks the agent to run a %s item at output %d, which hookgate cannot judge", it.Type, it.Pos)
		}
	}
	return nil
}

// noteItemID names a message item hookgate adds to a response.
func noteItemID() string { return "msg_hookgate_" + randomHex(12) }
