package interceptors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// on_block: retry. When every call of a response is blocked, hookgate can
// tell the model instead of the agent: it appends the blocked round (the
// assistant's calls and a tool message "blocked by <hook>: <reason>" for
// each) to the conversation, asks the upstream again with the same
// parameters, and streams the new answer as the continuation of the same
// response: one id, usage summed, one well-formed stream. This is a new
// request after a complete response, never a replay of a cut one.

// errRetry ends a stream whose answer is to be asked again.
var errRetry = errors.New("every tool call was blocked: asking the model again")

// retryState is what a stream knows about retries.
type retryState struct {
	reqBody    []byte // the request this stream answers
	attempt    int    // 0 for the agent's own request
	idOverride string // the first response's id, kept by continuations
	priorUsage []byte // usage of the earlier attempts, summed
	lastUsage  []byte // this answer's usage, when it reported one
	deciding   bool   // a retry was decided: the rest of this answer is swallowed
	choice     *choiceState
}

func (r *retryState) continuing() bool { return r.attempt > 0 }

// WantsResend reports whether this exchange may ask the upstream again.
func (x *chatExchange) WantsResend() bool {
	c := x.chat
	return x.hooked && c.has(hooks.PreToolUse) && c.opts.MaxRetries > 0 && (c.opts.OnBlock == "retry" || c.opts.RetryHooks)
}

// SetResend receives the proxy's way to ask the upstream again.
func (x *chatExchange) SetResend(f func(ctx context.Context, body []byte) (io.ReadCloser, error)) {
	x.resend = f
}

// retryPossible reports whether block notes must wait for the finish,
// because the model may be asked again instead.
func (x *chatExchange) retryPossible() bool { return x.resend != nil }

// effectiveOnBlock is a verdict's on_block, or the configured default.
func (x *chatExchange) effectiveOnBlock(v verdict) string {
	if v.OnBlock != "" {
		return v.OnBlock
	}
	if x.chat.opts.OnBlock == "" {
		return "respond"
	}
	return x.chat.opts.OnBlock
}

// shouldRetry reports whether a choice whose every call was blocked is to
// be asked again: only when every block says retry and retries remain.
func (s *chatStream) shouldRetry(cs *choiceState) bool {
	x := s.x
	if !x.retryPossible() || s.retry.attempt >= x.chat.opts.MaxRetries || len(s.choices) != 1 {
		return false
	}
	for _, c := range cs.blockedCalls {
		if x.effectiveOnBlock(c.v) != "retry" {
			return false
		}
	}
	return len(cs.blockedCalls) > 0
}

// relayWithRetries relays a stream, then its continuations while the
// model is asked again.
func (x *chatExchange) relayWithRetries(ctx context.Context, upstream io.Reader, client Sink) error {
	s := newChatStream(x, client, x.body)
	err := s.run(ctx, upstream)
	for errors.Is(err, errRetry) {
		next, body, rerr := s.continuation(ctx)
		if rerr != nil {
			x.chat.log.Warn("on_block retry failed; showing the block instead", "session", x.id.session, "err", rerr)
			return s.respondInstead()
		}
		err = next.run(ctx, body)
		body.Close()
		s = next
	}
	return err
}

// continuation asks the upstream again and returns the stream that will
// relay the new answer.
func (s *chatStream) continuation(ctx context.Context) (*chatStream, io.ReadCloser, error) {
	cs := s.retry.choice
	calls := make([]providers.ToolCallOut, len(cs.blockedCalls))
	results := make([]string, len(cs.blockedCalls))
	for i, c := range cs.blockedCalls {
		id := c.id
		if id == "" {
			id = "call_hookgate_" + strconv.Itoa(s.retry.attempt) + "_" + strconv.Itoa(i)
		}
		calls[i] = providers.ToolCallOut{Index: i, ID: id, Name: c.name, Arguments: string(c.args)}
		results[i] = fmt.Sprintf("blocked by %s: %s", c.v.HookID, c.v.Reason)
	}
	body, err := providers.AppendToolRound(s.retry.reqBody, string(cs.said), calls, results)
	if err != nil {
		return nil, nil, err
	}
	up, err := s.x.resend(ctx, body)
	if err != nil {
		return nil, nil, err
	}
	next := newChatStream(s.x, s.client, body)
	next.retry.attempt = s.retry.attempt + 1
	next.retry.idOverride = s.retry.idOverride
	if next.retry.idOverride == "" {
		next.retry.idOverride = s.responseID
	}
	next.retry.priorUsage = providers.SumUsage(s.retry.priorUsage, s.retry.lastUsage)
	next.template = s.template
	return next, up, nil
}

// continuationFrame gives a frame of a continuation the first response's
// id and the usage of every attempt, so the client sees one response.
func (s *chatStream) continuationFrame(f *providers.SSEFrame) (*providers.SSEFrame, error) {
	data := f.Data
	var err error
	if s.retry.idOverride != "" {
		if data, err = providers.SetID(data, s.retry.idOverride); err != nil {
			return nil, err
		}
	}
	if s.chunk.HasUsage() && len(s.retry.priorUsage) > 0 {
		if data, err = providers.AddUsage(data, s.retry.priorUsage); err != nil {
			return nil, err
		}
	}
	out := &providers.SSEFrame{Raw: providers.FrameSSEData(data), Data: data, DataLines: 1, Seq: f.Seq, Offset: f.Offset}
	if err := s.chunk.Decode(out.Data); err != nil {
		return nil, err
	}
	return out, nil
}

// respondInstead finishes a stream whose retry could not be made: the
// notes it held back, a finish with "stop", and [DONE].
func (s *chatStream) respondInstead() error {
	cs := s.retry.choice
	if err := s.writeNote(cs, s.template, strings.Join(cs.notes, "")); err != nil {
		return err
	}
	chunk, err := providers.EncodeContentChunk(s.template, cs.index, "")
	if err == nil {
		chunk, err = providers.SetChunkFinishReason(chunk, cs.index, "stop")
	}
	if err != nil {
		return s.fail("hookgate_error", "hookgate could not finish the response", err)
	}
	if err := s.write(providers.FrameSSEData(chunk)); err != nil {
		return err
	}
	if err := s.write([]byte(providers.SSEDone)); err != nil {
		return err
	}
	return s.client.Flush()
}
