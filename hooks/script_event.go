package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/dop251/goja"
)

// scriptMaxDepth bounds the nesting of the event given to a script (tool
// arguments nested thousands deep must not recurse without bound).
const scriptMaxDepth = 128

var errEventTooLarge = fmt.Errorf("event exceeds %d bytes", ScriptMaxEventBytes)

// eventToJS builds the event object a script receives directly in the
// runtime (plain JavaScript objects and arrays, as JSON.parse would make,
// without the cost of encoding and parsing). Fields that are empty are
// absent, as in the event JSON. The size is accounted as it is built: an
// event over ScriptMaxEventBytes, or nested deeper than scriptMaxDepth, is
// an error.
func eventToJS(rt *goja.Runtime, ev *Event) (goja.Value, error) {
	c := jsConverter{rt: rt, budget: ScriptMaxEventBytes}
	o := rt.NewObject()
	str := func(k, v string) {
		if v != "" {
			c.budget -= len(k) + len(v) + 6
			_ = o.Set(k, v)
		}
	}
	str("event", string(ev.Event))
	str("eventId", ev.EventID)
	str("sessionId", ev.SessionID)
	str("parentSessionId", ev.ParentSessionID)
	str("tenant", ev.Tenant)
	str("agent", ev.Agent)
	str("user", ev.User)
	str("provider", ev.Provider)
	str("model", ev.Model)
	str("toolName", ev.ToolName)
	str("toolCallId", ev.ToolCallID)
	if ev.ToolInput != nil {
		v, err := c.value(ev.ToolInput, 0)
		if err != nil {
			return nil, fmt.Errorf("toolInput: %w", err)
		}
		_ = o.Set("toolInput", v)
	}
	if ev.ToolResult != nil {
		c.budget -= len(*ev.ToolResult) + 16
		_ = o.Set("toolResult", *ev.ToolResult)
	}
	str("prompt", ev.Prompt)
	str("response", ev.Response)
	if ev.Metadata != nil {
		v, err := c.value(ev.Metadata, 0)
		if err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
		_ = o.Set("metadata", v)
	}
	if c.budget < 0 {
		return nil, errEventTooLarge
	}
	return o, nil
}

type jsConverter struct {
	rt     *goja.Runtime
	budget int
}

// value converts a JSON-shaped Go value. Other Go types go through their
// JSON encoding, so a script sees what a JSON consumer would.
func (c *jsConverter) value(v any, depth int) (goja.Value, error) {
	if depth > scriptMaxDepth {
		return nil, fmt.Errorf("nested deeper than %d", scriptMaxDepth)
	}
	if c.budget < 0 {
		return nil, errEventTooLarge
	}
	c.budget -= 4
	switch x := v.(type) {
	case nil:
		return goja.Null(), nil
	case string:
		c.budget -= len(x)
		return c.rt.ToValue(x), nil
	case bool:
		return c.rt.ToValue(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return goja.Null(), nil
		}
		return c.rt.ToValue(x), nil
	case int, int64, int32, uint64, uint32, float32:
		f, _ := number(x)
		return c.rt.ToValue(f), nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("number %q: %w", string(x), err)
		}
		return c.rt.ToValue(f), nil
	case map[string]any:
		o := c.rt.NewObject()
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the order encoding/json would give
		for _, k := range keys {
			c.budget -= len(k)
			ev, err := c.value(x[k], depth+1)
			if err != nil {
				return nil, err
			}
			_ = o.Set(k, ev)
		}
		return o, nil
	case []any:
		vals := make([]any, len(x))
		for i, e := range x {
			ev, err := c.value(e, depth+1)
			if err != nil {
				return nil, err
			}
			vals[i] = ev
		}
		return c.rt.NewArray(vals...), nil
	default:
		raw, err := json.Marshal(x)
		if err != nil {
			return nil, fmt.Errorf("encode %T: %w", x, err)
		}
		var generic any
		if err := json.Unmarshal(raw, &generic); err != nil {
			return nil, errors.New("re-decode value")
		}
		return c.value(generic, depth+1)
	}
}
