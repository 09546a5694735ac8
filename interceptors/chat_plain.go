package interceptors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// finishPlain applies the hooks to a non-streamed chat completion: the
// tool calls of message.tool_calls judged concurrently, blocked ones
// removed with a note in the content, rewritten ones re-encoded,
// finish_reason "stop" when every call was blocked, and pre_response's
// text appended to a final answer.
func (x *chatExchange) finishPlain(ctx context.Context, body []byte) ([]byte, error) {
	return x.finishPlainAttempt(ctx, body, x.body, 0)
}

// finishPlainAttempt is finishPlain for one attempt: attempt 0 answers the
// agent's request, later ones answer hookgate's retries (reqBody).
func (x *chatExchange) finishPlainAttempt(ctx context.Context, body, reqBody []byte, attempt int) ([]byte, error) {
	resp, err := providers.ParseChatResponse(body)
	if err != nil {
		// Not a chat completion hookgate can read: a tool call in it could
		// not be judged, so it is not passed on.
		return nil, &RequestError{Status: 502, Type: "upstream_error", Code: "unreadable_response",
			Message: "hookgate could not read the upstream's response, so its tool calls could not be judged", Err: err}
	}
	out := body
	for _, ch := range resp.Choices {
		started := time.Now()
		verdicts := x.judgeAll(ctx, resp.ID, ch)
		x.hookTime += time.Since(started)
		for i, tc := range ch.ToolCalls {
			x.countToolCall(tc.Name, verdicts[i].Decision)
			if verdicts[i].Decision != hooks.Block {
				x.chat.clock.issued(x.id.session, tc.ID)
			}
		}
		var blocked []int
		var notes []string
		for i, tc := range ch.ToolCalls {
			v := verdicts[i]
			switch v.Decision {
			case hooks.Block:
				blocked = append(blocked, tc.Pos)
				notes = append(notes, blockNote(x.chat.opts.BlockTemplate, tc.Name, v.HookID, v.Reason))
			case hooks.Rewrite:
				if tc.Custom {
					// A custom call is judged as {"input": text}; its
					// rewrite must keep that shape.
					input := gjson.GetBytes(v.Arguments, "input")
					if input.Type != gjson.String {
						return nil, editFailed(errCustomRewrite)
					}
					if out, err = providers.SetResponseCustomInput(out, ch.Index, tc.Pos, input.Str); err != nil {
						return nil, editFailed(err)
					}
				} else if out, err = providers.SetResponseToolCallArguments(out, ch.Index, tc.Pos, string(v.Arguments)); err != nil {
					return nil, editFailed(err)
				}
			}
		}
		if len(blocked) > 0 && len(blocked) == len(ch.ToolCalls) && len(resp.Choices) == 1 && x.plainRetry(verdicts, attempt) {
			return x.retryPlain(ctx, body, reqBody, attempt, ch, verdicts)
		}
		if len(blocked) > 0 {
			if out, err = providers.RemoveResponseToolCalls(out, ch.Index, blocked...); err != nil {
				return nil, editFailed(err)
			}
			note := strings.Join(notes, "\n")
			if ch.Content != "" {
				note = "\n\n" + note
			}
			if out, err = providers.AppendResponseContent(out, ch.Index, note); err != nil {
				return nil, editFailed(err)
			}
			if len(blocked) == len(ch.ToolCalls) {
				if out, err = providers.SetResponseFinishReason(out, ch.Index, "stop"); err != nil {
					return nil, editFailed(err)
				}
			}
		}
		survivors := len(ch.ToolCalls) - len(blocked)
		final := survivors == 0
		answer := ch.Content
		if final || x.chat.opts.PreResponseOnToolCalls {
			text, err := x.preResponse(ctx, answer)
			if err != nil {
				return nil, err
			}
			if text != "" {
				if answer != "" || len(blocked) > 0 {
					text = "\n\n" + text
				}
				if out, err = providers.AppendResponseContent(out, ch.Index, text); err != nil {
					return nil, editFailed(err)
				}
			}
		}
		if final {
			x.answered(ctx, answer)
		}
	}
	return out, nil
}

