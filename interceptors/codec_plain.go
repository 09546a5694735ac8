package interceptors

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// finishPlain applies the hooks to a non-streamed response of a codec's
// format, read as one frame: its calls judged concurrently, blocked ones
// removed, rewritten ones given their new arguments, and the notes and
// pre_response's text (for a final answer) joined to its answer.
func (x *codecExchange) finishPlain(ctx context.Context, body []byte) ([]byte, error) {
	var f providers.CodecFrame
	if err := x.c.codec.DecodeFrame(body, &f); err != nil {
		// Not a response hookgate can read: a call in it could not be
		// judged, so it is not passed on.
		return nil, &RequestError{Status: 502, Type: "upstream_error", Code: "unreadable_response",
			Message: "hookgate could not read the upstream's response, so its tool calls could not be judged", Err: err}
	}
	if f.Error {
		return body, nil
	}
	started := time.Now()
	verdicts := x.judgeAll(ctx, f.Calls)
	x.hookTime += time.Since(started)
	var added answerAdditions
	edits, kept := x.decide(f.Calls, verdicts, &added)
	final := kept == 0
	shown, disclaimer, err := x.c.loop.settleAnswer(ctx, &x.exchangeState, &added, f.Text, final, x.mayDisclaim())
	if err != nil {
		return nil, err
	}
	out := body
	if text := added.joined(disclaimer, len(f.Text) > 0); len(edits) > 0 || text != "" {
		if out, err = x.c.codec.EditFrame(body, &f, edits, text); err != nil {
			return nil, editFailed(err)
		}
	}
	if final {
		x.c.loop.answered(ctx, x.id, string(shown))
	}
	return out, nil
}

// judgeAll runs pre_tool_use for every call concurrently and returns the
// verdicts in the calls' order.
func (x *codecExchange) judgeAll(ctx context.Context, calls []providers.CodecCall) []verdict {
	verdicts := make([]verdict, len(calls))
	if !x.c.loop.has(hooks.PreToolUse) {
		for i, c := range calls {
			verdicts[i] = verdict{Decision: hooks.Allow, Arguments: c.Args}
		}
		return verdicts
	}
	var wg sync.WaitGroup
	for i := range calls {
		ev := x.callEvent(&calls[i])
		wg.Add(1)
		go func() {
			defer wg.Done()
			verdicts[i] = judgeToolCall(ctx, x.c.loop.opts.Engine, ev, calls[i].Args)
		}()
	}
	wg.Wait()
	return verdicts
}

// callEvent is the pre_tool_use event of a call. Its id derives from the
// parts the codec names (CodecCall.EventKey), or from the call's id, or, for a call without one, from the request it answers and
// the call's place and content: a call in a later turn never shares an
// event id with an earlier one (an id names an approval and an audit
// row), and the same request sent again gives its calls the same ids.
func (x *codecExchange) callEvent(c *providers.CodecCall) *hooks.Event {
	if len(c.EventKey) > 0 {
		ev := x.id.event(hooks.PreToolUse, c.EventKey...)
		ev.ToolName, ev.ToolCallID = c.Name, c.ID
		return ev
	}
	key := c.ID
	if key == "" {
		sum := sha256.New()
		sum.Write(x.requestDigest())
		for _, part := range []string{c.Key, c.Name} {
			sum.Write([]byte{0})
			sum.Write([]byte(part))
		}
		sum.Write([]byte{0})
		sum.Write(c.Args)
		key = "unnamed:" + hex.EncodeToString(sum.Sum(nil)[:16])
	}
	ev := x.id.event(hooks.PreToolUse, key)
	ev.ToolName, ev.ToolCallID = c.Name, c.ID
	return ev
}

// decide turns the verdicts on a frame's calls into the codec's edits:
// a blocked call removed and its note added, a rewritten one given its
// arguments. It counts each call and stamps those that reach the client,
// and reports how many do.
func (x *codecExchange) decide(calls []providers.CodecCall, verdicts []verdict, added *answerAdditions) (edits []providers.CallEdit, kept int) {
	loop := x.c.loop
	for i, v := range verdicts {
		c := &calls[i]
		x.countToolCall(c.Name, v.Decision)
		switch v.Decision {
		case hooks.Block:
			if x.onBlock != nil {
				x.onBlock(c, &verdicts[i])
			}
			added.note(blockNote(loop.opts.BlockTemplate, c.Name, v.HookID, v.Reason))
			edits = append(edits, providers.CallEdit{Call: i, Remove: true})
			continue
		case hooks.Rewrite:
			edits = append(edits, providers.CallEdit{Call: i, Args: v.Arguments})
		}
		kept++
		if c.ID != "" {
			loop.clock.issued(x.id.session, c.ID)
		}
	}
	return edits, kept
}

// requestDigest is a digest of the request body as sent upstream, taken
// once per exchange.
func (x *codecExchange) requestDigest() []byte {
	x.digestOnce.Do(func() {
		d := sha256.Sum256(x.body)
		x.digest = d[:]
	})
	return x.digest
}
