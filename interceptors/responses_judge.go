package interceptors

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/providers"
)

// judgeCall runs pre_tool_use for one call of a Responses output. The
// verdict's Arguments are what to put on the wire: a function call's
// arguments, or a custom tool call's input text. Hooks see every call's
// input as an object: a custom tool call's free text as {"input": text},
// and a rewrite of it must leave input a string.
func (x *responsesExchange) judgeCall(ctx context.Context, ev *hooks.Event, kind providers.ResponsesCallKind, input []byte) verdict {
	engine := x.r.loop.opts.Engine
	if kind != providers.CustomToolCall {
		return judgeToolCall(ctx, engine, ev, input)
	}
	v := judgeToolCall(ctx, engine, ev, customToolInput(string(input)))
	switch v.Decision {
	case hooks.Allow:
		v.Arguments = input
	case hooks.Rewrite:
		in := gjson.GetBytes(v.Arguments, "input")
		if in.Type != gjson.String {
			return verdict{Decision: hooks.Block, HookID: hookgateBlocker, Reason: "a hook's rewrite of a custom tool call must leave its input a string"}
		}
		v.Arguments = []byte(in.Str)
	}
	return v
}

// customToolInput is the object hooks see for a custom tool call.
func customToolInput(text string) []byte {
	b, _ := json.Marshal(map[string]string{"input": text}) // a string map always marshals
	return b
}

// callEvent is the pre_tool_use event of a call of the response; ordinal
// numbers the calls of the response from 0.
func (x *responsesExchange) callEvent(responseID, callID, name string, ordinal int) *hooks.Event {
	ev := x.id.event(hooks.PreToolUse, responseID, callID, "0/"+strconv.Itoa(ordinal))
	ev.ToolName, ev.ToolCallID = name, callID
	return ev
}

// judgeAll judges the calls of a whole response concurrently and returns
// the verdicts in the calls' order.
func (x *responsesExchange) judgeAll(ctx context.Context, responseID string, calls []providers.ResponsesOutputItem) []verdict {
	verdicts := make([]verdict, len(calls))
	if !x.r.loop.has(hooks.PreToolUse) {
		for i, c := range calls {
			verdicts[i] = verdict{Decision: hooks.Allow, Arguments: []byte(c.Input)}
		}
		return verdicts
	}
	var wg sync.WaitGroup
	for i, c := range calls {
		ev := x.callEvent(responseID, c.CallID, c.Name, i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			verdicts[i] = x.judgeCall(ctx, ev, c.Kind, []byte(c.Input))
		}()
	}
	wg.Wait()
	return verdicts
}