// judgeAll runs pre_tool_use for every call of a choice and returns the
// verdicts in the calls' order. The calls are judged concurrently, the
// first on this goroutine: a lone call (the common answer) costs no
// goroutine and no hand-off.
func (x *chatExchange) judgeAll(ctx context.Context, responseID string, ch providers.ResponseChoice) []verdict {
	verdicts := make([]verdict, len(ch.ToolCalls))
	if !x.chat.has(hooks.PreToolUse) {
		for i, tc := range ch.ToolCalls {
			verdicts[i] = verdict{Decision: hooks.Allow, Arguments: []byte(tc.Arguments)}
		}
		return verdicts
	}
	judge := func(i int) {
		tc := ch.ToolCalls[i]
		ev := x.id.event(hooks.PreToolUse, responseID, tc.ID, strconv.Itoa(ch.Index)+"/"+strconv.Itoa(i))
		ev.ToolName, ev.ToolCallID = tc.Name, tc.ID
		verdicts[i] = judgeToolCall(ctx, x.chat.opts.Engine, ev, []byte(tc.Arguments))
	}
	var wg sync.WaitGroup
	for i := 1; i < len(ch.ToolCalls); i++ {
		wg.Go(func() { judge(i) })
	}
	if len(ch.ToolCalls) > 0 {
		judge(0)
	}
	wg.Wait()
	return verdicts
}

var errCustomRewrite = errors.New(`a rewrite of a custom tool call must give {"input": "<text>"}`)

func editFailed(err error) error {
	return &RequestError{Status: 500, Type: "server_error", Code: "hookgate_error", Message: "hookgate could not apply a hook's decision to the response", Err: err}
}

// plainRetry reports whether a plain response whose every call was blocked
// is to be asked again.
func (x *chatExchange) plainRetry(verdicts []verdict, attempt int) bool {
	if !x.retryPossible() || attempt >= x.chat.opts.MaxRetries {
		return false
	}
	for _, v := range verdicts {
		if x.effectiveOnBlock(v) != "retry" {
			return false
		}
	}
	return true
}

// retryPlain tells the model its calls were blocked, asks again, and
// returns the new answer as the same response: the first id, usage summed.
func (x *chatExchange) retryPlain(ctx context.Context, body, reqBody []byte, attempt int, ch providers.ResponseChoice, verdicts []verdict) ([]byte, error) {
	calls := make([]providers.ToolCallOut, len(ch.ToolCalls))
	results := make([]string, len(ch.ToolCalls))
	for i, tc := range ch.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_hookgate_%d_%d", attempt, i)
		}
		calls[i] = providers.ToolCallOut{Index: i, ID: id, Name: tc.Name, Arguments: tc.Arguments}
		results[i] = fmt.Sprintf("blocked by %s: %s", verdicts[i].HookID, verdicts[i].Reason)
	}
	next, err := providers.AppendToolRound(reqBody, ch.Content, calls, results)
	if err != nil {
		return nil, editFailed(err)
	}
	up, err := x.resend(ctx, next)
	if err != nil {
		return nil, &RequestError{Status: 502, Type: "upstream_error", Code: "retry_failed", Message: "hookgate asked the model again after blocking its tool calls, and the upstream failed", Err: err}
	}
	answer, err := io.ReadAll(io.LimitReader(up, maxPlainRetryBody))
	up.Close()
	if err != nil {
		return nil, &RequestError{Status: 502, Type: "upstream_error", Code: "retry_failed", Message: "hookgate could not read the upstream's answer to its retry", Err: err}
	}
	out, err := x.finishPlainAttempt(ctx, answer, next, attempt+1)
	if err != nil {
		return nil, err
	}
	if out, err = providers.SetID(out, gjsonString(body, "id")); err != nil {
		return nil, editFailed(err)
	}
	if prior := gjson.GetBytes(body, "usage"); prior.IsObject() {
		if out, err = providers.AddUsage(out, []byte(prior.Raw)); err != nil {
			return nil, editFailed(err)
		}
	}
	return out, nil
}

// maxPlainRetryBody caps the answer to a retry that hookgate reads whole.
const maxPlainRetryBody = 32 << 20
